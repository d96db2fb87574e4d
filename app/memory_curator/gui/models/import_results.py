"""Per-file import results (file, result, memories, details) over an ImportReport, without copying it
into thousands of cell items: a 1,000-file import is listed at once."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

COLUMNS = ("File", "Result", "Memories", "Details")
_ROOT = QModelIndex()


class ImportResultsModel(QAbstractTableModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._files: list = []

    def set_report(self, report) -> None:
        self.beginResetModel()
        # Failures first: they are what a user has to act on.
        self._files = sorted(report.files, key=lambda f: f.status != "failed") if report is not None else []
        self.endResetModel()

    def rowCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(self._files)

    def columnCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not (0 <= index.row() < len(self._files)):
            return None
        f = self._files[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            details = f.error or "; ".join(f.warnings) or (f.importer or "")
            return (Path(f.path).name, f.status, str(len(f.memory_ids)), details)[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return f.path if index.column() == 0 else (f.error or None)
        return None
