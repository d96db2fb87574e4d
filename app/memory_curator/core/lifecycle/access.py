"""The access log behind importance: recording recalls, pruning old ones, keeping importance current."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from memory_curator.core.config import MemoryConfig
from memory_curator.core.index.store import IndexStore, parse_dt
from memory_curator.core.lifecycle.importance import ImportanceScore, score
from memory_curator.core.model import utcnow
from memory_curator.core.vault.codec import format_dt

ACCESS_KINDS = ("get", "search", "batch_get")
PRUNED_KEY = "access_log_pruned_on"


def record(store: IndexStore, memory_ids: Sequence[str], kind: str, config: MemoryConfig,
           now: datetime | None = None) -> None:
    """Log one recall of each memory and refresh their importance, in the caller's transaction."""
    if not memory_ids:
        return
    now = now or utcnow()
    store.record_access(memory_ids, now, kind)
    refresh(store, config, memory_ids, now)
    today = now.date().isoformat()
    if store.get_meta(PRUNED_KEY) != today:  # the log stays bounded without a maintenance job
        prune(store, config, now)
        store.set_meta(PRUNED_KEY, today)


def window_start(config: MemoryConfig, now: datetime) -> str:
    return format_dt(now - timedelta(days=config.access_log_days))  # type: ignore[return-value]


def prune(store: IndexStore, config: MemoryConfig, now: datetime | None = None) -> int:
    """Drop log rows older than the retention window. Returns how many."""
    cur = store.conn.execute("DELETE FROM access_log WHERE accessed_at < ?", (window_start(config, now or utcnow()),))
    return cur.rowcount


def scores(store: IndexStore, config: MemoryConfig, memory_ids: Iterable[str] | None = None,
           now: datetime | None = None) -> list[ImportanceScore]:
    """Importance of the given memories (all when None), computed from the log."""
    now = now or utcnow()
    since = window_start(config, now)
    sql = (
        "SELECT m.id, m.created_at, json_extract(m.meta_json, '$.importance_override'), a.last_accessed, "
        "(SELECT COUNT(*) FROM access_log l WHERE l.memory_id = m.id AND l.accessed_at >= ?) "
        "FROM memories m LEFT JOIN access_stats a ON a.memory_id = m.id"
    )
    rows: list = []
    if memory_ids is None:
        rows = list(store.conn.execute(sql, (since,)))
    else:
        ids = list(dict.fromkeys(memory_ids))
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            rows.extend(store.conn.execute(f"{sql} WHERE m.id IN ({','.join('?' * len(part))})", [since, *part]))
    return [
        score(mid, recent_accesses=n, last_accessed=parse_dt(last), created_at=parse_dt(created),  # type: ignore[arg-type]
              now=now, override=override)
        for mid, created, override, last, n in rows
    ]


def refresh(store: IndexStore, config: MemoryConfig, memory_ids: Iterable[str] | None = None,
            now: datetime | None = None) -> list[ImportanceScore]:
    """Recompute and store the computed importance (the override, when set, wins at read time)."""
    result = scores(store, config, memory_ids, now)
    store.conn.executemany(
        "INSERT INTO access_stats (memory_id, importance) VALUES (?, ?) "
        "ON CONFLICT(memory_id) DO UPDATE SET importance = excluded.importance",
        [(s.memory_id, s.computed) for s in result],
    )
    return result


def score_unscored(store: IndexStore, config: MemoryConfig) -> int:
    """Give a first importance to memories that have none (added by another program, or indexed before
    importance existed), so that sorting by importance never compares a placeholder with a real score."""
    ids = [r[0] for r in store.conn.execute(
        "SELECT m.id FROM memories m LEFT JOIN access_stats a ON a.memory_id = m.id WHERE a.importance IS NULL")]
    if ids:
        with store.transaction():
            refresh(store, config, ids)
    return len(ids)
