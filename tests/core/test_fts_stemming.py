"""English stemming in the full-text index (migration 4): inflected forms meet; older indexes are upgraded."""

from __future__ import annotations

from memory_curator.core.index import db, migrations
from memory_curator.core.service import MemoryService


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
    path = vault_dir / "index.db"
    conn = db.connect(path)
    # Back to schema 3: the FTS table as migration 1 made it, filled the old way.
    conn.execute("DELETE FROM schema_migrations WHERE version >= 4")
    conn.execute("DROP TABLE memories_fts")
    conn.execute("CREATE VIRTUAL TABLE memories_fts USING fts5(title, content, keywords, content='', "
                 "contentless_delete=1, tokenize='unicode61 remove_diacritics 2')")
    conn.execute("INSERT INTO memories_fts (rowid, title, content, keywords) SELECT pk, title, content, 'planning' "
                 "FROM memories")
    assert conn.execute("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'study'").fetchone()[0] == 0
    conn.close()

    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False) as svc:
        assert max(v for v, _, _ in migrations.MIGRATIONS) in {
            v for (v,) in svc.store.conn.execute("SELECT version FROM schema_migrations")}
        assert [r.memory.id for r in svc.search("study", mode="keyword")] == [item.id]
        assert [m.id for m in svc.search_by_keywords(["planning"])] == [item.id]


def test_selective_filters_still_find_every_match(svc):
    """Keyword ranking filters the top FTS rows; when a filter drops most of them the window widens."""
    svc.save_batch([{"content": f"shared topic note {i}", "session_id": "busy"} for i in range(300)])
    wanted = svc.save("shared topic, the quiet one", session_id="quiet")
    hits = svc.search("shared topic", mode="keyword", session_id="quiet", limit=5)
    assert [r.memory.id for r in hits] == [wanted.id]
