"""Export to a markdown tree, JSON or JSONL; importing the export into an empty vault gives the same memories."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from memory_curator.core.errors import ValidationError
from memory_curator.core.service import MemoryService

# Everything the file holds (index-only statistics such as access_count are not part of a memory's file).
FIELDS = ("id", "title", "content", "category", "created_at", "updated_at", "session_id", "source", "keywords",
          "salience", "summary", "expires_at", "scope", "actors", "pinned", "salience_floor", "superseded_by",
          "supersedes", "consolidated_from", "provenance", "importance_override", "typed", "extra")


def snapshot(svc):
    out = {}
    for item in svc.list_memories(limit=1000):
        disk = svc.vault.read(svc.store.file_info(item.id).file_path)
        out[item.id] = {k: getattr(disk, k) for k in FIELDS}
    return out


@pytest.fixture
def filled(svc):
    later = datetime(2031, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    svc.save("We chose SQLite with sqlite-vec.", category="decisions", title="Vector store",
             keywords=["sqlite", "vectors"], session_id="s1", salience=0.9, source="ai")
    svc.save("要約があれば要約を埋め込み対象にする。", category="context", title="要約の扱い", summary="summary first",
             scope="project", actors=("alice", "bob"), expires_at=later,
             provenance={"source": "/docs/spec.pdf", "pages": "3-4", "importer": "pdf"})
    pinned = svc.save("Muistipalvelu tallentaa muistit markdown-tiedostoihin.", category="summaries", pinned=True,
                      salience_floor=0.5, keywords=["muisti"], emotional_state="relief", valence=0.6, arousal=0.3)
    svc.set_score(pinned.id, 0.77)
    svc.save_batch([{"content": "Old note", "created_at": "2024-05-06T07:08:09Z", "updated_at": "2024-06-01T00:00:00Z",
                     "extra": {"custom_key": {"kept": [1, 2]}}}])
    # A file written by another program (no frontmatter) is exported with a full frontmatter.
    (svc.vault.root / "context").mkdir(exist_ok=True)
    (svc.vault.root / "context" / "hand-written.md").write_text("# By hand\n\nNo frontmatter here.\n", encoding="utf-8")
    svc.sync()
    assert svc.count() == 5
    return svc


@pytest.mark.parametrize("fmt", ["markdown", "json", "jsonl"])
def test_export_then_import_into_an_empty_vault_gives_the_same_memories(filled, tmp_path, config, fmt):
    dest = tmp_path / ("out" if fmt == "markdown" else f"out.{fmt}")
    report = filled.export_memories(format=fmt, dest=dest)
    assert report.count == 5 and not report.problems
    with MemoryService.open(tmp_path / "empty", embedder="none", config=config) as fresh:
        imported = fresh.import_paths([dest])
        assert not imported.failed and len(imported.memory_ids) == 5
        assert snapshot(fresh) == snapshot(filled)
        again = fresh.import_paths([dest])  # importing the same export twice adds nothing
        assert again.memory_ids == [] and fresh.count() == 5


def test_markdown_export_has_the_vault_layout(filled, tmp_path):
    filled.export_memories(format="markdown", dest=tmp_path / "tree")
    exported = sorted(p.relative_to(tmp_path / "tree").as_posix() for p in (tmp_path / "tree").rglob("*.md"))
    in_vault = sorted(filled.store.file_info(i.id).file_path for i in filled.list_memories(limit=100))
    assert exported == in_vault
    assert (tmp_path / "tree" / "context" / "hand-written.md").read_text(encoding="utf-8").startswith("---\nid: ")


def test_export_one_category(filled, tmp_path):
    report = filled.export_memories(category="decisions", format="json", dest=tmp_path / "d.json")
    data = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    assert report.count == 1 and data["format"] == "memory-curator-export" and data["category"] == "decisions"
    assert [m["title"] for m in data["memories"]] == ["Vector store"]


def test_export_never_overwrites(filled, tmp_path):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "mine.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(ValidationError, match="empty folder"):
        filled.export_memories(format="markdown", dest=tmp_path / "busy")
    (tmp_path / "x.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ValidationError, match="already exists"):
        filled.export_memories(format="json", dest=tmp_path / "x.json")
    with pytest.raises(ValidationError, match="format"):
        filled.export_memories(format="xml", dest=tmp_path / "y")
    assert (tmp_path / "busy" / "mine.txt").read_text(encoding="utf-8") == "keep me"


def test_json_export_into_a_folder_picks_a_file_name(filled, tmp_path):
    report = filled.export_memories(format="json", dest=tmp_path)
    assert report.path.endswith(".json") and json.loads(open(report.path, encoding="utf-8").read())["memories"]


def test_an_unreadable_file_is_reported_not_exported(filled, tmp_path):
    rel = filled.store.file_info(filled.list_memories(category="decisions")[0].id).file_path
    (filled.vault.root / rel).write_bytes(b"\x00\x01binary now")
    report = filled.export_memories(format="jsonl", dest=tmp_path / "out.jsonl")
    assert report.count == 4 and report.problems[0]["path"] == rel
    assert len((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()) == 4

