"""mem0's get_all JSON, and Obsidian / basic-memory vaults copied or adopted in place with their own keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_curator.core.errors import ValidationError
from memory_curator.core.ingest import mem0, notes
from memory_curator.core.service import MemoryService
from source_fixtures import basic_memory_project, mem0_record, obsidian_vault


def by_title(svc):
    return {m.title: m for m in svc.list_memories(limit=1000)}


@pytest.mark.parametrize("shape", ["results", "list"])
def test_mem0_records_become_memories(svc, tmp_path, shape):
    records = [mem0_record("m-1", "Is a vegetarian and avoids dairy", categories=["food", "health"]),
               mem0_record("m-2", "Works on the billing service", run="sprint-7", agent="helper")]
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps({"results": records, "relations": []} if shape == "results" else records))
    source = svc.sources.read(path)
    assert source.format == "mem0" and [i.title for i in source.items] == [r["memory"] for r in records]
    svc.sources.import_items(source)
    mem = by_title(svc)
    veg = mem["Is a vegetarian and avoids dairy"]
    assert veg.keywords == ("food", "health") and veg.actors == ("alice",)
    assert veg.created_at.isoformat() == "2024-07-20T09:04:20+00:00"  # in UTC, as the vault keeps times
    assert veg.provenance["mem0"] == {"id": "m-1", "hash": "h-m-1", "user_id": "alice"}
    billing = mem["Works on the billing service"]
    assert billing.session_id == "mem0:sprint-7" and billing.actors == ("alice", "helper")
    assert [i.status for i in svc.sources.import_items(path).items] == ["skipped", "skipped"]


def test_a_mem0_memory_that_changed_there_is_updated_here(svc, tmp_path):
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps({"results": [mem0_record("m-1", "Lives in Oslo")]}))
    [mid] = svc.sources.import_items(path).memory_ids
    path.write_text(json.dumps({"results": [mem0_record("m-1", "Lives in Bergen")]}))
    assert [i.status for i in svc.sources.import_items(path).items] == ["updated"]
    assert svc.get(mid).content == "Lives in Bergen" and svc.count() == 1


@settings(max_examples=60)
@given(st.lists(st.dictionaries(st.sampled_from(["id", "memory", "categories", "created_at", "user_id", "run_id",
                                                 "metadata"]),
                                st.none() | st.integers() | st.text(max_size=12) | st.lists(st.text(max_size=5)),
                                max_size=7), max_size=6))
def test_any_mem0_answer_is_read_or_refused_never_crashes(records):
    found = mem0.records_of({"results": records})
    if found is None:
        return
    source = mem0.read_mem0(found, "x")
    for item in source.items:
        [memory] = source.to_memories(item, mem0.ImportOptions())
        assert memory["content"].strip()


def test_an_obsidian_vault_is_copied_with_its_own_keys_tags_and_links(svc, tmp_path):
    vault = obsidian_vault(tmp_path / "Obsidian")
    preview = svc.sources.preview(vault).as_dict()
    assert preview["format"] == "obsidian" and preview["not_read_in_place"] == ["Home.md"]
    assert [i["title"] for i in preview["items"]] == ["Home", "2024-03-01", "Acme launch"]
    svc.sources.import_items(vault)
    mem = by_title(svc)
    home, launch, daily = mem["Home"], mem["Acme launch"], mem["2024-03-01"]
    assert home.keywords == ("index", "start", "pinned") and home.category == "notes"
    assert home.extra == {"aliases": ["Start page"]}
    assert home.provenance["links"] == ["Acme launch", "2024-03-01"]
    assert "[[Acme launch]]" in home.content  # links stay as written
    assert launch.category == "projects" and launch.extra["status"] == "active"
    assert launch.provenance["frontmatter"] == {"id": "obsidian-own-id"}  # a key this app uses: kept aside
    assert "not-a-tag" not in launch.keywords and launch.content.startswith("# Launch plan")
    assert daily.category == "daily-notes" and daily.keywords == ("meeting",)
    # The note's file as written in this vault keeps the note's own keys at the top level.
    assert "\nstatus: active\n" in Path(launch.file_path).read_text(encoding="utf-8")


def test_a_basic_memory_project_keeps_permalinks_and_relations(svc, tmp_path):
    project = basic_memory_project(tmp_path / "basic-memory")
    source = svc.sources.read(project)
    assert source.format == "basic-memory"
    assert [i.key for i in source.items] == ["notes/coffee-brewing-methods", "notes/coffee-bean-origins"]
    svc.sources.import_items(source)
    brewing = by_title(svc)["Coffee Brewing Methods"]
    assert brewing.keywords == ("coffee", "brewing") and brewing.extra == {
        "type": "note", "permalink": "notes/coffee-brewing-methods"}
    assert brewing.provenance["links"] == ["Coffee Bean Origins", "Proper Grinding Technique"]
    assert "- [method] Pour over gives a clean cup #brewing" in brewing.content
    # A note moved to another folder keeps its permalink: importing again finds it.
    (project / "archive").mkdir()
    (project / "notes" / "coffee-brewing.md").rename(project / "archive" / "coffee-brewing.md")
    assert [i.status for i in svc.sources.import_items(project).items] == ["skipped", "skipped"]


def test_a_notes_vault_adopted_in_place_is_read_where_it_is_and_left_unchanged(tmp_path, config):
    vault = obsidian_vault(tmp_path / "Obsidian")
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    with MemoryService.open(vault, embedder="none", config=config) as svc:
        got = by_title(svc)
        # Home.md, at the top, is not read in place; titles are the vault's own (first heading or line).
        assert set(got) == {"Met the team about [[Acme launch]]. #meeting", "Launch plan"}
        assert got["Launch plan"].extra["status"] == "active"
        assert svc.search("April", mode="keyword")[0].memory.title == "Launch plan"
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before


def test_folders_of_no_known_format_are_refused(svc, tmp_path):
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "a").mkdir()
    (tmp_path / "plain" / "a" / "note.md").write_text("# Just a note\n")
    with pytest.raises(ValidationError, match="File › Import"):
        svc.sources.read(tmp_path / "plain")
    assert svc.sources.read(tmp_path / "plain", format="obsidian").items[0].title == "note"
    with pytest.raises(ValidationError):
        svc.sources.read(tmp_path / "plain", format="markdown")


@pytest.mark.parametrize(("rel", "category"), [("Top.md", "notes"), ("Daily Notes/x.md", "daily-notes"),
                                               ("CON/x.md", "notes"), ("Ääkköset/x.md", "kk-set"),
                                               ("___/x.md", "notes")])
def test_folder_names_become_valid_categories(rel, category):
    assert notes.folder_category(rel) == category
