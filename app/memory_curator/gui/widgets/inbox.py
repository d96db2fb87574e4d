"""The Inbox pane: memories written by LLM clients wait here for review.

Approve, edit, merge into an existing memory, or reject (to the trash), one at a time or a selection at once;
every action can be undone. Each row shows where the memory came from (client, session, time). All engine
calls go through the Engine; the pane holds no SQL and reads no files.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_curator.core.inbox import InboxAction, Provenance
from memory_curator.core.model import MemoryItem
from memory_curator.gui.accessibility import name_from_labels
from memory_curator.gui.worker import Engine

ItemRole = Qt.ItemDataRole.UserRole
COLUMNS = ("Title", "From", "Session", "Received")
# Who wrote a memory whose provenance names no client (older memories, the sample vault's), by its source.
SOURCES = {"ai": "an AI assistant", "user": "you", "system": "an import"}


def sender(p: Provenance, item: MemoryItem) -> str:
    return p.client or SOURCES.get(item.source, item.source or "unknown")


def received(when: str | None) -> str:
    """An ISO time as the user reads it: local time to the minute ("2026-02-03 06:05")."""
    if not when:
        return ""
    try:
        return datetime.fromisoformat(when.replace("Z", "+00:00")).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return when


class InboxPane(QWidget):
    count_changed = Signal(int)
    reviewed = Signal(str)  # "approve" | "reject" | "edit" | "merge" | "undo", once done
    failed = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("inboxPane")
        self.engine: Engine | None = None
        self.items: list[MemoryItem] = []
        self.done: list[InboxAction] = []  # what Undo reverts, newest last

        self.table = QTreeWidget()
        self.table.setObjectName("inboxList")
        self.table.setHeaderLabels(list(COLUMNS))
        self.table.setRootIsDecorated(False)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.preview = QPlainTextEdit(readOnly=True)
        self.preview.setPlaceholderText("Select a memory to read it.")
        self.label = QLabel()
        self.hold = QCheckBox("Hold memories from LLM clients here for review (a setting of this vault)")
        self.hold.setEnabled(False)
        self.hold.clicked.connect(self._set_hold)
        self.approve_button = QPushButton("Approve")
        self.edit_button = QPushButton("Edit…")
        self.merge_button = QPushButton("Merge into…")
        self.reject_button = QPushButton("Reject")
        self.undo_button = QPushButton("Undo")
        self.approve_button.clicked.connect(lambda: self.approve())
        self.edit_button.clicked.connect(lambda: self.edit())
        self.merge_button.clicked.connect(lambda: self.merge())
        self.reject_button.clicked.connect(lambda: self.reject())
        self.undo_button.clicked.connect(self.undo)

        buttons = QHBoxLayout()
        for b in (self.approve_button, self.edit_button, self.merge_button, self.reject_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.undo_button)
        lay = QVBoxLayout(self)
        lay.addWidget(self.label)
        lay.addWidget(self.table, 2)
        lay.addWidget(self.preview, 1)
        lay.addLayout(buttons)
        lay.addWidget(self.hold)
        self._selection_changed()

    # -- loading --------------------------------------------------------------------------------------

    def set_engine(self, engine: Engine | None) -> None:
        self.engine = engine
        self.done.clear()
        self.refresh()

    def refresh(self) -> None:
        if self.engine is None:
            self._show([])
            return
        req = self.engine.run(lambda svc: (svc.inbox.items(), svc.inbox.enabled), key="inbox")
        req.done.connect(lambda value: (self._show(value[0]), self._show_hold(value[1])))
        req.failed.connect(lambda exc: self.failed.emit(str(exc)))

    def _show(self, items: list[MemoryItem]) -> None:
        selected = set(self.selected_ids())
        self.items = list(items)
        self.table.clear()
        for item in self.items:
            p = Provenance.of(item)
            row = QTreeWidgetItem([item.title, sender(p, item), p.session or "-", received(p.time)])
            row.setToolTip(3, p.time or "")  # the exact time, in UTC as it was recorded
            row.setData(0, ItemRole, item.id)
            row.setToolTip(0, item.content[:500])
            self.table.addTopLevelItem(row)
            row.setSelected(item.id in selected)
        for col in range(len(COLUMNS)):
            self.table.resizeColumnToContents(col)
        n = len(self.items)
        self.label.setText(f"{n} memor{'y' if n == 1 else 'ies'} from LLM clients waiting for review"
                           if n else "Nothing to review: memories written by LLM clients show up here.")
        self._selection_changed()
        self.count_changed.emit(n)

    def _show_hold(self, on: bool) -> None:
        self.hold.setChecked(on)
        self.hold.setEnabled(True)

    def _set_hold(self, on: bool) -> None:
        if self.engine is not None:
            req = self.engine.run(lambda svc: svc.inbox.set_enabled(on))
            req.failed.connect(lambda exc: (self.hold.setChecked(not on), self.failed.emit(str(exc))))

    # -- selection ------------------------------------------------------------------------------------

    def selected_ids(self) -> list[str]:
        return [row.data(0, ItemRole) for row in self.table.selectedItems()]

    def select(self, ids: list[str]) -> None:
        wanted = set(ids)
        for i in range(self.table.topLevelItemCount()):
            row = self.table.topLevelItem(i)
            row.setSelected(row.data(0, ItemRole) in wanted)

    def _item(self, memory_id: str) -> MemoryItem | None:
        return next((it for it in self.items if it.id == memory_id), None)

    def _selection_changed(self) -> None:
        ids = self.selected_ids()
        for b in (self.approve_button, self.reject_button):
            b.setEnabled(bool(ids))
        for b in (self.edit_button, self.merge_button):
            b.setEnabled(len(ids) == 1)
        self.undo_button.setEnabled(bool(self.done))
        item = self._item(ids[0]) if len(ids) == 1 else None
        self.preview.setPlainText(item.content if item else "")

    # -- actions --------------------------------------------------------------------------------------

    def approve(self) -> None:
        ids = self.selected_ids()
        if ids:
            self._act(lambda svc: svc.inbox.approve(ids))

    def reject(self) -> None:
        ids = self.selected_ids()
        if ids:
            self._act(lambda svc: svc.inbox.reject(ids))

    def edit(self, values: dict[str, Any] | None = None) -> None:
        """Change the selected memory and approve it; without ``values``, ask in a dialog."""
        ids = self.selected_ids()
        item = self._item(ids[0]) if len(ids) == 1 else None
        if item is None:
            return
        if values is None:
            dialog = InboxEditDialog(item, self)
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return
            values = dialog.values()
        self._act(lambda svc: svc.inbox.edit(item.id, **values))

    def merge(self, into: str | None = None) -> None:
        """Append the selected memory to an existing one; without ``into``, pick it in a dialog."""
        ids = self.selected_ids()
        if len(ids) != 1 or self.engine is None:
            return
        if into is None:
            dialog = MergeTargetDialog(self.engine, self._item(ids[0]), self)
            if dialog.exec() != QDialog.DialogCode.Accepted or dialog.target_id is None:
                return
            into = dialog.target_id
        target = into
        self._act(lambda svc: svc.inbox.merge(ids[0], target))

    def undo(self) -> None:
        if not self.done or self.engine is None:
            return
        action = self.done.pop()
        req = self.engine.run(lambda svc: svc.inbox.undo(action))
        req.done.connect(lambda _v: self._finished("undo"))
        req.failed.connect(lambda exc: (self.done.append(action), self.failed.emit(str(exc))))

    def _act(self, fn: Callable[[Any], InboxAction]) -> None:
        if self.engine is None:
            return
        req = self.engine.run(fn)
        req.done.connect(lambda action: (self.done.append(action), self._finished(action.kind)))
        req.failed.connect(lambda exc: self.failed.emit(str(exc)))

    def _finished(self, kind: str) -> None:
        self.refresh()
        self.reviewed.emit(kind)


class InboxEditDialog(QDialog):
    """Title, keywords and text of an inbox memory, before approving it."""

    def __init__(self, item: MemoryItem, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Edit and approve")
        self.setObjectName("inboxEditDialog")
        self.title = QLineEdit(item.title)
        self.keywords = QLineEdit(", ".join(item.keywords))
        self.content = QPlainTextEdit(item.content)
        form = QFormLayout()
        form.addRow("Title", self.title)
        form.addRow("Keywords", self.keywords)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        box.button(QDialogButtonBox.StandardButton.Ok).setText("Save and approve")
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.content, 1)
        lay.addWidget(box)
        self.resize(640, 480)
        self.content.setAccessibleName("Text")
        name_from_labels(self)

    def values(self) -> dict[str, Any]:
        return {"title": self.title.text(), "content": self.content.toPlainText(),
                "keywords": [k.strip() for k in self.keywords.text().split(",") if k.strip()]}


class MergeTargetDialog(QDialog):
    """Pick the existing memory an inbox memory is merged into (search by words; best guesses first)."""

    def __init__(self, engine: Engine, item: MemoryItem | None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Merge into…")
        self.setObjectName("mergeTargetDialog")
        self.engine = engine
        self.source_id = item.id if item else None
        self.target_id: str | None = None
        self.query = QLineEdit(item.title if item else "")
        self.query.setPlaceholderText("Search memories")
        self.results = QListWidget()
        self.box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.box.button(QDialogButtonBox.StandardButton.Ok).setText("Merge")
        self.box.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)
        self.box.accepted.connect(self.accept)
        self.box.rejected.connect(self.reject)
        self.query.returnPressed.connect(self.search)
        self.results.currentItemChanged.connect(self._chosen)
        lay = QVBoxLayout(self)
        lay.addWidget(self.query)
        lay.addWidget(self.results, 1)
        lay.addWidget(self.box)
        self.resize(520, 420)
        self.results.setAccessibleName("Memories to merge into")
        name_from_labels(self)
        self.search()

    def search(self) -> None:
        text = self.query.text().strip()
        if not text:
            return
        req = self.engine.run(lambda svc: svc.search(text, limit=20, mode="hybrid", record_access=False),
                              key="merge-search")
        req.done.connect(self._show)

    def _show(self, results) -> None:
        self.results.clear()
        for r in results:
            if r.memory.id == self.source_id:
                continue
            row = QListWidgetItem(f"{r.memory.title}  [{r.memory.category}]")
            row.setData(ItemRole, r.memory.id)
            self.results.addItem(row)

    def _chosen(self, current: QListWidgetItem | None, _previous=None) -> None:
        self.target_id = current.data(ItemRole) if current is not None else None
        self.box.button(QDialogButtonBox.StandardButton.Ok).setEnabled(self.target_id is not None)
