"""The vault's trash (``.trash/``): what deletes, cleanup, expiry and consolidation put there, restorable
until it is emptied (restoring is Memories.restore_many: it indexes the files again)."""

from __future__ import annotations

from dataclasses import replace

from memory_curator.core.errors import ConflictedFile, StorageError
from memory_curator.core.model import MemoryItem
from memory_curator.core.vault.store import Vault


def trashed_items(vault: Vault) -> list[MemoryItem]:
    """Memories in the trash (``file_path`` points into the trash); unreadable files are left out."""
    out = []
    for rel in vault.scan_trash():
        try:
            item = vault.read(rel)
        except ConflictedFile as exc:  # a file a conflict's resolution put here, both versions in it
            if exc.item is None:
                continue
            item = exc.item
        except StorageError:
            continue
        out.append(replace(item, file_path=str(vault.abs(rel))))
    return out


def delete_trashed(vault: Vault) -> int:
    """Delete the trashed files for good. Returns how many."""
    n = 0
    for rel in list(vault.scan_trash()):
        vault.delete_file(rel)
        n += 1
    return n
