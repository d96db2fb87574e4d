"""MemoryStats: counts and sizes of a vault, its index and its trash."""

from __future__ import annotations

from memory_curator.core.index import listing
from memory_curator.core.index.store import IndexStore, parse_dt
from memory_curator.core.model import MemoryStats
from memory_curator.core.vault.store import Vault


class Counts:
    """Counts of ``MemoryStats`` the window asks for after every change, each without reading every memory:
    ``stats`` sums every memory's content and lifecycle fields (3.7 s at 1,000,000, on the lane searches use)."""

    def __init__(self, store: IndexStore, vault: Vault):
        self._store = store
        self._vault = vault

    def trash(self) -> int:
        """``stats().trash_count``."""
        return trash_count(self._vault)

    def unembedded(self) -> int:
        """``stats().unembedded_count``."""
        return self._store.unembedded_count()


def trash_count(vault: Vault) -> int:
    return sum(1 for _ in vault.scan_trash())


def stats(store: IndexStore, vault: Vault) -> MemoryStats:
    store.settle()  # the index's size with the recalls queued before written
    total, avg, oldest, newest, chars, by_cat = listing.totals(store)
    unembedded = store.unembedded_count()
    size = sum(p.stat().st_size for p in vault.root.glob("index.db*") if p.is_file())
    return MemoryStats(
        total_count=total,
        by_category=by_cat,
        total_tokens=(chars or 0) // 4,
        avg_salience=round(avg or 0.0, 4),
        oldest_memory=parse_dt(oldest),
        newest_memory=parse_dt(newest),
        index_size_bytes=size,
        embedded_count=total - unembedded,
        unembedded_count=unembedded,
        embedding_model=store.vectors.model,
        trash_count=trash_count(vault),
        **listing.lifecycle_counts(store),
    )
