"""Vault health: what the index could not read, sync conflicts, what is not embedded, and index rows whose file is gone."""

from __future__ import annotations

from dataclasses import dataclass, field

from memory_curator.core import heap
from memory_curator.core.conflicts.unit import is_conflict
from memory_curator.core.index import listing
from memory_curator.core.index.store import IndexStore
from memory_curator.core.model import VaultProblem
from memory_curator.core.vault.store import Vault


@dataclass(frozen=True)
class VaultHealth:
    unreadable: list[VaultProblem] = field(default_factory=list)  # files skipped, with the reason
    conflicts: list[VaultProblem] = field(default_factory=list)  # files in a sync conflict (svc.conflicts)
    unembedded: list[tuple[str, str]] = field(default_factory=list)  # (id, title), at most ``limit``
    unembedded_count: int = 0
    missing_files: list[tuple[str, str]] = field(default_factory=list)  # (id, path): rows without a file
    keyword_only: bool = False  # no embedder chosen: memories without embeddings are expected, not a fault

    @property
    def healthy(self) -> bool:
        return not (self.unreadable or self.conflicts or (self.unembedded_count and not self.keyword_only) or self.missing_files)


def check(store: IndexStore, vault: Vault, limit: int = 500, *, keyword_only: bool = False) -> VaultHealth:
    """A read-only look: nothing is repaired here (sync, reindex_missing and rebuild_index do that)."""
    missing = sorted(_missing_files(store, vault))
    if store.count() >= heap.BULK_ROWS:  # the folders' names listed were dropped: ~100 MB at 1,000,000
        store.drop_cache()
        heap.give_back()
    problems = store.problems() + vault.name_problems()
    count = store.unembedded_count()
    return VaultHealth(
        unreadable=[p for p in problems if not is_conflict(p)],
        conflicts=[p for p in problems if is_conflict(p)],
        unembedded=listing.unembedded(store, limit, count),
        unembedded_count=count,
        missing_files=missing,
        keyword_only=keyword_only,
    )


LISTED_FOLDERS = 16  # folders whose names are held at once while the rows are checked


def _missing_files(store: IndexStore, vault: Vault) -> list[tuple[str, str]]:
    """(id, path) of the index rows whose file is gone. Each folder is listed once, as the rows come in path
    order, instead of a stat per row: at 1,000,000 memories that was 2,000,000 stats, seconds on the lane
    searches use, at every check (opening, every change)."""
    listed: dict[str, set[str] | None] = {}
    gone = []
    for rel in store.paths():
        folder, _, name = rel.rpartition("/")
        if folder not in listed:
            if len(listed) >= LISTED_FOLDERS:
                del listed[next(iter(listed))]
            listed[folder] = vault.names_in(folder)
        names = listed[folder]
        if (name not in names) if names is not None else vault.stat(rel) is None:
            gone.append(rel)
    return [(store.id_at(rel), rel) for rel in gone]

