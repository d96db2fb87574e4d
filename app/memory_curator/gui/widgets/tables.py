"""Table views set up for long lists: fixed row heights (no per-row measuring), rows selected whole."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView


def make_table(stretch_column: int, object_name: str) -> QTableView:
    view = QTableView()
    view.setObjectName(object_name)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.setShowGrid(False)
    view.setTabKeyNavigation(False)  # Tab leaves the list for the next control; arrows move in it
    view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    rows = view.verticalHeader()
    rows.setVisible(False)
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    rows.setDefaultSectionSize(view.fontMetrics().height() + 10)
    cols = view.horizontalHeader()
    cols.setHighlightSections(False)
    cols.setStretchLastSection(False)
    cols.setDefaultSectionSize(110)
    view.stretch_column = stretch_column
    return view


def stretch(view: QTableView, widths: dict[int, int]) -> None:
    """Call after setModel: fixed widths for the short columns; the title or snippet takes the rest."""
    header = view.horizontalHeader()
    for column, width in widths.items():
        header.resizeSection(column, width)
    header.setSectionResizeMode(view.stretch_column, QHeaderView.ResizeMode.Stretch)
