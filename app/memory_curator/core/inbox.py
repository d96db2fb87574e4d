"""The review inbox: memories written by an LLM client wait here until a person approves them.

The state is the frontmatter key ``review: pending`` (core/lifecycle/review.py). Approving removes the key;
rejecting moves the file to the trash; editing approves with changes; merging appends the text to an
existing memory and trashes the incoming one. Every action returns an ``InboxAction`` that ``undo`` reverts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memory_curator.core.errors import ValidationError
from memory_curator.core.index import listing
from memory_curator.core.lifecycle.review import SETTING, is_pending, mark_pending, without_review
from memory_curator.core.memories import Memories, writes
from memory_curator.core.model import MemoryItem

_EDITABLE = ("content", "title", "keywords", "category", "salience", "session_id")


@dataclass(frozen=True)
class Provenance:
    """Who wrote an inbox memory: the client, its session, and when."""

    client: str | None
    session: str | None
    time: str | None

    @classmethod
    def of(cls, item: MemoryItem) -> Provenance:
        p = item.provenance or {}
        when = p.get("time") or item.created_at.isoformat().replace("+00:00", "Z")
        return cls(p.get("client"), p.get("session") or item.session_id, str(when))


@dataclass(frozen=True)
class InboxAction:
    """What an action did, with the state needed to undo it."""

    kind: str  # approve | reject | edit | merge
    ids: tuple[str, ...]
    before: dict[str, MemoryItem] = field(default_factory=dict)  # memories as they were (incl. a merge target)
    target: str | None = None  # merge: the memory the text went into


class Inbox:
    """Each action reads what it changes under the write lock (``writes``): another process's change to a
    memory in between is kept."""

    def __init__(self, memories: Memories):
        self.memories = memories

    @property
    def enabled(self) -> bool:
        return self.memories.settings.get(SETTING, True) is not False

    def set_enabled(self, on: bool) -> None:
        self.memories.settings.set(SETTING, bool(on))

    def items(self, limit: int = 500) -> list[MemoryItem]:
        """Memories waiting for review, oldest first."""
        return listing.pending(self.memories.store, limit)

    def count(self) -> int:
        return listing.pending_count(self.memories.store)

    def _pending(self, ids: Iterable[str]) -> dict[str, MemoryItem]:
        out: dict[str, MemoryItem] = {}
        for mid in ids:
            item = self.memories.fresh(mid)
            if item is None:
                raise self.memories.store.missing(mid)
            if not is_pending(item):
                raise ValidationError(f"{item.title!r} is not in the inbox (already reviewed).", field="id")
            out[mid] = item
        if not out:
            raise ValidationError("Select at least one memory in the inbox.", field="ids")
        return out

    # -- actions --------------------------------------------------------------------------------------

    @writes
    def approve(self, ids: Iterable[str]) -> InboxAction:
        before = self._pending(ids)
        for mid, item in before.items():
            self.memories.update(mid, extra=without_review(item.extra))
        return InboxAction("approve", tuple(before), before)

    @writes
    def reject(self, ids: Iterable[str]) -> InboxAction:
        """Move the memories to the trash (restorable)."""
        before = self._pending(ids)
        for mid in before:
            self.memories.delete(mid)
        return InboxAction("reject", tuple(before), before)

    @writes
    def edit(self, memory_id: str, **changes: Any) -> InboxAction:
        """Change a memory and approve it in one step."""
        unknown = set(changes) - set(_EDITABLE)
        if unknown:
            raise ValidationError(f"Cannot edit {', '.join(sorted(unknown))} here.", field=sorted(unknown)[0])
        before = self._pending([memory_id])
        self.memories.update(memory_id, **changes, extra=without_review(before[memory_id].extra))
        return InboxAction("edit", (memory_id,), before)

    @writes
    def merge(self, memory_id: str, into: str) -> InboxAction:
        """Append the memory's text and keywords to ``into`` (an existing memory), then trash it."""
        if memory_id == into:
            raise ValidationError("A memory cannot be merged into itself.", field="into")
        before = self._pending([memory_id])
        target = self.memories.fresh(into)
        if target is None:
            raise self.memories.store.missing(into)
        incoming = before[memory_id]
        self.memories.update(into, content=f"{target.content}\n\n{incoming.content}",
                             keywords=[*target.keywords, *incoming.keywords])
        self.memories.delete(memory_id)
        return InboxAction("merge", (memory_id,), {**before, into: target}, target=into)

    @writes
    def undo(self, action: InboxAction) -> None:
        """Put things back as they were before ``action``."""
        if action.kind in ("approve", "edit"):
            for mid in action.ids:
                old = action.before[mid]
                self.memories.update(mid, **{k: getattr(old, k) for k in _EDITABLE}, extra=mark_pending(old.extra))
            return
        if action.kind == "merge" and action.target is not None:
            old = action.before[action.target]
            self.memories.update(action.target, content=old.content, keywords=list(old.keywords))
        self.memories.restore_many(action.ids)  # reject and merge trashed them; the trashed files are still pending
