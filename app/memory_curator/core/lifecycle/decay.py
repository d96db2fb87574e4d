"""Salience decay by category, pinning, and moving faded or expired memories to the trash.

Decay (seed 000): each run multiplies the salience of memories not recalled or edited within
``days_inactive`` by their category's rate (``config.category_decay_rates``: decisions 1.0 never fade,
summaries 0.99, context 0.90 — working memory). Categories without a rate do not decay. A pinned memory
never falls below its ``salience_floor``. Salience lives in the file, so decay rewrites files (see rewrite).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from memory_curator.core.config import MemoryConfig
from memory_curator.core.errors import ValidationError
from memory_curator.core.index import lifecycle as rows
from memory_curator.core.index.store import IndexStore
from memory_curator.core.lifecycle.rewrite import rewrite
from memory_curator.core.model import MemoryItem, utcnow
from memory_curator.core.vault.codec import check_salience, format_dt
from memory_curator.core.vault.store import Vault


def decayed(item: MemoryItem, rate: float) -> MemoryItem | None:
    """The memory after one decay step, or None when it does not change."""
    new = round(item.salience * rate, 4)
    if item.pinned:
        floor = item.salience if item.salience_floor is None else item.salience_floor
        new = max(new, min(floor, item.salience))  # never below the floor, never raised by decay
    if new >= item.salience:
        return None
    return replace(item, salience=new)


def inactive_ids(store: IndexStore, config: MemoryConfig, days_inactive: int, now: datetime) -> dict[str, float]:
    """Memory id -> decay rate, for memories in decaying categories untouched within the window."""
    rates = {cat: float(r) for cat, r in config.category_decay_rates.items() if float(r) < 1.0}
    if not rates:
        return {}
    cutoff = format_dt(now - timedelta(days=days_inactive))
    return {mid: rates[cat] for mid, cat in rows.inactive(store, list(rates), cutoff)}


def decay_salience(store: IndexStore, vault: Vault, config: MemoryConfig, days_inactive: int = 7,
                   now: datetime | None = None) -> int:
    """One decay run. Returns how many memories lost salience. Decay does not touch ``updated_at``:
    it is not an edit, and it must not reset the inactivity window."""
    if days_inactive < 0:
        raise ValidationError("days_inactive must be 0 or more.", field="days_inactive")
    for cat, rate in config.category_decay_rates.items():
        if not 0.0 <= float(rate) <= 1.0:
            raise ValidationError(f"The decay rate of {cat} must be between 0 and 1.", field="category_decay_rates")
    rates = inactive_ids(store, config, days_inactive, now or utcnow())
    return len(rewrite(store, vault, rates, lambda it: decayed(it, rates[it.id]), skip_unreadable=True))


def pin(store: IndexStore, vault: Vault, memory_id: str, floor: float | None = None) -> MemoryItem:
    """Pin a memory: it never decays below ``floor`` (default: its salience now) and cleanup skips it."""
    if floor is not None:
        floor = check_salience(floor, "floor")
    return _one(store, vault, memory_id, lambda it: replace(
        it, pinned=True, salience_floor=it.salience if floor is None else floor))


def unpin(store: IndexStore, vault: Vault, memory_id: str) -> MemoryItem:
    return _one(store, vault, memory_id, lambda it: replace(it, pinned=False, salience_floor=None))


def _one(store: IndexStore, vault: Vault, memory_id: str, change) -> MemoryItem:
    if store.file_info(memory_id) is None:
        raise store.missing(memory_id)
    rewrite(store, vault, [memory_id], change)
    return store.get(memory_id)  # type: ignore[return-value]


def faded_ids(store: IndexStore, min_salience: float) -> list[str]:
    """Unpinned memories below ``min_salience``: what cleanup moves to the trash."""
    return rows.faded_ids(store, check_salience(min_salience, "min_salience"))


def expired_ids(store: IndexStore, now: datetime | None = None) -> list[str]:
    return rows.expired_ids(store, format_dt(now or utcnow()))


def move_to_trash(store: IndexStore, vault: Vault, memory_ids: list[str]) -> int:
    """Files into ``.trash/`` (restorable), rows out of the index, in one transaction."""
    n = 0
    with store.transaction():
        for memory_id in memory_ids:
            info = store.file_info(memory_id)
            if info is None:
                continue
            if vault.stat(info.file_path) is not None:
                vault.move_to_trash(info.file_path)
            store.delete(memory_id)
            n += 1
    return n
