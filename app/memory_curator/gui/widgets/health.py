"""Vault health: files the index could not read (with the reason), sync conflicts (apart: nothing is broken,
a person chooses), memories without embeddings, index rows without files, and one-click repairs. The window runs the repairs on the engine."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from memory_curator.core.health import VaultHealth
from memory_curator.core.model import EmbedderStatus
from memory_curator.gui.models.roles import IdRole


class HealthPane(QWidget):
    refresh_requested = Signal()
    repair_requested = Signal(str)  # "sync" | "embed" | "rebuild"
    open_requested = Signal(str)  # a memory id
    conflicts_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.summary = QLabel("Not checked yet.")
        self.summary.setWordWrap(True)
        self.unreadable = QListWidget()
        # Each reason whole, wrapped in its row (as the import dialog shows them): cut at the pane's edge, it took
        # a horizontal scroll per file to read what to do.
        self.unreadable.setWordWrap(True)
        self.unreadable.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.unreadable.setResizeMode(QListView.ResizeMode.Adjust)
        self.conflicts = QListWidget()
        self.unembedded = QListWidget()
        self.missing = QListWidget()
        self.buttons: dict[str, QPushButton] = {}
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        for title, widget, action, label, tip in (
            ("Files that could not be read", self.unreadable, "sync", "Re-read files",
             "Read the vault's files again (after you fixed a file in another editor)"),
            ("Sync conflicts", self.conflicts, "conflicts", "Show both versions…",
             "Memories two machines changed at once: see both versions and choose what to keep"),
            ("Memories without embeddings", self.unembedded, "embed", "Embed missing",
             "Embed every memory that has no vectors yet"),
            ("Index rows without files", self.missing, "rebuild", "Rebuild index",
             "Drop the index and read every file again (the files are never changed)"),
        ):  # fmt: skip
            box = QGroupBox(title)
            inner = QVBoxLayout(box)
            inner.addWidget(widget)
            button = QPushButton(label, toolTip=tip)
            button.clicked.connect(self.conflicts_requested if action == "conflicts" else
                                   (lambda _=False, a=action: self.repair_requested.emit(a)))
            self.buttons[action] = button
            row = QHBoxLayout()
            row.addStretch(1)
            row.addWidget(button)
            inner.addLayout(row)
            lay.addWidget(box, 2 if widget is self.unreadable else 1)
        refresh = QPushButton("Check again")
        refresh.clicked.connect(self.refresh_requested)
        lay.addWidget(refresh)
        self.conflicts.parentWidget().setVisible(False)
        self.conflicts.itemActivated.connect(lambda _it: self.conflicts_requested.emit())
        self.unembedded.itemActivated.connect(lambda it: self.open_requested.emit(it.data(IdRole)))

    def set_embedder(self, status: EmbedderStatus) -> None:
        """A keyword-only vault has nothing to embed with: "Embed missing" would only fail there."""
        keyword_only = status.provider == "none"
        button = self.buttons["embed"]
        button.setEnabled(status.available and not keyword_only)
        button.setToolTip("No embedding model is chosen for this vault: choose one in Settings for semantic "
                          "search" if keyword_only else "Embed every memory that has no vectors yet")

    def show_health(self, report: VaultHealth) -> None:
        self.unreadable.clear()
        for p in report.unreadable:
            item = QListWidgetItem(f"{p.path} — {p.reason}")
            item.setToolTip(p.reason)
            self.unreadable.addItem(item)
        self.conflicts.clear()
        for p in report.conflicts:
            self.conflicts.addItem(p.path)
        self.conflicts.parentWidget().setVisible(bool(report.conflicts))  # its box: shown only when there are any
        self.unembedded.clear()
        for mid, title in report.unembedded:
            item = QListWidgetItem(title)
            item.setData(IdRole, mid)
            self.unembedded.addItem(item)
        if report.unembedded_count > len(report.unembedded):
            self.unembedded.addItem(f"… and {report.unembedded_count - len(report.unembedded)} more")
        self.missing.clear()
        for _mid, path in report.missing_files:
            self.missing.addItem(path)
        if report.healthy and report.keyword_only:
            self.summary.setText("The vault is healthy: every file was read. It is keyword-only, so its memories "
                                 "have no embeddings; choose an embedding model in Settings for semantic search.")
        elif report.healthy:
            self.summary.setText("The vault is healthy: every file was read, every memory is embedded.")
        else:
            self.summary.setText(
                f"{len(report.unreadable)} unreadable file(s), {report.unembedded_count} memory(ies) without "
                f"embeddings, {len(report.missing_files)} index row(s) without a file."
                + (f" {len(report.conflicts)} sync conflict(s): View › Sync conflicts… shows both versions."
                   if report.conflicts else ""))
