"""Browsing: categories (with others found in the vault), sessions, keywords, trash; the models are sound."""

from __future__ import annotations

from PySide6.QtCore import Qt

from memory_curator.gui.models.memory_table import ListFilter
from memory_curator.gui.models.roles import ItemRole


def titles(model) -> set[str]:
    return {model.index(r, 0).data(ItemRole).title for r in range(model.rowCount())}


def select_filter(harness, filt: ListFilter) -> None:
    w = harness.window
    index = w.browse_model.find(filt)
    assert index is not None, filt
    with harness.qtbot.waitSignal(w.list_model.loaded):
        w.browse.setCurrentIndex(index)


def test_browse_a_category_shows_only_its_memories(harness, vault_dir, seeded, qtmodeltester):
    w = harness.open(vault_dir)
    assert w.list_model.rowCount() == len(seeded)
    labels = [w.browse_model.index(r, 0, w.browse_model.index(1, 0)).data()
              for r in range(w.browse_model.rowCount(w.browse_model.index(1, 0)))]
    assert "decisions (4)" in labels and "runbooks (1)" in labels and "context (1)" in labels

    select_filter(harness, ListFilter(category="decisions"))
    assert titles(w.list_model) == {"Vector store", "Python + FastAPI", "Raportointitietokanta", "データベースの決定"}
    assert w.list_label.text() == "Category: decisions: 4"

    select_filter(harness, ListFilter(session_id="s2"))
    assert titles(w.list_model) == {"Login bug session", "User preferences"}
    select_filter(harness, ListFilter(keyword="データベース"))
    assert titles(w.list_model) == {"データベースの決定"}

    qtmodeltester.check(w.list_model)
    qtmodeltester.check(w.browse_model)


def test_sorting_by_a_column_asks_the_engine(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    with harness.qtbot.waitSignal(w.list_model.loaded):
        w.list_view.sortByColumn(2, Qt.SortOrder.AscendingOrder)  # salience, lowest first
    values = [w.list_model.index(r, 0).data(ItemRole).salience for r in range(w.list_model.rowCount())]
    assert values == sorted(values)
    with harness.qtbot.waitSignal(w.list_model.loaded):
        w.list_view.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    names = [w.list_model.index(r, 0).data() for r in range(w.list_model.rowCount())]
    assert names == sorted(names, key=str.lower, reverse=True)
