"""The index side of the lifecycle: the access log behind importance, and which memories decay, fade or expire."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memory_curator.core.index.store import IndexStore

PART = 500


def prune_access_log(store: IndexStore, before: str) -> int:
    """Drop log rows older than ``before`` (a stored timestamp). Returns how many."""
    return store.conn.execute("DELETE FROM access_log WHERE accessed_at < ?", (before,)).rowcount


def importance_inputs(store: IndexStore, since: str, memory_ids: Iterable[str] | None = None) -> list[tuple]:
    """(id, created_at, importance_override, last_accessed, recalls since ``since``) of the given memories
    (all when None). The recalls queued and not yet written are not in them (core/lifecycle/recalls.py)."""
    sql = (
        "SELECT m.id, m.created_at, json_extract(m.meta_json, '$.importance_override'), a.last_accessed, "
        "(SELECT COUNT(*) FROM access_log l WHERE l.memory_id = m.id AND l.accessed_at >= ?) "
        "FROM memories m LEFT JOIN access_stats a ON a.memory_id = m.id"
    )
    if memory_ids is None:
        return list(store.conn.execute(sql, (since,)))
    rows: list = []
    ids = list(dict.fromkeys(memory_ids))
    for i in range(0, len(ids), PART):
        part = ids[i : i + PART]
        rows.extend(store.conn.execute(f"{sql} WHERE m.id IN ({','.join('?' * len(part))})", [since, *part]))
    return rows


def set_importance(store: IndexStore, values: Sequence[tuple[str, float]]) -> None:
    """Store computed importance, (memory id, value) pairs."""
    store.conn.executemany(
        "INSERT INTO access_stats (memory_id, importance) VALUES (?, ?) "
        "ON CONFLICT(memory_id) DO UPDATE SET importance = excluded.importance",
        values,
    )


def unscored_ids(store: IndexStore) -> list[str]:
    store.settle()
    return [r[0] for r in store.conn.execute(
        "SELECT m.id FROM memories m LEFT JOIN access_stats a ON a.memory_id = m.id WHERE a.importance IS NULL")]


def inactive(store: IndexStore, categories: Sequence[str], cutoff: str) -> list[tuple[str, str]]:
    """(id, category) of memories in ``categories`` with salience left, neither updated nor recalled after
    ``cutoff``."""
    marks = ",".join("?" * len(categories))
    store.settle()
    return list(store.conn.execute(
        f"SELECT m.id, m.category FROM memories m LEFT JOIN access_stats a ON a.memory_id = m.id "
        f"WHERE m.category IN ({marks}) AND m.salience > 0 "
        f"AND MAX(m.updated_at, COALESCE(a.last_accessed, '')) <= ?",
        [*categories, cutoff],
    ))


def faded_ids(store: IndexStore, min_salience: float) -> list[str]:
    rows = store.conn.execute("SELECT id FROM memories WHERE salience < ? AND pinned = 0 ORDER BY pk",
                              (min_salience,))
    return [r[0] for r in rows]


def raw_expired_ids(store: IndexStore, now: str) -> list[str]:
    """Memories whose raw text's time to live (seed 003) has passed and whose text is not yet the summary."""
    rows = store.conn.execute(
        "SELECT id FROM memories WHERE json_extract(meta_json, '$.raw_expires_at') <= ? "
        "AND json_extract(meta_json, '$.summary') IS NOT NULL AND content <> json_extract(meta_json, '$.summary') "
        "ORDER BY pk", (now,))
    return [r[0] for r in rows]


def expired_ids(store: IndexStore, now: str) -> list[str]:
    rows = store.conn.execute("SELECT id FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY pk",
                              (now,))
    return [r[0] for r in rows]
