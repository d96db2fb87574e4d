"""The entity graph on real vaults: extraction from each source, links, corrections in entities.yaml that
survive a rebuild, the graph leg of hybrid search, query expansion and the actor scope."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memory_curator.core.errors import EntityNotFound, ValidationError
from memory_curator.core.graph import corrections as corr
from memory_curator.core.graph import names as name_finder
from memory_curator.core.graph.extract import fold, wikilinks
from memory_curator.core.graph.names import names
from memory_curator.core.index.filters import Filters
from memory_curator.core.service import MemoryService
from old_index import before_migration_19

LABELLED = Path(__file__).parent / "data" / "names_labelled.json"


def entity_names(svc, memory_id):
    return {name for name, _source in svc.graph.entities_of(memory_id)}


# -- extraction -------------------------------------------------------------------------------------------


def test_each_source_gives_entities(svc):
    item = svc.save("We met Ada Lovelace at the museum. See [[Analytical Engine|the engine]] and [[Babbage]].",
                    title="Museum", keywords=["computing"], actors=["npc_guide"])
    sources = dict(svc.graph.entities_of(item.id))
    assert sources["npc_guide"] == "actor"
    assert sources["Analytical Engine"] == "wikilink" and sources["Babbage"] == "wikilink"
    assert sources["computing"] == "keyword"
    assert sources["Ada Lovelace"] == "name"
    ja = svc.save("田中さんは東京で山田太郎に会った。", title="会議")
    assert {"田中", "東京", "山田太郎"} <= entity_names(svc, ja.id)


def test_wikilinks_with_labels_and_headings():
    assert wikilinks("a [[Target]] b [[Other|shown]] c [[Page#Section|x]] [[]]") == [
        ("Target", None), ("Other", "shown"), ("Page", "x")]
    assert fold("  Ada   LOVELACE. ") == "ada lovelace"


# Text shaped like memories: words, capitals, accents, code, links, headings, list items, digits, punctuation.
_PIECES = st.sampled_from(["word", "Word", "SQLite", "NASA", "äiti", "Åsa", "`Code`", "```\nFenced X\n```", "[[Link]]",
                           "https://x.org/A", "](Url)", "# Heading", "\n- item", "\n", " ", ".", ":", "2025", "_", "'s"])


@given(st.lists(_PIECES | st.text(max_size=8), max_size=30).map("".join))
def test_the_lower_case_shortcut_skips_only_text_without_names(text):
    """``lower_ascii`` lets a rebuild skip the heuristic: it must hold only where the heuristic's own first step
    (a capital in the plain text) would have found nothing."""
    for t in (text, text.lower(), text.encode("ascii", "ignore").decode()):
        if name_finder.lower_ascii(t):
            assert not name_finder._UPPER.search(name_finder.plain(t))
            assert names(t) == []


@given(st.lists(st.sampled_from(["Ada", "b", " ", "  ", ".", "("])).map("".join)
       | st.lists(st.sampled_from(["Ada", "b", " ", "  ", ".", "\t", "\n", "Å", "\u00a0", "ﬁ", "\x1f"])).map("".join)
       | st.text(alphabet=st.characters(max_codepoint=127)) | st.text())
@example("Ada  Lovelace")
@example("Ada\tLovelace")
@example("ﬁle  x")
def test_folding_ascii_names_by_the_shortcut_folds_as_the_normalisation_does(name):
    """Plain ASCII names skip NFKC and the white-space pattern (a rebuild's shortcut): the same key either way."""
    want = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", name).casefold()).strip(" \t.,;:!?'\"’“”()[]{}")
    assert fold.__wrapped__(name) == want


def _prf(lang):
    data = json.loads(LABELLED.read_text(encoding="utf-8"))[lang]
    tp = fp = fn = 0
    for ex in data:
        got = {n.casefold() for n in names(ex["text"])}
        gold = {n.casefold() for n in ex["names"]}
        tp, fp, fn = tp + len(got & gold), fp + len(got - gold), fn + len(gold - got)
    return tp / max(1, tp + fp), tp / max(1, tp + fn)


@pytest.mark.parametrize("lang, min_p, min_r", [("en", 0.9, 0.95), ("fi", 0.65, 0.75), ("ja", 0.8, 0.8)])
def test_name_extraction_on_the_hand_labelled_set(lang, min_p, min_r):
    # Figures of the last measurement are in the notes: en P 0.93 R 1.00, fi P 0.71 R 0.79, ja P 0.86 R 0.86.
    p, r = _prf(lang)
    assert p >= min_p and r >= min_r, (lang, p, r)


# -- links ----------------------------------------------------------------------------------------------


def test_links_from_wikilinks_supersedes_consolidation_parts_and_shared_entities(svc, tmp_path):
    home = svc.save("Gandros lives in Eldoria.", title="Home of the wizard")
    visit = svc.save("We visited [[Home of the wizard]] again.", title="Visit")
    kinds = {(lk.source, lk.target, lk.kind) for lk in svc.graph.links(home.id)}
    assert (visit.id, home.id, "wikilink") in kinds
    assert [m.id for m in svc.graph.backlinks(home.id)] == [visit.id]

    new = svc.save("Gandros moved to the coast.", title="Moved")
    svc.supersede(home.id, new.id)
    assert any(lk.kind in ("supersedes", "superseded_by") and {lk.source, lk.target} == {home.id, new.id}
               for lk in svc.graph.links(new.id))
    # Shared entity: both mention Gandros.
    other = svc.save("Gandros owes the party a favour.", title="Favour")
    shared = [lk for lk in svc.graph.links(other.id) if lk.kind == "entity"]
    assert any("Gandros" in lk.via for lk in shared)

    doc = tmp_path / "long.md"
    doc.write_text("# Long\n\n" + "\n\n".join(f"## Part {i}\n\n" + "word " * 1800 for i in range(3)), encoding="utf-8")
    (f,) = svc.import_paths([doc]).files
    parent, *children = f.memory_ids
    kinds = {lk.kind for lk in svc.graph.links(children[0]) if parent in (lk.source, lk.target)}
    assert kinds & {"part", "parent"}

    summary_id = svc.consolidate([visit.id, other.id], preserve_originals=True).memory.id
    assert {lk.target for lk in svc.graph.links(summary_id) if lk.kind == "consolidated_from"} == {visit.id, other.id}


def _names(svc, memory_id):
    """The file name (stem) and slug of a memory's file."""
    stem = Path(svc.get(memory_id).file_path).stem
    return stem, stem.split("_", 1)[1]


def test_links_meet_a_memory_by_its_title_file_name_slug_and_id(svc):
    home = svc.save("Gandros lives in Eldoria.", title="Home of the Wizard")
    stem, slug = _names(svc, home.id)
    by_file = svc.save(f"See [[{stem.upper()}]].", title="By file name")
    by_slug = svc.save(f"See [[{slug}|the home]].", title="By slug")
    nowhere = svc.save("See [[No such memory]].", title="Nowhere")
    links = {(lk.source, lk.target, lk.kind) for lk in svc.graph.links(home.id)}
    assert {(by_file.id, home.id, "wikilink"), (by_slug.id, home.id, "wikilink")} <= links
    assert {m.id for m in svc.graph.backlinks(home.id)} == {by_file.id, by_slug.id}
    assert not [lk for lk in svc.graph.links(nowhere.id) if lk.kind == "wikilink"]
    for name in ("home of the wizard", stem, slug.upper(), home.id):
        assert svc.graph.resolve(name).id == home.id
    assert svc.graph.resolve("No such memory") is None
    # A new title: the old one names nothing, the new one and the file's names still name it.
    svc.update(home.id, title="Tower of the Wizard")
    assert svc.graph.resolve("home of the wizard") is None
    assert svc.graph.resolve("Tower of the wizard").id == home.id
    assert {m.id for m in svc.graph.backlinks(home.id)} == {by_file.id, by_slug.id}
    # A memory never links to itself by its own name.
    selfish = svc.save("I am [[Selfish]].", title="Selfish")
    assert not [lk for lk in svc.graph.links(selfish.id) if lk.kind == "wikilink"]
    # Deleted: its names go with it.
    svc.delete(home.id)
    assert svc.graph.resolve(slug) is None and svc.graph.resolve(home.id) is None
    assert not [lk for lk in svc.graph.links(by_file.id) if lk.kind == "wikilink"]
    assert not svc.store.conn.execute("SELECT pk FROM link_names WHERE pk NOT IN (SELECT pk FROM memories)").fetchall()


def test_an_index_with_self_rows_is_migrated_to_the_same_links(vault_dir, config):
    """Migration 18: an index made before it (four 'self' rows per memory in graph_edges, no link_names table)
    resolves the same links after it."""
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        home = svc.save("Gandros lives in Eldoria.", title="Home of the Wizard")
        stem, slug = _names(svc, home.id)
        saved = [home, svc.save(f"See [[{stem}]] and [[{slug}]].", title="Files"),
                 svc.save("See [[home of the wizard]].", title="Title"), svc.save("Moved.", title="Moved")]
        svc.supersede(home.id, saved[-1].id)
        before = {m.id: {(lk.source, lk.target, lk.kind) for lk in svc.graph.links(m.id, shared_limit=0)} for m in saved}
        conn = svc.store.conn
        rows = conn.execute("SELECT pk, id, title, file_path FROM memories").fetchall()
        with svc.store.transaction():  # back to the index as version 16 made it
            conn.execute("DROP TABLE link_names")
            for pk, memory_id, title, rel in rows:
                stem_of = Path(rel).stem
                names = [f"id:{memory_id}", f"title:{fold(title)}", f"title:{fold(stem_of)}",
                         f"title:{fold(stem_of.split('_', 1)[1])}"]
                conn.executemany("INSERT OR IGNORE INTO graph_edges VALUES (?, ?, 'self')", [(pk, n) for n in names])
            before_migration_19(conn)
            conn.execute("DELETE FROM schema_migrations WHERE version = 18")
    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False) as svc:
        assert {m.id: {(lk.source, lk.target, lk.kind) for lk in svc.graph.links(m.id, shared_limit=0)} for m in saved} == before
        assert svc.store.conn.execute("SELECT COUNT(*) FROM graph_edges WHERE kind = 'self'").fetchone()[0] == 0
        assert svc.graph.resolve(slug).id == home.id


