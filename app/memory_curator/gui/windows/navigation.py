"""Back and forward through the memories opened (Alt+Left/Right, as in a browser), the recently viewed ones
(kept per vault between runs, as a browser's history is), and what counts as a recall.

A recall is a memory read: an LLM client's search or get, or a memory opened in the editor here and left open
for ``RECALL_DWELL_MS``. Searching as you type and moving through the list with the arrow keys are not recalls:
they would inflate the importance clients sort by and turn every keystroke into a write.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from memory_curator.core.model import MemoryItem
from memory_curator.gui.models.roles import IdRole

RECALL_DWELL_MS = 1500
MAX_RECENT = 15


class Navigation(QObject):
    changed = Signal()  # back/forward availability or the recent list changed
    recalled = Signal(object)  # the MemoryItem whose recall was logged (its new access count)

    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.back_ids: list[str] = []
        self.forward_ids: list[str] = []
        self.recent: list[tuple[str, str]] = []  # (id, title), newest first
        self._current: str | None = None
        self._moving = False  # opening a memory from the history: not a new visit
        self._dwell = QTimer(self, singleShot=True, interval=RECALL_DWELL_MS)
        self._dwell.timeout.connect(self._record_recall)
        self._vault = None  # the vault whose recent list this is, once it is open
        window.vault_opened.connect(self._load_recent)

    def reset(self) -> None:
        """Another vault: its ids mean nothing here."""
        self.back_ids.clear()
        self.forward_ids.clear()
        self.recent.clear()
        self._vault = None
        self._current = None
        self._dwell.stop()
        self.changed.emit()

    def _load_recent(self, vault) -> None:
        self._vault = vault
        self.recent = self.w.settings.recent_memories(vault)[:MAX_RECENT]
        self.changed.emit()

    def _save_recent(self) -> None:
        if self._vault is not None:
            self.w.settings.set_recent_memories(self._vault, self.recent)

    def visited(self, item: MemoryItem) -> None:
        if item.id == self._current:
            return
        if not self._moving and self._current is not None:
            self.back_ids.append(self._current)
            self.forward_ids.clear()
        self._current = item.id
        self.recent = [(item.id, item.title)] + [r for r in self.recent if r[0] != item.id][: MAX_RECENT - 1]
        self._save_recent()
        self._dwell.start()
        self.changed.emit()

    def forget(self, ids: set[str]) -> None:
        """Memories moved to the trash leave the history (a trashed id opens nothing)."""
        self.back_ids = [i for i in self.back_ids if i not in ids]
        self.forward_ids = [i for i in self.forward_ids if i not in ids]
        self.recent = [r for r in self.recent if r[0] not in ids]
        self._save_recent()
        if self._current in ids:
            self._current = None
            self._dwell.stop()
        self.changed.emit()

    def can_go_back(self) -> bool:
        return bool(self.back_ids)

    def can_go_forward(self) -> bool:
        return bool(self.forward_ids)

    def back(self) -> None:
        self._step(self.back_ids, self.forward_ids)

    def forward(self) -> None:
        self._step(self.forward_ids, self.back_ids)

    def _step(self, source: list[str], other: list[str]) -> None:
        """Open the newest id of ``source``; the memory shown now goes on ``other`` (the way back)."""
        if source and self.w.edit_flow.confirm_discard():
            target = source.pop()
            if self._current is not None:
                other.append(self._current)
            self._go(target)

    def open_recent(self, memory_id: str) -> None:
        if self.w.edit_flow.confirm_discard():
            self.open_id(memory_id)

    def _go(self, memory_id: str) -> None:
        self._moving = True  # the visit that follows is not a new one
        self.open_id(memory_id, moving=True)

    def open_id(self, memory_id: str, *, moving: bool = False) -> None:
        """Open a memory by id: selected in the list when it is there, else in the editor with no selection,
        so the selection bar never acts on a row the editor does not show."""
        w = self.w
        req = w.engine.call("get", memory_id, record_access=False, read=True)

        def show(item: MemoryItem | None) -> None:
            try:
                if item is None:
                    w.status.showMessage("That memory is no longer in the vault (deleted or moved to the trash).",
                                         8000)
                    return
                view = w.edit_flow.current_view()
                model = view.model()
                row = next((r for r in range(model.rowCount()) if model.index(r, 0).data(IdRole) == item.id), -1)
                w.editor.load(None)  # already confirmed: the row change below must not ask again
                if row >= 0:
                    view.setCurrentIndex(model.index(row, 0))
                else:
                    w.switching = True
                    view.selectionModel().clear()
                    w.switching = False
                if w.editor.loaded_id() != item.id:
                    w.edit_flow.open(item)
            finally:
                if moving:
                    self._moving = False

        req.done.connect(show)
        req.failed.connect(lambda exc: (setattr(self, "_moving", False), w.show_error(exc)))

    def _record_recall(self) -> None:
        w = self.w
        memory_id = self._current
        if memory_id is None or w.engine is None or w.editor.loaded_id() != memory_id:
            return
        req = w.engine.call("get", memory_id)  # logs one "get" in the access log, like a client's recall
        req.done.connect(self._recalled)

    def _recalled(self, item: MemoryItem | None) -> None:
        if item is not None:
            self.recalled.emit(item)
