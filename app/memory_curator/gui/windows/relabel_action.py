"""Memory › Label every memory again…: after the vault's label set changed (Settings › Labels), every memory is
labelled with the new set on the engine's writer thread, with a progress dialog whose Cancel stops the run after
the batch in progress (what was labelled stays labelled). Labels a person set are kept. At the end a message says
how many memories got new labels."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QProgressDialog

from memory_curator.core.graph.labelling import BATCH, Relabelled
from memory_curator.gui.worker import Request

TITLE = "Label every memory again"


def summary(run: Relabelled) -> str:
    if run.cancelled:
        return (f"Cancelled after {run.done:,} of {run.total:,} memories: {run.changed:,} got new labels. The other "
                f"{run.total - run.done:,} keep the labels they had.")
    return (f"{run.changed:,} of {run.total:,} memories got new labels; the others kept theirs (labels you set are "
            "never replaced).")


class RelabelAction:
    batch = BATCH  # memories per hold of the write lock (the engine's default)

    def __init__(self, window):
        self.w = window
        self.dialog: QProgressDialog | None = None
        self.request: Request | None = None
        self.message: QMessageBox | None = None
        self._engine = None  # the engine of the run in progress (another vault opened since: that run is over)

    def start(self) -> Request | None:
        if self.w.engine is None or (self.request is not None and self._engine is self.w.engine):
            return None  # one run at a time: the dialog of the run in progress is still up
        self._close_dialog()
        self._engine = self.w.engine
        dialog = QProgressDialog("Labelling every memory with the vault's label set…", "Cancel", 0, 0, self.w)
        dialog.setWindowTitle(TITLE)
        # Not modal: the window stays usable (search, browse) while it runs, and setValue never runs a nested
        # event loop in which the run's end would close the dialog under it.
        dialog.setWindowModality(Qt.WindowModality.NonModal)
        dialog.setMinimumDuration(0)
        dialog.setAutoReset(False)
        dialog.setAutoClose(False)
        batch = self.batch
        req = self.w.engine.run(lambda svc, progress, cancel: svc.graph.labels.classify(
            progress=progress, cancel=cancel, batch=batch), long=True, job=True)
        req.progress.connect(self._progress)
        dialog.canceled.connect(req.cancel)  # the dialog closes; the run stops after its batch and says so
        req.done.connect(self._done)
        req.failed.connect(self._failed)
        self.dialog, self.request = dialog, req
        dialog.show()
        return req

    def _progress(self, done: int, total: int, _message: str) -> None:
        dialog = self.dialog
        if dialog is None or dialog.wasCanceled():
            return
        dialog.setLabelText(f"Labelling memory {done:,} of {total:,} with the vault's label set…")
        dialog.setMaximum(max(total, 1))
        dialog.setValue(done)

    def _close_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.reset()
            self.dialog.hide()
            self.dialog.deleteLater()
            self.dialog = None

    def _done(self, run: Relabelled) -> None:
        self._close_dialog()
        self.request = None
        text = summary(run)
        self.w.status.showMessage(text, 15000)
        self._tell(QMessageBox.Icon.Information, text)
        self._refresh()

    def _refresh(self) -> None:
        """The list, the Labels group's counts and the label choices; and the open memory read again, so the
        Graph pane shows its new labels (the editor keeps unsaved text: see after_change)."""
        self.w.after_change("create", None)
        mid = self.w.editor.loaded_id()
        if mid is not None and self.w.engine is not None:
            req = self.w.engine.call("get", mid, record_access=False, read=True)
            req.done.connect(lambda item: self.w.after_change("edit", item) if item is not None else None)

    def _failed(self, exc: object) -> None:
        self._close_dialog()
        self.request = None
        self._tell(QMessageBox.Icon.Warning, f"Labelling stopped: {exc} The memories labelled before keep their "
                   "new labels.")
        self._refresh()

    def _tell(self, icon: QMessageBox.Icon, text: str) -> None:
        self.message = QMessageBox(icon, TITLE, text, QMessageBox.StandardButton.Ok, self.w)
        self.message.open()  # not exec(): the window goes on refreshing behind it
