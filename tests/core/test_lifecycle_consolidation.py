"""Extractive summaries and consolidation of 2..50 memories; group suggestions."""

from __future__ import annotations

from pathlib import Path

import pytest

from embed_helpers import embedded
from memory_curator.core.errors import MemoryNotFoundError, ValidationError
from memory_curator.core.lifecycle import summarize
from memory_curator.core.vault.codec import split_frontmatter

SQLITE_NOTES = [
    "# Vector store\n\nWe store vectors in SQLite with sqlite-vec. The weather was nice that day.",
    "SQLite keeps the vectors next to the full text index. Lunch was pizza.",
    "- sqlite-vec adds vectors to SQLite\n- the team met on Tuesday",
]


def test_summary_keeps_the_most_frequent_topic_in_original_order():
    text = summarize.summarize(SQLITE_NOTES, ratio=0.5)
    kept = text.replace("\n\n", " ")
    assert "We store vectors in SQLite with sqlite-vec." in kept
    assert "SQLite keeps the vectors next to the full text index." in kept
    assert "pizza" not in kept and "weather" not in kept
    assert kept.index("We store") < kept.index("SQLite keeps") < kept.index("sqlite-vec adds")
    assert "# Vector store" not in text  # headings are not sentences


def test_summary_limit_and_repeats():
    long = [f"Sentence number {i} talks about the cache layer and its eviction policy." for i in range(400)]
    text = summarize.summarize([" ".join(long)], ratio=1.0)
    assert 3000 < len(text) <= summarize.MAX_SUMMARY_CHARS
    same = summarize.summarize(["The cache is Redis.", "The cache is Redis."], ratio=1.0)
    assert same == "The cache is Redis."
    assert summarize.summarize(["# only a heading"]) == ""


def test_japanese_is_split_with_sudachi():
    text = "今日は良い天気です。SQLiteの索引を使います！明日も晴れるでしょう？"
    assert summarize.sentences(text)[1].text == "SQLiteの索引を使います！"
    assert [s.text for s in summarize.sentences(text)] == ["今日は良い天気です。", "SQLiteの索引を使います！",
                                                           "明日も晴れるでしょう？"]
    assert "索引" in summarize.words("SQLiteの索引を使います") and "の" not in summarize.words("SQLiteの索引")
    summary = summarize.summarize(["索引はSQLiteに保存します。昼ご飯はカレーでした。", "SQLiteの索引は速いです。"],
                                  ratio=0.5)
    assert "カレー" not in summary and "索引はSQLiteに保存します。" in summary


def test_consolidate_by_ids_keeps_originals_by_default(svc):
    items = [svc.save(text, category="decisions", keywords=["sqlite", f"k{i}"], session_id="s1", salience=0.4 + i / 10)
             for i, text in enumerate(SQLITE_NOTES)]
    ids = [it.id for it in items]
    preview = svc.preview_consolidation(ids)
    assert svc.count() == 3  # a preview writes nothing
    assert preview.source_ids == tuple(ids) and preview.category == "decisions" and preview.session_id == "s1"
    assert preview.keywords[0] == "sqlite" and preview.salience == pytest.approx(0.6)
    result = svc.consolidate(ids)
    new = result.memory
    assert new.content == preview.content and new.consolidated_from == tuple(ids) and result.trashed == 0
    meta, body = split_frontmatter(Path(new.file_path).read_text())
    assert meta["consolidated_from"] == ids and meta["source"] == "system"
    assert all(svc.get(i).superseded_by == new.id for i in ids)  # kept, and linked to what replaced them
    assert svc.count() == 4
    assert [r.memory.id for r in svc.search("SQLite vectors", mode="keyword")] == [new.id]
    assert len(svc.search("SQLite vectors", mode="keyword", include_superseded=True)) == 4


def test_consolidate_can_move_originals_to_the_trash(svc):
    ids = [svc.save(t).id for t in SQLITE_NOTES[:2]]
    result = svc.consolidate(ids, preserve_originals=False, title="SQLite notes", category="summaries")
    assert result.trashed == 2 and result.memory.title == "SQLite notes" and result.memory.category == "summaries"
    assert all(svc.get(i) is None for i in ids)
    assert {it.id for it in svc.list_trash()} == set(ids)


