"""``update_batch``: many updates with the contract of ``save_batch`` (success_count, error_count,
created_ids — here the ids updated — and errors), in chunks so that batches of any size stay bounded.

``mode="rollback"``: nothing changes unless every update is valid and written; the chunks are savepoints
of one transaction, and files already rewritten are put back byte for byte if a later one fails.
``mode="skip"``: invalid updates (and files that fail to write) are reported in ``errors``; each chunk
commits on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory_curator.core import indexing
from memory_curator.core.errors import MemoryNotFoundError, StorageError, ValidationError
from memory_curator.core.memories import Memories
from memory_curator.core.model import MemoryItem
from memory_curator.core.progress import Tracker
from memory_curator.core.vault.files import atomic_write_text

CHUNK = 500
MODES = ("rollback", "skip")


@dataclass
class _Planned:
    index: int
    current: MemoryItem
    new: MemoryItem
    rel: str


@dataclass
class _Undo:
    rel: str  # where the file was
    new_rel: str  # where it is now (differs when the category changed)
    original: bytes


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValidationError("mode must be 'rollback' or 'skip'.", field="mode")


def plan(memories: Memories, updates: Sequence[Mapping[str, Any]], mode: str) -> tuple[list[_Planned], list[dict]]:
    """Validate every update against its file before anything is written."""
    planned: list[_Planned] = []
    errors: list[dict] = []
    seen: set[str] = set()
    for i, raw in enumerate(updates):
        mid = raw.get("id") if isinstance(raw, Mapping) else None
        try:
            if not mid:
                raise ValidationError("each update must be a mapping with the memory's 'id'.", field="id")
            mid = str(mid)
            if mid in seen:
                raise ValidationError(f"id {mid!r} appears twice in the batch: put its changes in one update.",
                                      field="id", code="DUPLICATE_ID")
            seen.add(mid)
            changes = {k: v for k, v in raw.items() if k != "id"}
            current, new, rel = memories.changed_item(mid, **changes)
            planned.append(_Planned(i, current, new, rel))
        except MemoryNotFoundError as exc:
            if mode == "rollback":
                raise
            errors.append({"index": i, "id": mid, "error": str(exc), "code": exc.code})
        except (ValidationError, TypeError) as exc:
            if mode == "rollback":
                raise ValidationError(f"Update {i}: {exc}", field=getattr(exc, "field", None),
                                      code=getattr(exc, "code", None)) from exc
            errors.append({"index": i, "id": mid, "error": str(exc), "code": getattr(exc, "code", "VALIDATION_ERROR")})
    return planned, errors


def _write_one(memories: Memories, p: _Planned, undo: list[_Undo]) -> int:
    original = memories.vault.abs(p.rel).read_bytes()
    new_rel = memories.vault.write(p.new, p.rel)
    undo.append(_Undo(p.rel, new_rel, original))
    st = memories.vault.stat(new_rel)
    pk = memories.store.upsert(p.new, new_rel, st.mtime_ns if st else 0, st.size if st else 0)
    if indexing.embedded_text_changed(p.current, p.new):
        memories.store.clear_chunks(pk)
    return pk


def _put_back(memories: Memories, undo: list[_Undo]) -> None:
    for u in reversed(undo):
        if u.new_rel != u.rel:
            memories.vault.delete_file(u.new_rel)
        atomic_write_text(memories.vault.abs(u.rel), u.original.decode("utf-8"))  # vault files are UTF-8: exact bytes


def update_batch(memories: Memories, updates: Sequence[Mapping[str, Any]], mode: str, tracker: Tracker,
                 chunk: int = CHUNK) -> tuple[list[MemoryItem], list[dict]]:
    """Returns (updated memories in input order, errors)."""
    check_mode(mode)
    done: list[_Planned] = []
    # The files are read under the lock: a change another process makes while this one waits is kept.
    with memories.writing():
        planned, errors = plan(memories, updates, mode)
        tracker.total = len(planned)
        if mode == "rollback":
            undo: list[_Undo] = []
            try:
                with memories.store.transaction():
                    for start in range(0, len(planned), chunk):
                        with memories.store.transaction():  # a savepoint per chunk
                            for p in planned[start : start + chunk]:
                                _write_one(memories, p, undo)
                        tracker.step(len(planned[start : start + chunk]), "updating")
            except BaseException:
                _put_back(memories, undo)
                raise
            done = planned
        else:
            for start in range(0, len(planned), chunk):
                with memories.store.transaction():
                    for p in planned[start : start + chunk]:
                        try:
                            with memories.store.transaction():
                                _write_one(memories, p, [])
                            done.append(p)
                        except (StorageError, OSError) as exc:
                            errors.append({"index": p.index, "id": p.current.id, "error": str(exc),
                                           "code": "STORAGE_ERROR"})
                tracker.step(len(planned[start : start + chunk]), "updating")
    to_embed = [p.new.id for p in done if indexing.embedded_text_changed(p.current, p.new)]
    if to_embed:
        items = memories.store.get_many(to_embed)
        memories.embedding.queue([(memories.store.pk_of(i), items[i]) for i in to_embed if i in items])
    fresh = memories.store.get_many(p.new.id for p in done)
    errors.sort(key=lambda e: e["index"])
    return [fresh[p.new.id] for p in done if p.new.id in fresh], errors
