"""Import: files and folders (PDF, markdown, text) into memories, with progress, Cancel, and a result per file.

The engine's ``import_paths`` does the reading; a failing file is listed with its reason and never stops
the rest."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableView,
    QVBoxLayout,
)

from memory_curator.core.errors import Cancelled
from memory_curator.gui.models.import_results import ImportResultsModel
from memory_curator.gui.worker import Engine, Request


class ImportDialog(QDialog):
    finished_import = Signal(object)  # the ImportReport
    file_imported = Signal(object)  # one FileResult, emitted on the engine's thread as each file finishes

    def __init__(self, engine: Engine, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Import")
        self.setObjectName("importDialog")
        self.resize(720, 420)
        self.engine = engine
        self.request: Request | None = None
        self.report = None
        self._target = ""
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m files")
        self.message = QLabel()
        self.results = ImportResultsModel(self)
        self.table = QTableView()
        self.table.setModel(self.results)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(0, 240)
        self.cancel_button = QPushButton("Cancel")
        self.close_button = QPushButton("Close")
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button.clicked.connect(self.close)
        self.file_imported.connect(self.results.append)  # queued: the engine emits it from its thread
        buttons = QHBoxLayout()
        buttons.addWidget(self.message, 1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.close_button)
        lay = QVBoxLayout(self)
        lay.addWidget(self.heading)
        lay.addWidget(self.progress)
        lay.addWidget(self.table, 1)
        lay.addLayout(buttons)

    @property
    def running(self) -> bool:
        return self.request is not None

    def start(self, paths: list[Path], category: str | None = None) -> Request:
        if self.running:
            self.cancel()
        names = ", ".join(p.name for p in paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
        self._target = names + (f" into {category}" if category else "")
        self.heading.setText(f"Importing {self._target}…")
        self.progress.setRange(0, 0)
        self.results.set_report(None)
        self.message.setText("Reading files…")
        self.cancel_button.setEnabled(True)
        req = self.engine.call("import_paths", [str(p) for p in paths], category=category, long=True,
                               on_file=self.file_imported.emit)
        req.progress.connect(self._on_progress)
        req.done.connect(self._on_done)
        req.failed.connect(self._on_failed)
        self.request = req
        return req

    def cancel(self) -> None:
        if self.request is not None:
            self.request.cancel()
            self.message.setText("Cancelling after the current file…")
            self.cancel_button.setEnabled(False)

    def _on_progress(self, done: int, total: int, message: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        if message:
            self.message.setText(message)

    def _on_done(self, report) -> None:
        self.request = None
        self.report = report
        self.cancel_button.setEnabled(False)
        files = len(report.files)
        self.progress.setRange(0, max(files, 1))
        self.progress.setValue(files)
        self.heading.setText(f"Imported {self._target}")
        self.results.set_report(report)
        done = "Cancelled: " if report.cancelled else ""
        self.message.setText(f"{done}{len(report.memory_ids)} memories from {report.count('imported')} file(s); "
                             f"{report.count('skipped')} skipped, {report.count('failed')} failed.")
        self.finished_import.emit(report)

    def _on_failed(self, exc: object) -> None:
        self.request = None
        self.cancel_button.setEnabled(False)
        self.progress.setRange(0, 1)
        self.message.setText("Cancelled." if isinstance(exc, Cancelled) else f"Import failed: {exc}")

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.cancel()  # closing the window stops the import; what was imported stays
        super().closeEvent(event)