def test_entities_come_in_pages_in_the_order_of_the_whole_list_and_follow_changes(svc):
    for i in range(12):
        svc.save(f"Gandros met Person{i} in Eldoria.", title=f"Meeting {i}", keywords=[f"tag{i % 3}"])
    whole = svc.graph.entities()
    pages = [e for off in range(0, len(whole), 5) for e in svc.graph.entities(limit=5, offset=off)]
    assert pages == whole and len(whole) > 10
    assert [e.name for e in whole[:2]] == ["Eldoria", "Gandros"] and whole[0].count == 12  # most mentioned first
    svc.save("Only Zorblax here.", title="Zorblax")
    assert "Zorblax" in {e.name for e in svc.graph.entities(limit=100)}  # the counts kept follow a save
    svc.graph.merge(["Person1"], into="Person0")
    assert [e.name for e in svc.graph.entities(query="person1")][0] == "Person0"  # found by its alias too
    assert svc.graph.entities(limit=100, query="person0")[0].count == 2


def test_a_merge_or_rename_of_names_no_memory_mentions_is_not_found(svc):
    svc.save("Gandros cast a spell.", title="Spell")
    with pytest.raises(EntityNotFound, match="'Gandalf' or 'Gandolf'"):
        svc.graph.merge(["Gandalf"], into="Gandolf")
    assert svc.graph.entity("Gandolf") is None and svc.graph.corrections.entities == {}
    with pytest.raises(EntityNotFound, match="'Gandalf'"):
        svc.graph.rename("Gandalf", "Gandolf")
    svc.graph.merge(["Gandalf"], into="Gandros")  # an alias declared ahead for a known entity
    assert svc.graph.entity("gandalf").name == "Gandros"


