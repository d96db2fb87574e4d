"""The review inbox: memories written by an LLM client wait here until a person approves them.

The state is the frontmatter key ``review: pending`` (kept among the keys the codec passes through), so it
lives in the file and survives a rebuild of the index. Approving removes the key; rejecting moves the file to
the trash; editing approves with changes; merging appends the text to an existing memory and trashes the
incoming one. Every action returns an ``InboxAction`` that ``undo`` reverts.

Whether new "ai" memories land here is the vault setting ``review_inbox`` (on unless turned off).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memory_curator.core.errors import MemoryNotFoundError, ValidationError
from memory_curator.core.index.store import FROM_MEMORIES, MEMORY_COLUMNS
from memory_curator.core.model import MemoryItem

if TYPE_CHECKING:  # the service owns an Inbox; the import would be circular at run time
    from memory_curator.core.service import MemoryService

REVIEW_KEY = "review"
PENDING = "pending"
SETTING = "review_inbox"
# Spelled as in the partial index of migration 3 (a literal, not a parameter) so SQLite uses that index.
_PENDING_SQL = "json_extract(m.meta_json, '$.extra.review') = 'pending'"
_EDITABLE = ("content", "title", "keywords", "category", "salience", "session_id")


def lands_in_inbox(source: str, settings_value: Any) -> bool:
    """New memories from an LLM client ("ai") wait for review unless the vault turned the inbox off."""
    return source == "ai" and settings_value is not False


def mark_pending(extra: Mapping[str, Any]) -> dict[str, Any]:
    return {**extra, REVIEW_KEY: PENDING}


def is_pending(item: MemoryItem) -> bool:
    return item.extra.get(REVIEW_KEY) == PENDING


def _without_review(extra: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in extra.items() if k != REVIEW_KEY}


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
    def __init__(self, service: MemoryService):
        self._svc = service

    @property
    def enabled(self) -> bool:
        return self._svc.settings.get(SETTING, True) is not False

    def set_enabled(self, on: bool) -> None:
        self._svc.settings.set(SETTING, bool(on))

    def items(self, limit: int = 500) -> list[MemoryItem]:
        """Memories waiting for review, oldest first."""
        rows = self._svc.store.conn.execute(
            f"SELECT {MEMORY_COLUMNS} FROM {FROM_MEMORIES} WHERE {_PENDING_SQL} ORDER BY m.created_at, m.pk LIMIT ?",
            (int(limit),),
        )
        return [self._svc.store.row_to_item(r) for r in rows]

    def count(self) -> int:
        return self._svc.store.conn.execute(f"SELECT COUNT(*) FROM memories m WHERE {_PENDING_SQL}").fetchone()[0]

    def _pending(self, ids: Iterable[str]) -> dict[str, MemoryItem]:
        out: dict[str, MemoryItem] = {}
        for mid in ids:
            item = self._svc.get(mid, record_access=False)
            if item is None:
                raise MemoryNotFoundError(mid)
            if not is_pending(item):
                raise ValidationError(f"{item.title!r} is not in the inbox (already reviewed).", field="id")
            out[mid] = item
        if not out:
            raise ValidationError("Select at least one memory in the inbox.", field="ids")
        return out

    # -- actions --------------------------------------------------------------------------------------

    def approve(self, ids: Iterable[str]) -> InboxAction:
        before = self._pending(ids)
        for mid, item in before.items():
            self._svc.update(mid, extra=_without_review(item.extra))
        return InboxAction("approve", tuple(before), before)

    def reject(self, ids: Iterable[str]) -> InboxAction:
        """Move the memories to the trash (restorable)."""
        before = self._pending(ids)
        for mid in before:
            self._svc.delete(mid)
        return InboxAction("reject", tuple(before), before)

    def edit(self, memory_id: str, **changes: Any) -> InboxAction:
        """Change a memory and approve it in one step."""
        unknown = set(changes) - set(_EDITABLE)
        if unknown:
            raise ValidationError(f"Cannot edit {', '.join(sorted(unknown))} here.", field=sorted(unknown)[0])
        before = self._pending([memory_id])
        self._svc.update(memory_id, **changes, extra=_without_review(before[memory_id].extra))
        return InboxAction("edit", (memory_id,), before)

    def merge(self, memory_id: str, into: str) -> InboxAction:
        """Append the memory's text and keywords to ``into`` (an existing memory), then trash it."""
        if memory_id == into:
            raise ValidationError("A memory cannot be merged into itself.", field="into")
        before = self._pending([memory_id])
        target = self._svc.get(into, record_access=False)
        if target is None:
            raise MemoryNotFoundError(into)
        incoming = before[memory_id]
        self._svc.update(into, content=f"{target.content}\n\n{incoming.content}",
                         keywords=[*target.keywords, *incoming.keywords])
        self._svc.delete(memory_id)
        return InboxAction("merge", (memory_id,), {**before, into: target}, target=into)

    def undo(self, action: InboxAction) -> None:
        """Put things back as they were before ``action``."""
        if action.kind in ("approve", "edit"):
            for mid in action.ids:
                old = action.before[mid]
                self._svc.update(mid, **{k: getattr(old, k) for k in _EDITABLE}, extra=mark_pending(old.extra))
            return
        if action.kind == "merge" and action.target is not None:
            old = action.before[action.target]
            self._svc.update(action.target, content=old.content, keywords=list(old.keywords))
        self._svc.restore_many(action.ids)  # reject and merge trashed them; the trashed files are still pending
