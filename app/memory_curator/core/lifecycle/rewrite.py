"""Rewriting the frontmatter of many memories at once: files atomically, index rows in one transaction.

The file is the truth: each memory is read from disk, changed, written back (unknown keys kept), and its
row updated. A file that fails to write stops the run; the transaction rolls back, and the files already
rewritten differ from their rows by mtime, so the next sync reads them again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from memory_curator.core.errors import VaultFileError
from memory_curator.core.index.store import IndexStore
from memory_curator.core.model import MemoryItem
from memory_curator.core.vault.store import Vault

Change = Callable[[MemoryItem], MemoryItem | None]  # None: leave this memory as it is


def rewrite(store: IndexStore, vault: Vault, memory_ids: Iterable[str], change: Change, *,
            skip_unreadable: bool = False) -> list[MemoryItem]:
    """Apply ``change`` to each memory's file; returns the memories that changed, as indexed now.
    ``skip_unreadable``: a file broken or removed by another program since it was indexed is left alone
    (the next sync reports it) instead of stopping a run over many memories."""
    changed: list[str] = []
    with store.transaction():
        for memory_id in memory_ids:
            info = store.file_info(memory_id)
            if info is None:
                continue
            try:
                disk = vault.read(info.file_path)
            except VaultFileError:
                if skip_unreadable:
                    continue
                raise
            new = change(disk)
            if new is None or new == disk:
                continue
            rel = vault.write(new, info.file_path)
            st = vault.stat(rel)
            store.upsert(new, rel, st.mtime_ns if st else 0, st.size if st else 0)
            changed.append(memory_id)
    items = store.get_many(changed)
    return [items[i] for i in changed if i in items]
