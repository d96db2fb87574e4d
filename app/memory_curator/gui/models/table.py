"""The base of the flat tables (memory list, search results, import results): a Python list of rows shown
under fixed column titles. Subclasses say how a row renders; counting and headers live here once."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

ROOT = QModelIndex()  # the invisible root: the default parent of a table's rows


class RowsTableModel(QAbstractTableModel):
    columns: tuple[str, ...] = ()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows: list[Any] = []

    def rowCount(self, parent=ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=ROOT) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(self.columns):
            return self.columns[section]
        return None

    def row_at(self, index: QModelIndex | QPersistentModelIndex) -> Any | None:
        """The row behind a valid index of this table, else None."""
        if not index.isValid() or not (0 <= index.row() < len(self._rows)):
            return None
        return self._rows[index.row()]

    def row_changed(self, row: int) -> None:
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.columns) - 1))