@pytest.mark.parametrize("preserve", [True, False], ids=["originals kept", "originals trashed"])
def test_a_consolidation_can_be_taken_back(svc, preserve):
    items = [svc.save(t, category="decisions") for t in SQLITE_NOTES]
    elsewhere = svc.save("Older note on vectors")
    svc.supersede(elsewhere.id, items[0].id)  # a link the consolidation did not make stays
    ids = [it.id for it in items]
    summary = svc.consolidate([*ids, elsewhere.id] if preserve else ids, preserve_originals=preserve).memory
    back = svc.undo_consolidation(summary.id)
    assert {it.id for it in back} == set(ids) | ({elsewhere.id} if preserve else set())
    assert svc.get(summary.id) is None and summary.id in {it.id for it in svc.list_trash()}
    assert all(svc.get(i).superseded_by is None for i in ids)
    assert svc.get(elsewhere.id).superseded_by == items[0].id
    assert {r.memory.id for r in svc.search("SQLite vectors", mode="keyword", limit=10)} == set(ids)
    assert svc.get(ids[0]).content == SQLITE_NOTES[0]  # the originals are as they were


def test_only_a_summary_can_be_taken_back(svc):
    note = svc.save("just a note")
    with pytest.raises(ValidationError):
        svc.undo_consolidation(note.id)
    with pytest.raises(MemoryNotFoundError):
        svc.undo_consolidation("no-such-id")


def test_consolidate_by_query(svc):
    for t in SQLITE_NOTES:
        svc.save(t)
    svc.save("Bananas are yellow")
    result = svc.consolidate(query="sqlite vectors", limit=3)
    assert len(result.source_ids) == 3 and "Bananas" not in result.memory.content


def test_group_size_and_input_errors(svc):
    one = svc.save("lonely")
    with pytest.raises(ValidationError) as err:
        svc.consolidate([one.id])
    assert err.value.code == "GROUP_SIZE"
    with pytest.raises(ValidationError):
        svc.consolidate([f"id{i}" for i in range(51)])
    with pytest.raises(MemoryNotFoundError):
        svc.consolidate([one.id, "missing"])
    with pytest.raises(ValidationError):
        svc.consolidate()  # neither ids nor query
    with pytest.raises(ValidationError):
        svc.consolidate(query="lonely")  # finds one memory only
    assert svc.count() == 1


def test_fifty_memories_consolidate(svc):
    batch = svc.save_batch([{"content": f"Note {i}: the deploy uses Docker and Ansible. Item {i} was checked."}
                            for i in range(50)])
    result = svc.consolidate(batch.created_ids)
    assert len(result.memory.consolidated_from) == 50 and len(result.memory.content) <= 4000


def test_suggest_groups_without_embeddings_uses_word_overlap(svc):
    a = svc.save("Deploy the API with Docker compose on the staging server")
    b = svc.save("Docker compose deploys the API to the staging server")
    c = svc.save("Grandma's apple pie recipe needs cinnamon")
    groups = svc.suggest_groups()
    assert len(groups) == 1 and set(groups[0].memory_ids) == {a.id, b.id} and groups[0].method == "keyword"
    assert c.id not in groups[0].memory_ids
    with pytest.raises(ValidationError):
        svc.suggest_groups(max_size=51)


@pytest.mark.model
def test_suggest_groups_by_meaning(svc_local):
    svc = svc_local
    pets = [svc.save(t) for t in ("My cat sleeps on the sofa all day", "The kitten naps on the couch",
                                  "Our cat loves sleeping on the sofa")]
    svc.save("Quarterly revenue grew by ten percent")
    svc.save("The database migration runs at midnight")
    embedded(svc)
    groups = svc.suggest_groups(threshold=0.5)
    assert groups and groups[0].method == "semantic"
    assert set(groups[0].memory_ids) == {p.id for p in pets}
