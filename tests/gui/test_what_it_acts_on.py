"""What the window shows is what it acts on: the list and the editor never disagree, a trashed memory is read
only, and a change that failed leaves nothing to undo."""

from __future__ import annotations

from gui_helpers import answer_next_box, select_title
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from memory_curator.core.service import MemoryService
from memory_curator.gui.models.memory_table import ListFilter
from memory_curator.gui.models.roles import IdRole


def _row(w, title: str) -> int:
    return next(r for r in range(w.list_model.rowCount()) if w.list_model.index(r, 0).data() == title)


def test_cancel_on_unsaved_changes_after_a_click_puts_the_list_back(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    a = select_title(harness, "Vector store")
    w.editor.source.setPlainText("an edit of A")
    b_index = w.list_model.index(_row(w, "Deploy rule"), 0)
    answer_next_box(QMessageBox.StandardButton.Cancel)
    harness.qtbot.mouseClick(w.list_view.viewport(), Qt.MouseButton.LeftButton,
                             pos=w.list_view.visualRect(b_index).center())
    harness.qtbot.waitUntil(lambda: w.list_view.currentIndex().data(IdRole) == a.id)
    assert [it.id for it in w.selected_items()] == [a.id]  # the selection bar and Delete act on A
    assert w.selection_salience.value() == a.salience
    assert w.editor.loaded_id() == a.id and w.editor.dirty

    answer_next_box(QMessageBox.StandardButton.Discard)  # clicking B again does load it
    harness.qtbot.mouseClick(w.list_view.viewport(), Qt.MouseButton.LeftButton,
                             pos=w.list_view.visualRect(b_index).center())
    harness.qtbot.waitUntil(lambda: w.editor.title.text() == "Deploy rule")


def test_a_trashed_memory_opens_read_only_with_restore(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    select_title(harness, "Deploy rule")
    with harness.qtbot.waitSignal(w.changed):
        w.delete_button.click()
    w.browse.setCurrentIndex(w.browse_model.find(ListFilter(trash=True)))
    harness.qtbot.waitUntil(lambda: w.list_model.rowCount() == 1)
    select_title(harness, "Deploy rule")
    editor = w.editor
    assert editor.read_only and editor.source.isReadOnly() and editor.title.isReadOnly()
    assert editor.restore_button.isVisible() and not editor.save_button.isVisible()
    harness.qtbot.keyClicks(editor.title, "typed")
    harness.qtbot.keyClick(editor.title, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert not editor.dirty and w.undo_stack.count() == 1  # only the delete

    with harness.qtbot.waitSignal(w.changed):
        editor.restore_button.click()
    harness.qtbot.waitUntil(lambda: w.list_model.rowCount() == 0)
    assert not editor.read_only and editor.title.text() == "Deploy rule"  # restored, and editable again


def test_a_change_that_failed_is_not_offered_for_undo(harness, vault_dir, seeded, config):
    w = harness.open(vault_dir)
    item = select_title(harness, "Deploy rule")
    with MemoryService.open(vault_dir, embedder="none", config=config) as other:
        other.delete(item.id)  # another process trashes it while it is open here
    w.editor.source.setPlainText("an edit nobody can save")
    messages = answer_next_box(QMessageBox.StandardButton.Ok)  # the failure is shown in a message box
    w.save_action.trigger()
    harness.qtbot.waitUntil(lambda: bool(messages), timeout=10000)
    assert item.id in messages[0] or "No memory" in messages[0]
    assert w.undo_stack.count() == 0 and not w.undo_action.isEnabled()
    w.editor.load(w.editor.item)


def test_the_undo_entry_quotes_a_short_title(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    select_title(harness, "Vector store")
    w.editor.title.setText("A title that goes on and on " * 6)
    w.editor.title.textEdited.emit(w.editor.title.text())
    with harness.qtbot.waitSignal(w.changed):
        w.save_action.trigger()
    harness.qtbot.waitUntil(lambda: w.undo_stack.count() == 1)
    assert len(w.undo_action.text()) < 60 and w.undo_action.text().endswith("…”")
