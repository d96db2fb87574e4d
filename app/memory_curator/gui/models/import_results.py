"""Per-file import results (file, result, memories, details), listed as each file finishes and then over
the whole ImportReport, without copying it into thousands of cell items: a 1,000-file import lists at once."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt

from memory_curator.gui.models.import_summary import reason
from memory_curator.gui.models.table import ROOT, RowsTableModel

COLUMNS = ("File", "Result", "Memories", "Details")


class ImportResultsModel(RowsTableModel):
    columns = COLUMNS

    def append(self, result) -> None:
        """One file's result while the import runs (``set_report`` puts the failures first at the end)."""
        row = len(self._rows)
        self.beginInsertRows(ROOT, row, row)
        self._rows.append(result)
        self.endInsertRows()

    def set_report(self, report) -> None:
        self.beginResetModel()
        # Failures first: they are what a user has to act on.
        self._rows = sorted(report.files, key=lambda f: f.status != "failed") if report is not None else []
        self.endResetModel()

    def data(self, index: QModelIndex | QPersistentModelIndex, role=Qt.ItemDataRole.DisplayRole):
        f = self.row_at(index)
        if f is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            memories = len(f.memory_ids) + len(getattr(f, "updated_ids", ()))
            return (Path(f.path).name, f.status, str(memories), reason(f))[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return f.path if index.column() == 0 else (reason(f) or None)
        return None
