"""Import: files and folders (PDF, markdown, text) into memories, with progress, Cancel, and a result per file.

The engine's ``import_paths`` does the reading; a failing file is listed with its reason and never stops
the rest."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTableView,
    QVBoxLayout,
)

from memory_curator.core.errors import Cancelled
from memory_curator.gui.models.import_results import ImportResultsModel
from memory_curator.gui.models.import_summary import details, headline
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
        self._category: str | None = None
        self._total = 0  # files to read, from the engine's progress: a cancelled bar stays at "621 of 1,000"
        self.heading = QLabel()
        self.heading.setObjectName("importHeadline")
        self.heading.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m files")
        self.message = QLabel()
        self.results = ImportResultsModel(self)
        self.table = QTableView()
        self.table.setModel(self.results)
        self.table.setAccessibleName("Files and what became of them")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(0, 200)
        self.table.setWordWrap(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        # The selected file's reason in full, wrapped and selectable (a row shows what fits in its lines).
        self.details = QLabel()
        self.details.setObjectName("importDetails")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table.selectionModel().currentRowChanged.connect(self._show_details)
        self.cancel_button = QPushButton("Cancel")
        self.close_button = QPushButton("Close")
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button.clicked.connect(self.close)
        self.file_imported.connect(self.results.append)  # queued: the engine emits it from its thread
        buttons = QHBoxLayout()
        buttons.addWidget(self.message, 1)
        # Files changed both on disk and here were skipped: the dialog asks whether the files' versions win.
        self.replace_button = QPushButton()
        self.replace_button.setVisible(False)
        self.replace_button.clicked.connect(self.replace_edited)
        buttons.addWidget(self.replace_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.close_button)
        lay = QVBoxLayout(self)
        lay.addWidget(self.heading)
        lay.addWidget(self.progress)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.details)
        lay.addLayout(buttons)

    @property
    def running(self) -> bool:
        return self.request is not None

    def start(self, paths: list[Path], category: str | None = None, replace_edited: bool = False) -> Request:
        if self.running:
            self.cancel()
        self._category = category
        self.replace_button.setVisible(False)
        names = ", ".join(p.name for p in paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
        self._target = names + (f" into {category}" if category else "")
        self.heading.setText(f"Importing {self._target}…")
        self.progress.setRange(0, 0)
        self._total = 0
        self.results.set_report(None)
        self.details.clear()
        self.message.setText("Reading files…")
        self.cancel_button.setEnabled(True)
        req = self.engine.call("import_paths", [str(p) for p in paths], category=category, long=True, job=True,
                               on_file=self.file_imported.emit, replace_edited=replace_edited)
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
        self._total = total
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        if message:
            self.message.setText(message)

    def _on_done(self, report) -> None:
        self.request = None
        self.report = report
        self.cancel_button.setEnabled(False)
        files = len(report.files)
        total = max(self._total, files)
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(files)
        self.heading.setText(headline(report, total))
        self.results.set_report(report)
        self._fit_rows()
        self.message.setText("")
        if self.results.rowCount():
            self.table.selectRow(0)  # failures come first: the first reason to read is shown in full
        conflicts = self.conflicts()
        self.replace_button.setText(f"Use the files' versions ({len(conflicts)})…")
        self.replace_button.setVisible(bool(conflicts))
        self.finished_import.emit(report)

    def conflicts(self) -> list[Path]:
        """Files skipped because they changed both on disk and in this vault since their import."""
        return [Path(f.path) for f in (self.report.files if self.report else []) if f.conflict]

    def replace_edited(self) -> Request | None:
        """Ask, then import the conflicting files again, their versions replacing the edits made here."""
        files = self.conflicts()
        names = ", ".join(p.name for p in files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
        answer = QMessageBox.question(
            self, "Use the files' versions",
            f"{names} changed on disk, and their memories were edited in this vault too. Replace those edits "
            "with the files' text? (History keeps the edited versions when it is on.)")
        if answer != QMessageBox.StandardButton.Yes:
            return None
        return self.start(files, self._category, replace_edited=True)

    def _fit_rows(self) -> None:
        """Rows with a reason grow to show it whole (the first few hundred: measuring each costs a layout)."""
        for row in range(min(self.results.rowCount(), 300)):
            if "\n" in (text := self.results.index(row, 3).data() or "") or len(text) > 40:
                self.table.resizeRowToContents(row)

    def _show_details(self, current, _previous=None) -> None:
        f = self.results.row_at(current)
        self.details.setText(details(f) if f is not None else "")

    def _on_failed(self, exc: object) -> None:
        self.request = None
        self.cancel_button.setEnabled(False)
        self.progress.setRange(0, 1)
        self.message.setText("Cancelled." if isinstance(exc, Cancelled) else f"Import failed: {exc}")

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.cancel()  # closing the window stops the import; what was imported stays
        super().closeEvent(event)
