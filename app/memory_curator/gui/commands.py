"""Undoable actions (QUndoStack): edits, creates, deletes (undo = restore from trash), salience changes and
consolidations.

Each command runs on the engine; the worker runs requests in order, so an undo queued after its redo
always sees the redo's effect. A command enters the undo stack only once the engine has done it (``push_when_done``):
a change that failed leaves nothing to undo. ``ctx.track(request, kind)`` lets the window refresh when a
request finishes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from PySide6.QtGui import QUndoCommand, QUndoStack

from memory_curator.gui.worker import Engine, Request

MAX_LABEL = 40  # characters of a title in an Undo menu entry


class CommandContext(Protocol):
    engine: Engine

    def track(self, request: Request, kind: str) -> None: ...


def short(title: str | None) -> str:
    """A title as an Undo entry quotes it: one line, elided."""
    text = " ".join((title or "Untitled").split())
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1].rstrip() + "…"


def push_when_done(stack: QUndoStack, command: _EngineCommand) -> Request:
    """Do ``command`` now; push it on ``stack`` (without doing it again) once the engine has succeeded."""
    request = command.apply()

    def succeeded(_value: object) -> None:
        command.skip_next_redo = True
        stack.push(command)

    request.done.connect(succeeded)
    return request


class _EngineCommand(QUndoCommand):
    kind = "edit"

    def __init__(self, ctx: CommandContext, text: str):
        super().__init__(text)
        self.ctx = ctx
        self.skip_next_redo = False  # pushed after the fact: QUndoStack.push calls redo, which was done

    def _run(self, fn: Callable[[Any], Any], kind: str | None = None) -> Request:
        request = self.ctx.engine.run(fn)
        self.ctx.track(request, kind or self.kind)
        return request

    def apply(self) -> Request:
        raise NotImplementedError

    def redo(self) -> None:
        if self.skip_next_redo:
            self.skip_next_redo = False
            return
        self.apply()


class EditMemory(_EngineCommand):
    """Save the editor's form; undo writes the previous values back."""

    def __init__(self, ctx: CommandContext, memory_id: str, title: str, before: Mapping[str, Any],
                 after: Mapping[str, Any]):
        super().__init__(ctx, f"Edit “{short(title)}”")
        self.memory_id, self.before, self.after = memory_id, dict(before), dict(after)

    def apply(self) -> Request:
        mid, values = self.memory_id, self.after
        return self._run(lambda svc: svc.update(mid, **values))

    def undo(self) -> None:
        mid, values = self.memory_id, self.before
        self._run(lambda svc: svc.update(mid, **values))


class CreateMemory(_EngineCommand):
    """A new memory; undo moves it to the trash, redo restores it."""

    kind = "create"

    def __init__(self, ctx: CommandContext, values: Mapping[str, Any]):
        super().__init__(ctx, f"New memory “{short(values.get('title'))}”")
        self.values = dict(values)
        self.created: dict[str, str] = {}  # filled on the worker thread, read by later requests there

    def apply(self) -> Request:
        values, created = self.values, self.created

        def save_or_restore(svc):
            if "id" in created:
                return svc.restore(created["id"])
            item = svc.save(**values)
            created["id"] = item.id
            return item

        return self._run(save_or_restore)

    def undo(self) -> None:
        created = self.created
        self._run(lambda svc: svc.delete(created["id"]), "delete")


class DeleteMemories(_EngineCommand):
    """Move memories to the vault's trash; undo restores them."""

    kind = "delete"

    def __init__(self, ctx: CommandContext, ids: Sequence[str], label: str):
        super().__init__(ctx, f"Delete {label}")
        self.ids = list(ids)

    def apply(self) -> Request:
        ids = self.ids
        return self._run(lambda svc: [svc.delete(i) for i in ids])

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

    def apply(self) -> Request:
        ids, value = list(self.old), self.new
        return self._run(lambda svc: [svc.set_salience(i, value) for i in ids])

    def undo(self) -> None:
        old = dict(self.old)
        self._run(lambda svc: [svc.set_salience(i, v) for i, v in old.items()])


class Consolidate(_EngineCommand):
    """A consolidation the dialog has just made; undo takes it back (originals return, the summary goes to the
    trash), redo consolidates the same memories again."""

    kind = "create"

    def __init__(self, ctx: CommandContext, result: Any):
        n = len(result.source_ids)
        super().__init__(ctx, f"Consolidate {n} memories into “{short(result.memory.title)}”")
        self.source_ids = list(result.source_ids)
        self.options = {"preserve_originals": result.trashed == 0, "title": result.memory.title,
                        "category": result.memory.category}
        self.summary = {"id": result.memory.id}  # the newest summary, set on the worker thread by a redo
        self.skip_next_redo = True  # pushed after the dialog made it

    def apply(self) -> Request:
        ids, options, summary = self.source_ids, self.options, self.summary

        def again(svc):
            result = svc.consolidate(ids, **options)
            summary["id"] = result.memory.id
            return result.memory

        return self._run(again)

    def undo(self) -> None:
        summary = self.summary
        self._run(lambda svc: svc.undo_consolidation(summary["id"]))
