"""A memory's history (when the vault is a git repository): its versions, the diff of one against now or of
two against each other, and restoring an old version (itself a new, undoable change)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
)

from memory_curator.core.history import Version
from memory_curator.core.model import MemoryItem
from memory_curator.gui.worker import Engine, Request

VersionRole = Qt.ItemDataRole.UserRole


class HistoryDialog(QDialog):
    loaded = Signal(int)  # number of versions shown
    diff_shown = Signal(str)

    def __init__(self, engine: Engine, item: MemoryItem, track: Callable[[Request, str], None] | None = None,
                 parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"History of “{item.title}”")
        self.setObjectName("historyDialog")
        self.engine, self.item, self.track = engine, item, track
        self.versions = QListWidget()
        self.versions.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.versions.itemSelectionChanged.connect(self.show_diff)
        self.diff = QPlainTextEdit(readOnly=True)
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.versions.setAccessibleName("Versions")
        self.diff.setAccessibleName("Differences")
        self.status = QLabel("Select a version to compare it with the memory as it is now; select two to compare "
                             "them with each other.")
        self.status.setWordWrap(True)
        self.enable_button = QPushButton("Turn history on (git)")
        self.enable_button.setVisible(False)
        self.enable_button.clicked.connect(self.enable_history)
        self.restore_button = QPushButton("Restore this version")
        self.restore_button.setEnabled(False)
        self.restore_button.clicked.connect(self.restore_selected)
        close = QPushButton("Close")
        close.clicked.connect(self.accept)
        split = QSplitter()
        split.addWidget(self.versions)
        split.addWidget(self.diff)
        split.setSizes([320, 560])
        buttons = QHBoxLayout()
        buttons.addWidget(self.enable_button)
        buttons.addStretch(1)
        buttons.addWidget(self.restore_button)
        buttons.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.status)
        lay.addWidget(split, 1)
        lay.addLayout(buttons)
        self.resize(900, 560)
        self.reload()

    def reload(self) -> None:
        memory_id = self.item.id
        req = self.engine.run(lambda svc: svc.versions.of(memory_id), key="history")
        req.done.connect(self._show)
        req.failed.connect(self._failed)

    def _show(self, versions: list[Version]) -> None:
        self.versions.clear()
        for n, v in enumerate(versions, start=1):
            row = QListWidgetItem(f"{n}. {v.when:%Y-%m-%d %H:%M}  {v.message.removeprefix('Memory Curator: ')}")
            row.setData(VersionRole, v.commit)
            row.setToolTip(f"{v.commit}\n{v.path}")
            self.versions.addItem(row)
        self.enable_button.setVisible(False)
        self.loaded.emit(len(versions))

    def _failed(self, exc: object) -> None:
        self.status.setText(str(exc))
        self.enable_button.setVisible("git repository" in str(exc))
        self.loaded.emit(0)

    def selected_commits(self) -> list[str]:
        rows = sorted(self.versions.selectedItems(), key=self.versions.row)
        return [r.data(VersionRole) for r in rows]

    def show_diff(self) -> None:
        commits = self.selected_commits()
        self.restore_button.setEnabled(len(commits) == 1)
        if not commits or len(commits) > 2:
            return
        memory_id = self.item.id
        old, new = (commits[-1], commits[0]) if len(commits) == 2 else (commits[0], None)
        req = self.engine.run(lambda svc: svc.versions.diff(memory_id, old, new), key="history-diff")
        req.done.connect(lambda text: (self.diff.setPlainText(text or "No differences."),
                                       self.diff_shown.emit(text or "")))
        req.failed.connect(lambda exc: self.status.setText(str(exc)))

    def restore_selected(self) -> None:
        commits = self.selected_commits()
        if len(commits) != 1:
            return
        memory_id, commit = self.item.id, commits[0]
        req = self.engine.run(lambda svc: svc.versions.restore(memory_id, commit))
        if self.track is not None:
            self.track(req, "edit")
        req.done.connect(lambda item: (setattr(self, "item", item), self.status.setText(
            f"Restored version {commit[:10]}; the restore is itself a version you can go back from."), self.reload()))
        req.failed.connect(lambda exc: self.status.setText(str(exc)))

    def enable_history(self) -> None:
        req = self.engine.run(lambda svc: svc.versions.enable())
        req.done.connect(lambda _v: (self.status.setText("History is on: every change is now committed to git."),
                                     self.reload()))
        req.failed.connect(lambda exc: self.status.setText(str(exc)))


def open_history(window) -> None:
    """Memory › History… on the first selected memory."""
    items = window.selected_items()
    if window.engine is None or not items:
        window.status.showMessage("Select a memory to see its history.", 5000)
        return
    HistoryDialog(window.engine, items[0], window.track, window).open()
