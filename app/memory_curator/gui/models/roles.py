"""Item data roles shared by the app's models."""

from PySide6.QtCore import Qt

ItemRole = Qt.ItemDataRole.UserRole + 1  # the MemoryItem (or SearchResult) behind a row
IdRole = Qt.ItemDataRole.UserRole + 2  # the memory id
FilterRole = Qt.ItemDataRole.UserRole + 3  # browse pane: (kind, value) to filter the list by
SortRole = Qt.ItemDataRole.UserRole + 4
