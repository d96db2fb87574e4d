"""Supersede instead of silent loss: a contradicted memory stays in the vault, linked both ways.

``old.superseded_by = new.id`` and ``new.supersedes += [old.id]``. The old memory is hidden from default
search (index.filters) but listed, and ``history`` walks the chain so a user sees what changed.
"""

from __future__ import annotations

from dataclasses import replace

from memory_curator.core.errors import ValidationError
from memory_curator.core.index.store import IndexStore
from memory_curator.core.lifecycle.rewrite import rewrite
from memory_curator.core.model import MemoryItem
from memory_curator.core.vault.store import Vault


def supersede(store: IndexStore, vault: Vault, old_id: str, new_id: str) -> tuple[MemoryItem, MemoryItem]:
    """Mark ``old_id`` as superseded by ``new_id``. Returns (old, new) as indexed now."""
    if old_id == new_id:
        raise ValidationError("A memory cannot supersede itself.", field="new_id")
    for mid in (old_id, new_id):
        if store.file_info(mid) is None:
            raise store.missing(mid)
    if old_id in {it.id for it in history(store, new_id)}:
        raise ValidationError(f"{new_id} is already older than {old_id} in its history: that would be a loop.",
                              field="new_id")
    with store.transaction():
        rewrite(store, vault, [old_id], lambda it: replace(it, superseded_by=new_id))
        rewrite(store, vault, [new_id], lambda it: replace(it, supersedes=tuple(dict.fromkeys((*it.supersedes, old_id)))))
    return store.get(old_id), store.get(new_id)  # type: ignore[return-value]


def unsupersede(store: IndexStore, vault: Vault, old_id: str) -> MemoryItem:
    """Undo a supersede: the memory shows in search again and the newer one forgets the link."""
    item = store.get(old_id)
    if item is None:
        raise store.missing(old_id)
    newer = item.superseded_by
    with store.transaction():
        rewrite(store, vault, [old_id], lambda it: replace(it, superseded_by=None))
        if newer:
            rewrite(store, vault, [newer],
                    lambda it: replace(it, supersedes=tuple(s for s in it.supersedes if s != old_id)))
    return store.get(old_id)  # type: ignore[return-value]


def history(store: IndexStore, memory_id: str) -> list[MemoryItem]:
    """The supersede chain through ``memory_id``, oldest first (older versions via ``supersedes``,
    newer ones via ``superseded_by``). Memories no longer in the vault end the walk."""
    start = store.get(memory_id)
    if start is None:
        raise store.missing(memory_id)
    older: list[MemoryItem] = []
    seen = {start.id}
    frontier = list(start.supersedes)
    while frontier:
        mid = frontier.pop(0)
        if mid in seen:
            continue
        seen.add(mid)
        item = store.get(mid)
        if item is not None:
            older.append(item)
            frontier.extend(item.supersedes)
    newer: list[MemoryItem] = []
    cur = start
    while cur.superseded_by and cur.superseded_by not in seen:
        seen.add(cur.superseded_by)
        nxt = store.get(cur.superseded_by)
        if nxt is None:
            break
        newer.append(nxt)
        cur = nxt
    # The walk found the nearest versions first: reversed, the oldest leads (timestamps may tie).
    return [*reversed(older), start, *newer]