def test_shared_entity_links_rank_the_rarer_shared_entity_first(svc):
    me = svc.save("Gandros and Mirri went to Eldoria.", title="Trip")
    rare = svc.save("Mirri slept.", title="Nap")
    commons = [svc.save(f"Eldoria day {i}.", title=f"Day {i}") for i in range(6)]
    shared = [lk for lk in svc.graph.links(me.id) if lk.kind == "entity"]
    assert shared[0].target == rare.id and shared[0].via == ("Mirri",)
    assert {lk.target for lk in shared} >= {c.id for c in commons}
    assert svc.graph.links(me.id, shared_limit=2)[-1].kind == "entity" and \
        len([lk for lk in svc.graph.links(me.id, shared_limit=2) if lk.kind == "entity"]) == 2


# -- corrections ------------------------------------------------------------------------------------------


def test_merge_rename_and_hide_are_kept_in_the_vault_and_survive_a_rebuild(vault_dir, config):
    svc = MemoryService.open(vault_dir, embedder="none", config=config)
    a = svc.save("Gandros cast a spell.", title="Spell", actors=["npc_wizard"])
    svc.save("The wizard npc_wizard is tired.", title="Tired", actors=["npc_wizard"])
    svc.graph.merge(["npc_wizard"], into="Gandros")
    text = (vault_dir / "entities.yaml").read_text(encoding="utf-8")
    assert "Gandros" in text and "npc_wizard" in text
    svc.graph.rename("Gandros", "Gandros the Grey")
    svc.graph.hide("Spell")
    index = svc.vault.index_path
    svc.close()

    index.unlink()  # the index is derived: gone, rebuilt at open
    svc = MemoryService.open(vault_dir, embedder="none", config=config)
    try:
        e = svc.graph.entity("gandros")
        assert e.name == "Gandros the Grey" and e.count == 2
        assert {"Gandros", "npc_wizard"} <= set(e.aliases)
        assert svc.graph.entity("npc_wizard").key == e.key
        assert all(x.name != "Spell" for x in svc.graph.entities())
        svc.rebuild_index()
        assert svc.graph.entity("Gandros the Grey").count == 2
        assert a.id in {m.id for m in svc.graph.memories_of("npc_wizard")}
    finally:
        svc.close()


