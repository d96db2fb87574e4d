"""English stemming in the full-text index (migration 4): inflected forms meet; older indexes are upgraded."""

from __future__ import annotations

from memory_curator.core.index import db
from memory_curator.core.service import MemoryService
from old_index import write_old_index


def test_inflected_english_forms_meet(svc):
    item = svc.save("We decided to keep every database on local disks.", title="Storage")
    other = svc.save("Lunch is at noon.", title="Lunch")
    for query in ("deciding", "databases", "disk"):
        hits = [r.memory.id for r in svc.search(query, mode="keyword")]
        assert hits == [item.id], query
    assert svc.search("lunches", mode="keyword")[0].memory.id == other.id


def test_an_index_without_stemming_is_refilled_on_open(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        item = svc.save("Two studies decided it.", keywords=["planning"])
        rel = svc.store.file_info(item.id).file_path
    # The index as schema 3 left it: the FTS table of migration 1 (no stemming), filled the old way.
    write_old_index(vault_dir, 3, item.id, rel, "Studies", "Two studies decided it.", ["planning"])
    conn = db.connect(vault_dir / "index.db")
    assert conn.execute("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'study'").fetchone()[0] == 0
    conn.close()

    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False) as svc:
        assert 4 in {v for (v,) in svc.store.conn.execute("SELECT version FROM schema_migrations")}
        assert [r.memory.id for r in svc.search("study", mode="keyword")] == [item.id]
        assert [m.id for m in svc.search_by_keywords(["planning"])] == [item.id]


def test_selective_filters_still_find_every_match(svc):
    """Keyword ranking filters the top FTS rows; when a filter drops most of them the window widens."""
    svc.save_batch([{"content": f"shared topic note {i}", "session_id": "busy"} for i in range(300)])
    wanted = svc.save("shared topic, the quiet one", session_id="quiet")
    hits = svc.search("shared topic", mode="keyword", session_id="quiet", limit=5)
    assert [r.memory.id for r in hits] == [wanted.id]
