"""The opening dialog: shown when opening a vault upgrades an older index for more than a second (its
migrations: ~50-75 s at 1,000,000 memories), saying what each migration does and how far a long one is, with
Cancel. Cancelling is safe: each migration is one transaction, so Cancel undoes the one under way, keeps those
done, and opens no vault (opening it again goes on from there)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QProgressBar, QVBoxLayout, QWidget

from memory_curator.core.index.migrations import CREATING, UPGRADING

SHOW_AFTER_MS = 1000  # a quick upgrade (a small vault) never shows the dialog; the status bar says it anyway

CANCEL_HELP = ("Stop upgrading the index: the migrations done are kept, the one under way is undone, and the "
               "vault is not opened. Opening it again goes on from there.")


class OpeningDialog(QDialog):
    """Follows the engine's ``opening`` request (worker.Engine): its ``progress`` (total 0 while one statement
    runs: a busy bar) and its end; Cancel cancels it."""

    def __init__(self, request: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("openingDialog")
        self.setWindowTitle(UPGRADING)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.message = QLabel("Opening the vault…", wordWrap=True, minimumWidth=420)
        self.bar = QProgressBar(minimum=0, maximum=0)
        self.bar.setAccessibleName("Upgrade progress")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.cancel_button = buttons.button(QDialogButtonBox.StandardButton.Cancel)
        self.cancel_button.setToolTip(CANCEL_HELP)
        self.cancel_button.setAccessibleDescription(CANCEL_HELP)
        layout = QVBoxLayout(self)
        for widget in (self.message, self.bar, QLabel(CANCEL_HELP, wordWrap=True), buttons):
            layout.addWidget(widget)
        self._timer = QTimer(self, singleShot=True, interval=SHOW_AFTER_MS)
        self._timer.timeout.connect(self.show)
        self._request = request
        self.ended = False
        buttons.rejected.connect(self.cancel)
        request.progress.connect(self._progress)
        request.done.connect(self._end)
        request.failed.connect(self._end)

    def cancel(self) -> None:
        self._request.cancel()
        self.message.setText("Stopping: undoing the migration under way…")
        self.cancel_button.setEnabled(False)

    def reject(self) -> None:  # Escape and the window's close button cancel too
        if not self.ended:
            self.cancel()

    def _progress(self, done: int, total: int, message: str) -> None:
        if not self.ended and not self._timer.isActive() and not self.isVisible():
            self._timer.start()
        if self.cancel_button.isEnabled():
            self.message.setText(message)
        if message.startswith(CREATING):  # a new index: shown only on a machine slow enough to take a second
            self.setWindowTitle(CREATING)
        self.bar.setMaximum(max(total, 0))
        self.bar.setValue(done)

    def _end(self, *_args: Any) -> None:
        self.ended = True
        self._timer.stop()
        self.hide()  # the window deletes it when it opens another vault
