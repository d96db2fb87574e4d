"""The access log behind importance: recording recalls, pruning old ones, keeping importance current."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from memory_curator.core.config import MemoryConfig
from memory_curator.core.index import lifecycle as rows
from memory_curator.core.index.store import IndexStore, parse_dt
from memory_curator.core.lifecycle.importance import ImportanceScore, score
from memory_curator.core.model import utcnow
from memory_curator.core.vault.codec import format_dt

ACCESS_KINDS = ("get", "search", "batch_get")
PRUNED_KEY = "access_log_pruned_on"
SCORE_PART = 10_000  # memories scored and stored at a time by score_unscored


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
    return rows.prune_access_log(store, window_start(config, now or utcnow()))


def scores(store: IndexStore, config: MemoryConfig, memory_ids: Iterable[str] | None = None,
           now: datetime | None = None) -> list[ImportanceScore]:
    """Importance of the given memories (all when None), computed from the log (the recalls queued written first)."""
    store.settle()
    now = now or utcnow()
    return [
        score(mid, recent_accesses=n, last_accessed=parse_dt(last), created_at=parse_dt(created),  # type: ignore[arg-type]
              now=now, override=override)
        for mid, created, override, last, n in rows.importance_inputs(store, window_start(config, now), memory_ids)
    ]


def refresh(store: IndexStore, config: MemoryConfig, memory_ids: Iterable[str] | None = None,
            now: datetime | None = None) -> list[ImportanceScore]:
    """Recompute and store the computed importance (the override, when set, wins at read time)."""
    result = scores(store, config, memory_ids, now)
    rows.set_importance(store, [(s.memory_id, s.computed) for s in result])
    return result


def refresh_all(store: IndexStore, config: MemoryConfig) -> int:
    """Recompute every memory's importance and drop log rows older than the window, in one transaction."""
    with store.transaction():
        prune(store, config)
        return len(refresh(store, config))


def score_of(store: IndexStore, config: MemoryConfig, memory_id: str) -> ImportanceScore:
    """Importance now, with its parts, stored as it is computed."""
    with store.transaction():
        return refresh(store, config, [memory_id])[0]


def score_unscored(store: IndexStore, config: MemoryConfig, part: int = SCORE_PART) -> int:
    """Give a first importance to memories that have none (added by another program, or indexed before
    importance existed), so that sorting by importance never compares a placeholder with a real score.
    ``part`` memories at a time, in one transaction and at one ``now``: the first sync after a rebuild
    scores every memory, and their inputs and scores held at once were ~0.5 GB of the app's peak at 1,000,000."""
    ids = rows.unscored_ids(store)
    if ids:
        now = utcnow()
        with store.transaction():
            for start in range(0, len(ids), part):
                refresh(store, config, ids[start : start + part], now)
    return len(ids)
