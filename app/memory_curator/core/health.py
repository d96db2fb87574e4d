"""Vault health: what the index could not read, sync conflicts, what is not embedded, and index rows whose file is gone."""

from __future__ import annotations

from dataclasses import dataclass, field

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
    missing = sorted((mid, rel) for mid, rel in store.files() if vault.stat(rel) is None)
    problems = store.problems() + vault.name_problems()
    return VaultHealth(
        unreadable=[p for p in problems if not is_conflict(p)],
        conflicts=[p for p in problems if is_conflict(p)],
        unembedded=listing.unembedded(store, limit),
        unembedded_count=store.unembedded_count(),
        missing_files=missing,
        keyword_only=keyword_only,
    )
