"""An index as an older schema left it, for tests of the migrations that upgrade it on open."""

from __future__ import annotations

import json
from pathlib import Path

from memory_curator.core.index import db, migrations, unreadable
from memory_curator.core.service import MemoryService


def write_old_index(vault_dir: Path, version: int, memory_id: str, rel: str, title: str, content: str,
                    keywords: list[str]) -> None:
    """Replace the vault's index by one at schema ``version`` holding one memory, filled as that schema did
    (its FTS row written with the FTS table of that schema)."""
    for p in vault_dir.glob("index.db*"):
        p.unlink()
    conn = db.connect(vault_dir / "index.db")
    migrations.current_version(conn)
    conn.execute("BEGIN")
    for number, name, fn in migrations.MIGRATIONS[:version]:
        fn(conn)
        conn.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", (number, name))
    pk = conn.execute(
        "INSERT INTO memories (id, title, category, file_path, salience, created_at, updated_at, source, keywords, "
        "content) VALUES (?, ?, 'context', ?, 0.8, '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z', 'user', ?, ?)",
        (memory_id, title, rel, json.dumps(keywords), content)).lastrowid
    conn.execute("INSERT INTO memories_fts (rowid, title, content, keywords) VALUES (?, ?, ?, ?)",
                 (pk, title, content, " ".join(keywords)))
    conn.execute("COMMIT")
    conn.close()


def before_migration_19(conn) -> None:
    """Take migration 19 back (its table and triggers), so that a test can take back the one before and run
    both again."""
    for name in ("insert", "update"):
        conn.execute(f"DROP TRIGGER {unreadable.TRIGGERS}{name}")
    conn.execute(f"DROP TABLE {unreadable.TABLE}")
    conn.execute("DELETE FROM schema_migrations WHERE version = 19")


def old_vault(vault_dir: Path, config, version: int = 15) -> str:
    """A vault of one memory ("Launch") whose index is at schema ``version``; returns the memory's id."""
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        item = svc.save("The launch moved to June.", title="Launch")
        rel = svc.store.file_info(item.id).file_path
    write_old_index(vault_dir, version, item.id, rel, "Launch", "The launch moved to June.", ["launch"])
    return item.id


def schema(vault_dir: Path) -> int:
    conn = db.connect(vault_dir / "index.db")
    try:
        return migrations.current_version(conn)
    finally:
        conn.close()
