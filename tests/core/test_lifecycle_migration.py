"""An index built by the first schema (migration 1 only) opens with today's service and is upgraded."""

from __future__ import annotations

import json
from datetime import timedelta

from memory_curator.core.index import db, migrations
from memory_curator.core.model import utcnow
from memory_curator.core.service import MemoryService
from memory_curator.core.text.tokens import index_text
from memory_curator.core.vault.codec import format_dt
from memory_curator.core.vault.store import Vault


def build_v1_index(vault_dir, access: dict[str, int]) -> None:
    """The index as the engine skeleton wrote it: schema 1, optional fields only in meta_json, typed
    fields (unknown then) under ``extra``."""
    vault = Vault(vault_dir)
    conn = db.connect(vault.index_path)
    migrations.current_version(conn)
    conn.execute("BEGIN")
    migrations.m001_initial(conn)
    conn.execute("INSERT INTO schema_migrations (version, name) VALUES (1, 'initial')")
    for st in vault.scan():
        item = vault.read(st.rel)
        meta = {k: v for k, v in (("superseded_by", item.superseded_by), ("scope", item.scope),
                                  ("expires_at", format_dt(item.expires_at))) if v}
        if item.typed:
            meta["extra"] = dict(item.typed)
        cur = conn.execute(
            "INSERT INTO memories (id, title, category, file_path, salience, created_at, updated_at, session_id, "
            "source, keywords, content, meta_json, file_mtime_ns, file_size) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (item.id, item.title, item.category, st.rel, item.salience, format_dt(item.created_at),
             format_dt(item.updated_at), item.session_id, item.source, json.dumps(list(item.keywords)), item.content,
             json.dumps(meta), st.mtime_ns, st.size))
        conn.execute("INSERT INTO memories_fts (rowid, title, content, keywords) VALUES (?, ?, ?, ?)",
                     (cur.lastrowid, index_text(item.title), index_text(item.content), ""))
        if item.id in access:
            conn.execute("INSERT INTO access_stats (memory_id, access_count, last_accessed) VALUES (?, ?, ?)",
                         (item.id, access[item.id], format_dt(utcnow())))
    conn.execute("COMMIT")
    conn.close()


def test_v1_index_is_migrated_on_open(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        old = svc.save("the launch is in May")
        new = svc.save("the launch moved to June")
        svc.supersede(old.id, new.id)
        gone = svc.save("launch party snacks", expires_at=utcnow() - timedelta(days=1))
        scoped = svc.save("launch checklist", scope="project")
        typed = svc.save("launch rehearsal", event_timestamp="2025-05-01T10:00:00Z", location="Hall B")
    for p in vault_dir.glob("index.db*"):
        p.unlink()
    build_v1_index(vault_dir, {scoped.id: 4})

    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        versions = [v for (v,) in svc.store.conn.execute("SELECT version FROM schema_migrations ORDER BY 1")]
        assert versions == [v for v, _, _ in migrations.MIGRATIONS]
        # Migration 8 has every file read again (to fill the entity graph), the typed one included.
        assert svc.last_sync.updated == 5 and svc.last_sync.problems == []
        assert svc.get_score(scoped.id).recent_accesses == 1  # the last access carried into the log
        ids = {r.memory.id for r in svc.search("launch", mode="keyword", limit=10)}
        assert ids == {new.id, scoped.id, typed.id}  # superseded and expired hidden via the new columns
        assert [r.memory.id for r in svc.search("launch", mode="keyword", scope="project")] == [scoped.id]
        assert [it.id for it in svc.list_memories(memory_type="episodic")] == [typed.id]
        assert svc.get(typed.id).typed == {"event_timestamp": "2025-05-01T10:00:00Z", "location": "Hall B"}
        assert svc.get(scoped.id, record_access=False).access_count == 4 + 2  # and two search hits since
        unscored = svc.store.conn.execute("SELECT COUNT(*) FROM memories m LEFT JOIN access_stats a "
                                          "ON a.memory_id = m.id WHERE a.importance IS NULL").fetchone()[0]
        assert unscored == 0  # every memory got a real importance at open, none keeps the 0.5 placeholder
        assert svc.clear_expired() == 1 and svc.get(gone.id) is None