def test_links_added_and_removed_by_hand(svc):
    a = svc.save("Gandros lives in Eldoria.", title="A")
    b = svc.save("Gandros likes tea.", title="B")
    c = svc.save("Unrelated note about taxes.", title="C")
    assert any(lk.target == b.id for lk in svc.graph.links(a.id))
    svc.graph.link(a.id, b.id, linked=False)
    assert not any(b.id in (lk.source, lk.target) for lk in svc.graph.links(a.id))
    svc.graph.link(a.id, c.id)
    assert any(lk.kind == "link" and lk.target == c.id for lk in svc.graph.links(a.id))
    assert c.id in {m.id for m in svc.graph.backlinks(a.id)}
    with pytest.raises(ValidationError):
        svc.graph.link(a.id, a.id)


def test_an_unreadable_corrections_file_is_reported_never_overwritten(svc, vault_dir):
    svc.save("Gandros lives in Eldoria.", title="A")
    path = vault_dir / "entities.yaml"
    path.write_text("entities: [unclosed\n", encoding="utf-8")
    assert any(p.path == "entities.yaml" and "not valid YAML" in p.reason for p in svc.problems())
    assert svc.graph.entity("Gandros").count == 1  # the graph still works, without corrections
    with pytest.raises(ValidationError, match="fix or remove it"):
        svc.graph.merge(["Eldoria"], into="Gandros")
    assert path.read_text(encoding="utf-8") == "entities: [unclosed\n"


_name = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20).filter(lambda s: fold(s))


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(_name, st.lists(_name, max_size=3), max_size=4), st.lists(_name, max_size=3),
       st.lists(st.tuples(_name, _name).filter(lambda p: p[0] != p[1]), max_size=3))
def test_corrections_round_trip_through_yaml(entities, hidden, links):
    c = corr.Corrections(entities, hidden, links, [])
    back, skipped = corr.parse(c.to_yaml())
    assert not skipped
    assert back.entities == {k: v for k, v in c.entities.items()} and back.not_entities == hidden
    assert back.added == c.added


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300))
def test_any_corrections_text_is_read_or_refused_cleanly(text):
    try:
        corr.parse(text)
    except corr.CorrectionsError:
        pass


# -- search -----------------------------------------------------------------------------------------------


def test_the_graph_leg_is_off_by_default_as_measured_on_locomo(svc):
    # LoCoMo dev: the leg lowered R@10 and MRR@10 of hybrid at every weight tried (notes/README), so it is
    # opt-in (MemoryConfig.graph_weight).
    assert svc.config.graph_weight == 0.0
    svc.save("Gandros lives in Eldoria.", title="Home")
    (hit,) = svc.search("Eldoria", mode="hybrid")
    assert hit.explanation.graph_rank is None and hit.explanation.graph_weight == 0.0


@pytest.fixture
def svc_graph(vault_dir, config):
    """The same vault as ``svc``, opened with the graph leg on (MemoryConfig.graph_weight)."""
    service = MemoryService.open(vault_dir, embedder="none", config=replace(config, graph_weight=0.5))
    yield service
    service.close()


def test_graph_leg_finds_a_linked_memory_keyword_search_misses(svc, svc_graph):
    home = svc.save("Gandros lives in Eldoria with his cat.", title="Home of the wizard")
    debt = svc.save("He still owes the party for the rescue. See [[Home of the wizard]].", title="Debt")
    for i in range(5):
        svc.save(f"Market day number {i} in the village.", title=f"Market {i}")
    keyword = [r.memory.id for r in svc.search("Eldoria", mode="keyword", limit=5)]
    assert debt.id not in keyword and home.id in keyword
    hybrid = svc_graph.search("Eldoria", mode="hybrid", limit=5)
    ids = [r.memory.id for r in hybrid]
    assert debt.id in ids
    why = next(r.explanation for r in hybrid if r.memory.id == debt.id)
    assert why.graph_rank is not None and why.graph_contribution > 0 and "wikilink" in why.graph_note
    assert debt.id not in [r.memory.id for r in svc.search("Eldoria", mode="hybrid", limit=5)]  # leg off


