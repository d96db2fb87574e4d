"""The status bar: which embedder is active, how many memories are not embedded yet, "Embed now", sync
conflicts waiting for a choice, and the progress of a long operation with its cancel button."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QStatusBar

from memory_curator.core.model import EmbedderStatus


class EngineStatusBar(QStatusBar):
    embed_requested = Signal()
    cancel_requested = Signal()
    conflicts_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.embedder = QLabel("Opening vault…")
        self.embedder.setObjectName("embedderStatus")
        self.pending = QLabel()
        self.embed_button = QPushButton("Embed now")
        self.embed_button.setVisible(False)
        self.progress = QProgressBar(maximumWidth=220)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setVisible(False)
        self.conflicts_button = QPushButton(objectName="conflictsButton", visible=False, flat=True)
        self.conflicts_button.setToolTip("Memories that two machines changed at once: click to choose what to keep")
        self.conflicts_button.clicked.connect(self.conflicts_requested)
        self.addPermanentWidget(self.conflicts_button)
        for label in (self.embedder, self.pending):
            label.setContentsMargins(8, 0, 8, 0)
        self.addPermanentWidget(self.progress)
        self.addPermanentWidget(self.cancel_button)
        self.addPermanentWidget(self.pending)
        self.addPermanentWidget(self.embed_button)
        self.addPermanentWidget(self.embedder)
        self.embed_button.clicked.connect(self.embed_requested)
        self.cancel_button.clicked.connect(self.cancel_requested)

    def show_embedder(self, status: EmbedderStatus, unembedded: int) -> None:
        self.embedder.setText(status.detail)
        self.embedder.setToolTip(f"Embedder: {status.provider} {status.model or ''}".strip())
        self.pending.setText(f"{unembedded} not embedded" if unembedded else "all embedded")
        self.embed_button.setVisible(unembedded > 0 and status.provider != "none")
        self.embed_button.setEnabled(status.available)

    def show_conflicts(self, count: int) -> None:
        self.conflicts_button.setText(f"⚠ {count} sync conflict{'s' if count != 1 else ''}")
        self.conflicts_button.setVisible(count > 0)

    def show_progress(self, done: int, total: int, message: str = "") -> None:
        self.progress.setVisible(True)
        self.cancel_button.setVisible(True)
        self.progress.setMaximum(max(total, 0))
        self.progress.setValue(done)
        if message:
            self.showMessage(message)

    def hide_progress(self) -> None:
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)
