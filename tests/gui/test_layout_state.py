"""The list gives the room to what matters (the title), and the window comes back as the user left it: column
widths, order and sort, and the splitters' positions."""

from __future__ import annotations

from PySide6.QtCore import Qt

from memory_curator.gui.settings import AppSettings
from memory_curator.gui.windows.main_window import MainWindow


def test_the_title_column_takes_the_room(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    header = w.list_view.horizontalHeader()
    title = header.sectionSize(0)
    others = [header.sectionSize(c) for c in range(1, w.list_model.columnCount())]
    assert title >= 2 * max(others), (title, others)
    assert title >= 0.35 * w.list_view.viewport().width()
    w.resize(1600, 900)
    harness.qtbot.waitUntil(lambda: header.sectionSize(0) > title)  # it stretches with the window
    assert [header.sectionSize(c) for c in range(1, w.list_model.columnCount())] == others


def test_columns_sort_and_splitters_are_remembered(harness, vault_dir, seeded, qtbot):
    w = harness.open(vault_dir)
    header = w.list_view.horizontalHeader()
    header.resizeSection(1, 140)  # Category wider
    header.moveSection(header.visualIndex(2), 1)  # Salience right after the title
    w.list_view.sortByColumn(0, Qt.SortOrder.AscendingOrder)  # by title
    harness.qtbot.waitUntil(lambda: w.list_model.index(0, 0).data() == "Deploy rule")
    results_header = w.results_view.horizontalHeader()
    results_header.resizeSection(2, 130)
    w.splitter.setSizes([150, 700, 430])
    sizes = w.splitter.sizes()
    w.editor.split.setSizes([300, 100])
    editor_sizes = w.editor.split.sizes()
    harness.close()

    again = MainWindow(AppSettings(w.settings.q))
    qtbot.addWidget(again)
    with qtbot.waitSignal(again.vault_opened, timeout=30000):
        again.open_vault(vault_dir, embedder="none")
    again.resize(w.size())  # the offscreen screen is smaller than the window: restoreGeometry shrank it
    again.show()
    header = again.list_view.horizontalHeader()
    assert header.sectionSize(1) == 140 and header.visualIndex(2) == 1
    assert header.sortIndicatorSection() == 0 and header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    qtbot.waitUntil(lambda: again.list_model.index(0, 0).data() == "Deploy rule")  # and the list is sorted so
    assert again.results_view.horizontalHeader().sectionSize(2) == 130
    assert again.splitter.sizes() == sizes and again.editor.split.sizes() == editor_sizes
    qtbot.waitUntil(lambda: not again.engine.busy)