def test_query_expansion_through_aliases_and_closely_linked_entities(svc, svc_graph):
    a = svc.save("Gandros cast a spell on the bridge.", title="Spell")
    svc.graph.merge(["the old wizard"], into="Gandros")
    assert a.id not in [r.memory.id for r in svc.search("the old wizard", mode="keyword")]
    assert a.id in [r.memory.id for r in svc_graph.search("the old wizard", mode="hybrid")]
    # Mirri is mentioned with Gandros in every memory about her: asking about Gandros finds Mirri's own too.
    svc.save("Gandros and Mirri walked home.", title="Walk")
    svc.save("Gandros fed Mirri.", title="Feed")
    solo = svc.save("Mirri sleeps by the fire.", title="Nap")
    leg = svc.graph.search_leg("Gandros", Filters(), 5)
    assert "Mirri" in leg.expansion
    assert solo.id in [r.memory.id for r in svc_graph.search("Gandros", mode="hybrid", limit=10)]


def test_actor_scope_finds_memories_about_the_actor_through_the_graph(svc):
    tagged = svc.save("The party saved the wizard.", title="Rescue", actors=["npc_wizard"])
    named = svc.save("Gandros owes us a favor for the rescue.", title="Favor")
    svc.save("The rescue of the cat went well.", title="Cat")
    assert [r.memory.id for r in svc.search("rescue", actor="npc_wizard", mode="keyword")] == [tagged.id]
    svc.graph.merge(["Gandros"], into="npc_wizard")
    found = {r.memory.id for r in svc.search("rescue", actor="npc_wizard", mode="keyword")}
    assert found == {tagged.id, named.id}


# -- classification -----------------------------------------------------------------------------------------


def test_a_memory_is_labelled_with_confidence_before_it_is_stored(svc, vault_dir):
    item = svc.save("The party saved the old wizard from the collapsing tower; he owes us a favor.", title="Rescue")
    labels = item.extra["labels"]
    assert item.extra["labels_by"] == "auto"
    assert {"event", "location", "favor_owed"} <= set(labels) and all(0 < c <= 1 for c in labels.values())
    text = Path(item.file_path).read_text(encoding="utf-8")
    assert "labels:" in text and "favor_owed:" in text  # in the frontmatter, for any editor
    plain = svc.save("Remember to buy milk.", title="Milk")
    assert "labels" not in plain.extra
    assert [r.memory.id for r in svc.search("wizard", mode="keyword", label="favor_owed")] == [item.id]
    assert svc.search("milk", mode="keyword", label="favor_owed") == []
    assert svc.graph.labels.counts()["favor_owed"] == 1


def test_a_correction_is_kept_and_the_label_set_is_the_vaults(svc):
    item = svc.save("The party saved the old wizard from the collapsing tower.", title="Rescue")
    fixed = svc.graph.labels.set(item.id, {"npc_relationship": 0.9})
    assert fixed.extra["labels"] == {"npc_relationship": 0.9} and fixed.extra["labels_by"] == "user"
    svc.graph.labels.set_label_set({"quest": ["quest", "mission", "tower"], "event": ["saved", "collapsing"]})
    assert set(svc.graph.labels.label_set()) == {"quest", "event"}
    other = svc.save("A new quest to the tower.", title="Quest")
    assert "quest" in other.extra["labels"]
    svc.graph.labels.classify()  # a later run: the person's labels stay
    assert svc.get(item.id).extra["labels"] == {"npc_relationship": 0.9}
    with pytest.raises(ValidationError):
        svc.graph.labels.set_label_set({"Bad Name!": ["x"]})
    with pytest.raises(ValidationError):
        svc.graph.labels.set(item.id, {"event": 1.5})


def test_a_correction_and_the_label_set_survive_a_rebuild_and_another_process(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as first:
        item = first.save("The party saved the old wizard from the collapsing tower.", title="Rescue")
        first.graph.labels.set(item.id, {"npc_relationship": 0.9})
        first.graph.labels.set_label_set({"quest": ["quest", "tower"], "event": ["saved", "collapsing"]})
        first.rebuild_index(embed=False)
        first.graph.labels.classify()
        assert first.get(item.id).extra["labels"] == {"npc_relationship": 0.9}
        assert first.graph.labels.counts() == {"npc_relationship": 1}
    with MemoryService.open(vault_dir, embedder="none", config=config) as second:  # the set is the vault's
        assert set(second.graph.labels.label_set()) == {"quest", "event"}
        assert "quest" in second.save("A quest to the tower.", title="Quest").extra["labels"]
