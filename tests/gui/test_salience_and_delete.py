"""Salience for one memory and for a selection (keyboard and spin box); delete to trash and undo."""

from __future__ import annotations

from gui_helpers import file_text, search, select_title
from PySide6.QtCore import Qt

from memory_curator.gui.models.memory_table import ListFilter


def salience_in_file(vault, item_id: str) -> float:
    line = next(ln for ln in file_text(vault, item_id).splitlines() if ln.startswith("salience:"))
    return float(line.split(":")[1])


def test_salience_for_one_memory_with_the_keyboard(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    item = select_title(harness, "User preferences")  # salience 0.5
    slider = w.selection_salience.slider
    slider.setFocus()
    with harness.qtbot.waitSignal(w.changed, timeout=5000):
        for _ in range(3):
            harness.qtbot.keyClick(slider, Qt.Key.Key_Right)
        harness.qtbot.keyClick(slider, Qt.Key.Key_PageUp)
    assert salience_in_file(vault_dir, item.id) == 0.63
    assert w.list_model.index(w.list_model.row_of(item.id), 2).data() == "0.63"
    assert w.editor.salience.value() == 0.63  # the open editor follows


def test_salience_for_a_selection_and_undo(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    a = select_title(harness, "Vector store")
    b = select_title(harness, "Deploy rule", extend=True)
    c = select_title(harness, "Login bug session", extend=True)
    assert w.selection_label.text() == "Salience of 3 selected"
    with harness.qtbot.waitSignal(w.changed, timeout=5000):
        w.selection_salience.spin.setValue(0.25)
    assert [salience_in_file(vault_dir, x.id) for x in (a, b, c)] == [0.25, 0.25, 0.25]
    with harness.qtbot.waitSignal(w.changed):
        harness.qtbot.keyClick(w.list_view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert [salience_in_file(vault_dir, x.id) for x in (a, b, c)] == [0.9, 0.4, 0.6]


def test_delete_moves_to_trash_and_undo_restores(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    item = select_title(harness, "Deploy rule")
    before = file_text(vault_dir, item.id)
    with harness.qtbot.waitSignal(w.changed):
        harness.qtbot.keyClick(w.list_view, Qt.Key.Key_Delete)
    harness.idle()
    assert w.list_model.row_of(item.id) == -1
    trashed = list((vault_dir / ".trash").rglob("*.md"))
    assert len(trashed) == 1 and f"id: {item.id}" in trashed[0].read_text(encoding="utf-8")

    index = w.browse_model.find(ListFilter(trash=True))
    assert w.browse_model.data(index) == "Trash (1)"

    with harness.qtbot.waitSignal(w.changed):
        harness.qtbot.keyClick(w.list_view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    harness.idle()
    assert file_text(vault_dir, item.id) == before
    assert w.list_model.row_of(item.id) >= 0
    with harness.qtbot.waitSignal(w.changed):  # and redo deletes it again
        harness.qtbot.keyClick(w.list_view, Qt.Key.Key_Z,
                               Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    harness.idle()
    assert w.list_model.row_of(item.id) == -1


def test_pin_a_selection_from_the_memory_menu(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    a = select_title(harness, "Vector store")
    b = select_title(harness, "Deploy rule", extend=True)
    with harness.qtbot.waitSignal(w.changed):
        harness.qtbot.keyClick(w.list_view, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    for item in (a, b):
        assert "pinned: true" in file_text(vault_dir, item.id)
        assert w.list_model.index(w.list_model.row_of(item.id), 0).data(Qt.ItemDataRole.FontRole).bold()
    with harness.qtbot.waitSignal(w.changed):
        harness.qtbot.keyClick(w.list_view, Qt.Key.Key_D,
                               Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert "pinned: true" not in file_text(vault_dir, a.id)


def test_the_selection_slider_keeps_its_width_beside_a_long_result_line(harness, vault_dir, seeded):
    """In a real window of the default size, "2 results for “which database” (hybrid), 18 weaker" took the
    bar's width and left the selection's salience slider a stub of 15 px; a longer query held the centre pane
    wider than the window let it be."""
    w = harness.open(vault_dir)
    w.resize(1000, 800)
    harness.qtbot.wait(50)
    browsing = w.center_stack.width()
    search(harness, "vector store sqlite fastapi deploy rule login bug session preferences", "keyword")
    harness.qtbot.waitUntil(lambda: w.selection_label.text() == "Salience of 1 selected")
    for width in (1280, 1000):
        w.resize(width, 800)
        harness.qtbot.wait(50)
        assert w.selection_salience.slider.width() >= 80
    assert w.center_stack.width() <= browsing


def test_the_result_line_ends_in_an_ellipsis_where_it_does_not_fit(harness, vault_dir, seeded):
    """With a memory selected ('Salience of 1 selected' beside it) the line was clipped mid-word in a real 1280 px
    window: '2 results for “database choice” (hybri'. It now ends in "…" and its tooltip holds the whole text."""
    w = harness.open(vault_dir)
    search(harness, "vector store sqlite fastapi deploy rule login bug session preferences", "keyword")
    harness.qtbot.waitUntil(lambda: w.selection_label.text() == "Salience of 1 selected")
    whole = w.list_label.text()
    assert w.list_label.toolTip() == whole
    w.resize(1000, 800)
    harness.qtbot.wait(50)
    shown = w.list_label.shown_text()
    assert w.list_label.fontMetrics().horizontalAdvance(whole) > w.list_label.contentsRect().width()
    assert shown.endswith("…") and whole.startswith(shown[:-1])
    w.resize(1800, 800)
    harness.qtbot.wait(50)
    assert w.list_label.shown_text() == whole
