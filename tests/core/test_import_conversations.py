"""ChatGPT and Claude data exports: a preview lists the conversations and writes nothing; the chosen ones are
imported as one memory each or one per message, each a session; importing again adds only what is new."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_curator.core.errors import ValidationError
from memory_curator.core.ingest import conversations
from memory_curator.core.progress import CancelToken
from source_fixtures import T0, chatgpt_conversation, claude_conversation, write_export_zip

TRIP = [("user", "Plan three days in Kyoto"), ("assistant", "Day 1: Fushimi Inari at dawn"),
        ("user", "Add a tea ceremony"), ("assistant", "Day 2 afternoon: tea in Uji")]
BUDGET = [("user", "Monthly budget for groceries?"), ("assistant", "About 400 euros for two")]


@pytest.fixture
def chatgpt_zip(tmp_path):
    convs = [chatgpt_conversation("c-trip", "Kyoto trip", TRIP, branch=(1, "Day 1: a museum (regenerated)")),
             chatgpt_conversation("c-budget", "Budget", BUDGET, t0=T0 + 86400)]
    return write_export_zip(tmp_path / "chatgpt-export.zip", convs)


def states(svc, source, mode="memory"):
    return svc.sources.preview(source, mode=mode).states


def test_the_preview_lists_conversations_with_dates_and_sizes_and_writes_nothing(svc, chatgpt_zip):
    preview = svc.sources.preview(chatgpt_zip).as_dict()
    assert preview["format"] == "chatgpt" and preview["modes"] == ["memory", "turns"]
    trip, budget = preview["items"]
    assert (trip["title"], trip["messages"], trip["created_at"]) == ("Kyoto trip", 4, "2024-03-01T09:00:00Z")
    assert trip["chars"] == sum(len(t) for _, t in TRIP)
    assert budget["created_at"] == "2024-03-02T09:00:00Z" and budget["state"] == "new"
    assert svc.count() == 0


def test_a_conversation_is_one_memory_and_a_session(svc, chatgpt_zip):
    report = svc.sources.import_items(chatgpt_zip, ["c-trip"])
    assert [(i.key, i.status) for i in report.items] == [("c-trip", "imported")]
    [item] = [svc.get(mid) for mid in report.memory_ids]
    assert item.title == "Kyoto trip" and item.session_id == "chatgpt:c-trip" and item.category == "summaries"
    assert item.content.splitlines()[0] == "**User:** Plan three days in Kyoto"
    assert "tea in Uji" in item.content and "museum" not in item.content  # the branch the user last saw only
    assert item.created_at.isoformat().startswith("2024-03-01T09:00")
    assert item.provenance["importer"] == "chatgpt" and item.provenance["messages"] == 4
    assert svc.count() == 1  # the budget conversation was not chosen


def test_turns_are_one_memory_per_message_in_one_session(svc, chatgpt_zip):
    report = svc.sources.import_items(chatgpt_zip, ["c-trip"], mode="turns", category="context")
    turns = sorted((svc.get(m) for m in report.memory_ids), key=lambda m: m.provenance["turn"])
    assert [t.content for t in turns] == [text for _, text in TRIP]
    assert [t.source for t in turns] == ["user", "ai", "user", "ai"]
    assert {t.session_id for t in turns} == {"chatgpt:c-trip"} and {t.category for t in turns} == {"context"}
    assert [m.content for m in svc.get_session_context("chatgpt:c-trip")] == [text for _, text in TRIP]


def test_importing_again_adds_nothing_and_a_longer_conversation_adds_its_new_turns(svc, tmp_path, chatgpt_zip):
    svc.sources.import_items(chatgpt_zip, mode="turns")
    again = svc.sources.import_items(chatgpt_zip, mode="turns")
    assert [(i.status, i.error) for i in again.items] == [("skipped", "already in this vault")] * 2
    assert states(svc, chatgpt_zip, "turns") == {"c-trip": "imported", "c-budget": "imported"}
    longer = write_export_zip(tmp_path / "later.zip", [
        chatgpt_conversation("c-trip", "Kyoto trip", [*TRIP, ("user", "And day 3?"), ("assistant", "Nara deer")])])
    assert states(svc, longer, "turns") == {"c-trip": "changed"}
    report = svc.sources.import_items(longer, mode="turns")
    assert report.items[0].status == "imported" and len(report.memory_ids) == 2
    assert svc.count() == 4 + 2 + 2


def test_a_longer_conversation_updates_its_memory_unless_it_was_edited_here(svc, tmp_path, chatgpt_zip):
    [mid] = svc.sources.import_items(chatgpt_zip, ["c-trip"]).memory_ids
    longer = [*TRIP, ("user", "And day 3?"), ("assistant", "Nara deer")]
    report = svc.sources.import_items(write_export_zip(tmp_path / "2.zip", [chatgpt_conversation("c-trip", "Kyoto trip",
                                                                                            longer)]))
    assert [(i.status, i.updated_ids) for i in report.items] == [("updated", [mid])]
    assert "Nara deer" in svc.get(mid).content and svc.count() == 1
    svc.update(mid, content=svc.get(mid).content + "\n\nMy note: book the ryokan early.")
    longest = write_export_zip(tmp_path / "3.zip", [chatgpt_conversation("c-trip", "Kyoto trip",
                                                                         [*longer, ("user", "Thanks")])])
    assert states(svc, longest) == {"c-trip": "conflict"}
    report = svc.sources.import_items(longest)
    assert report.items[0].status == "skipped" and "this vault's version is kept" in report.items[0].warnings[0]
    assert "book the ryokan" in svc.get(mid).content and "Thanks" not in svc.get(mid).content


def test_a_memory_deleted_here_is_not_imported_again(svc, chatgpt_zip):
    [mid] = svc.sources.import_items(chatgpt_zip, ["c-budget"]).memory_ids
    svc.delete(mid)
    assert states(svc, chatgpt_zip)["c-budget"] == "deleted"
    report = svc.sources.import_items(chatgpt_zip, ["c-budget"])
    assert report.items[0].status == "skipped" and "trash" in report.items[0].warnings[0]
    assert svc.get(mid) is None


def test_claude_export_json_with_an_attachment(svc, tmp_path):
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([claude_conversation("u-1", "Garden", [("human", "When to plant tulips?"),
                                                                       ("assistant", "In autumn, before frost.")],
                                                    attachment="soil.txt")]))
    preview = svc.sources.preview(path).as_dict()
    assert preview["format"] == "claude" and preview["items"][0]["messages"] == 2
    [mid] = svc.sources.import_items(path).memory_ids
    item = svc.get(mid)
    assert item.session_id == "claude:u-1" and "[file: soil.txt]" in item.content
    assert "left out" not in item.content and "**Assistant:** In autumn, before frost." in item.content


def test_an_unpacked_export_folder_is_read_too(svc, tmp_path):
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "conversations.json").write_text(json.dumps([chatgpt_conversation("c1", "Hello", BUDGET)]))
    assert svc.sources.read(folder).format == "chatgpt"


def test_broken_conversations_are_listed_and_the_others_imported(svc, tmp_path):
    data = [chatgpt_conversation("ok", "Fine", BUDGET), "not a conversation",
            {"title": "empty", "mapping": {"root": {"id": "root", "message": None, "parent": None, "children": []}},
             "current_node": "root", "id": "empty"},
            {"title": "cycle", "id": "cyc", "current_node": "a",
             "mapping": {"a": {"message": None, "parent": "b"}, "b": {"message": None, "parent": "a"}}}]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(data))
    report = svc.sources.import_items(path)
    assert [i.key for i in report.items] == ["ok"] and report.items[0].status == "imported"
    assert [p["where"] for p in report.problems] == ["conversation 2", "conversation 3 (empty)",
                                                      "conversation 4 (cycle)"]


@pytest.mark.parametrize("content", [b"PK\x03\x04 not really a zip", b"[1, 2", b'{"not": "an export"}',
                                     b"[" * 100_000 + b"]" * 100_000])
def test_files_that_are_no_export_are_refused_with_a_reason(svc, tmp_path, content):
    path = tmp_path / "conversations.json"
    path.write_bytes(content)
    with pytest.raises(ValidationError):
        svc.sources.read(path)
    assert svc.count() == 0


def test_a_zip_without_conversations_is_refused(svc, tmp_path):
    path = write_export_zip(tmp_path / "x.zip", [], extra={"notes.json": "{}"})
    with pytest.raises(ValidationError, match="export"):
        svc.sources.read(path)


def test_cancel_keeps_what_was_imported_and_progress_counts_items(svc, tmp_path):
    convs = [chatgpt_conversation(f"c{i}", f"Conversation {i}", BUDGET) for i in range(5)]
    path = write_export_zip(tmp_path / "many.zip", convs)
    token, seen, steps = CancelToken(), [], []

    def on_item(result):
        seen.append(result.key)
        if len(seen) == 2:
            token.cancel()

    report = svc.sources.import_items(path, cancel=token, on_item=on_item, progress=lambda d, t, m: steps.append((d, t)))
    assert report.cancelled and seen == ["c0", "c1"] and svc.count() == 2
    assert steps[0] == (1, 5)
    assert [i.status for i in svc.sources.import_items(path).items] == ["skipped"] * 2 + ["imported"] * 3


def test_unknown_keys_and_modes_are_refused(svc, chatgpt_zip):
    with pytest.raises(ValidationError):
        svc.sources.import_items(chatgpt_zip, ["no-such-conversation"])
    with pytest.raises(ValidationError):
        svc.sources.import_items(chatgpt_zip, mode="sentences")
    assert svc.count() == 0


# -- properties -------------------------------------------------------------------------------------------

texts = st.text(min_size=1, max_size=40).filter(lambda t: t.strip())
roles = st.sampled_from(["user", "assistant", "system", "tool"])


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(turns=st.lists(st.tuples(roles, texts), min_size=1, max_size=8), junk=st.dictionaries(
    st.text(max_size=5), st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers())),
    max_size=3))
def test_any_chatgpt_tree_reads_its_last_path_and_nothing_else(turns, junk):
    conv = chatgpt_conversation("c", "t", turns)
    conv["mapping"].update({f"junk{k}": v for k, v in junk.items()})  # nodes of any shape off the path
    got = conversations.chatgpt_turns(conv)
    assert [(t["role"], t["text"]) for t in got] == [(r, x.strip()) for r, x in turns if r in ("user", "assistant")]


@settings(max_examples=60)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
                    max_leaves=30))
def test_any_json_is_read_or_refused_never_crashes(data):
    for fmt in ("chatgpt", "claude"):
        source = conversations.read_export(data if isinstance(data, list) else [data], fmt, "x")
        for item in source.items:
            assert source.to_memories(item, conversations.ImportOptions())
