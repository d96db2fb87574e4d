"""Undoable actions (QUndoStack): edits, creates, deletes (undo = restore from trash), salience changes and
consolidations.

Each command runs on the engine; the worker runs requests in order, so an undo queued after its redo
always sees the redo's effect. ``ctx.track(request, kind)`` lets the window refresh when one finishes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from PySide6.QtGui import QUndoCommand

from memory_curator.gui.worker import Engine, Request


class CommandContext(Protocol):
    engine: Engine

    def track(self, request: Request, kind: str) -> None: ...


class _EngineCommand(QUndoCommand):
    kind = "edit"

    def __init__(self, ctx: CommandContext, text: str):
        super().__init__(text)
        self.ctx = ctx

    def _run(self, fn: Callable[[Any], Any], kind: str | None = None) -> None:
        self.ctx.track(self.ctx.engine.run(fn), kind or self.kind)


class EditMemory(_EngineCommand):
    """Save the editor's form; undo writes the previous values back."""

    def __init__(self, ctx: CommandContext, memory_id: str, before: Mapping[str, Any], after: Mapping[str, Any]):
        super().__init__(ctx, f"Edit “{after.get('title') or before.get('title')}”")
        self.memory_id, self.before, self.after = memory_id, dict(before), dict(after)

    def redo(self) -> None:
        mid, values = self.memory_id, self.after
        self._run(lambda svc: svc.update(mid, **values))

    def undo(self) -> None:
        mid, values = self.memory_id, self.before
        self._run(lambda svc: svc.update(mid, **values))


class CreateMemory(_EngineCommand):
    """A new memory; undo moves it to the trash, redo restores it."""

    kind = "create"

    def __init__(self, ctx: CommandContext, values: Mapping[str, Any]):
        super().__init__(ctx, f"New memory “{values.get('title') or 'Untitled'}”")
        self.values = dict(values)
        self.created: dict[str, str] = {}  # filled on the worker thread, read by later requests there

    def redo(self) -> None:
        values, created = self.values, self.created

        def save_or_restore(svc):
            if "id" in created:
                return svc.restore(created["id"])
            item = svc.save(**values)
            created["id"] = item.id
            return item

        self._run(save_or_restore)

    def undo(self) -> None:
        created = self.created
        self._run(lambda svc: svc.delete(created["id"]), "delete")


class DeleteMemories(_EngineCommand):
    """Move memories to the vault's trash; undo restores them."""

    kind = "delete"

    def __init__(self, ctx: CommandContext, ids: Sequence[str], label: str):
        super().__init__(ctx, f"Delete {label}")
        self.ids = list(ids)

    def redo(self) -> None:
        ids = self.ids
        self._run(lambda svc: [svc.delete(i) for i in ids])

    def undo(self) -> None:
        ids = self.ids
        self._run(lambda svc: svc.restore_many(ids), "create")


class SetSalience(_EngineCommand):
    """One salience for one or many memories; undo puts each one's old value back."""

    kind = "salience"

    def __init__(self, ctx: CommandContext, old: Mapping[str, float], new: float):
        n = len(old)
        super().__init__(ctx, f"Salience {new:.2f} for {n} memor{'y' if n == 1 else 'ies'}")
        self.old, self.new = dict(old), float(new)

    def redo(self) -> None:
        ids, value = list(self.old), self.new
        self._run(lambda svc: [svc.set_salience(i, value) for i in ids])

    def undo(self) -> None:
        old = dict(self.old)
        self._run(lambda svc: [svc.set_salience(i, v) for i, v in old.items()])


class Consolidate(_EngineCommand):
    """A consolidation the dialog has just made; undo takes it back (originals return, the summary goes to the
    trash), redo consolidates the same memories again."""

    kind = "create"

    def __init__(self, ctx: CommandContext, result: Any):
        n = len(result.source_ids)
        super().__init__(ctx, f"Consolidate {n} memories into “{result.memory.title}”")
        self.source_ids = list(result.source_ids)
        self.options = {"preserve_originals": result.trashed == 0, "title": result.memory.title,
                        "category": result.memory.category}
        self.summary = {"id": result.memory.id}  # the newest summary, set on the worker thread by a redo
        self._made = True  # pushed after the fact: the first redo has nothing to do

    def redo(self) -> None:
        if self._made:
            self._made = False
            return
        ids, options, summary = self.source_ids, self.options, self.summary

        def again(svc):
            result = svc.consolidate(ids, **options)
            summary["id"] = result.memory.id
            return result.memory

        self._run(again)

    def undo(self) -> None:
        summary = self.summary
        self._run(lambda svc: svc.undo_consolidation(summary["id"]))
