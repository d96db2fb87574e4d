"""What the list's selection means for the editor, and the undoable changes made from the window.

The editor always shows the row the list points at: when the user keeps unsaved changes (Cancel in the
prompt), the list goes back to the memory being edited once the click that moved it is over, so the selection
bar, Delete and the salience control act on what the editor shows. A trashed memory opens read-only.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox

from memory_curator.core.model import MemoryItem, SearchResult
from memory_curator.gui import commands
from memory_curator.gui.models.roles import IdRole, ItemRole


class EditFlow:
    def __init__(self, window):
        self.w = window

    # -- selection ------------------------------------------------------------------------------------

    def current_view(self):
        return self.w.center_stack.currentWidget()

    def selected_items(self) -> list[MemoryItem]:
        view = self.current_view()
        rows = sorted({i.row() for i in view.selectionModel().selectedRows()})
        values = [view.model().index(r, 0).data(ItemRole) for r in rows]
        return [v.memory if isinstance(v, SearchResult) else v for v in values if v is not None]

    def show_view(self, view) -> None:
        """Bring the list or the results forward. Qt moves the focus (and with it a current row) into the
        view coming forward; that is not the user's choice, so it selects nothing."""
        w = self.w
        if w.center_stack.currentWidget() is view:
            return
        w.switching = True
        try:
            w.center_stack.setCurrentWidget(view)
            view.selectionModel().clear()
        finally:
            w.switching = False

    def in_trash(self) -> bool:
        return self.w.current_filter.trash and self.current_view() is self.w.list_view

    def current_changed(self, current, _previous) -> None:
        w = self.w
        if w.switching or not current.isValid():
            return
        value = current.siblingAtColumn(0).data(ItemRole)
        if isinstance(value, SearchResult):
            w.explanation.show_result(value)
            value = value.memory
        if value is None or value.id == w.editor.loaded_id():
            return
        if not self.confirm_discard():
            # After the click that moved the list is done: a mouse press selects its row after this runs.
            QTimer.singleShot(0, self._reselect_editor_row)
            return
        self.open(value)

    def open(self, item: MemoryItem) -> None:
        """Show ``item`` in the editor (read-only when it is in the trash) and note the visit."""
        w = self.w
        w.editor.load(item, read_only=self.in_trash())
        if w.side.currentWidget() is not w.editor and not (
                w.side.currentWidget() is w.explanation and self.current_view() is w.results_view):
            w.show_pane(w.editor)  # a row chosen: show it (only Why this result stays beside the results)
        w.navigation.visited(item)

    def _reselect_editor_row(self) -> None:
        """The user chose to stay on unsaved changes: point the list back at the memory being edited."""
        w = self.w
        view = self.current_view()
        model = view.model()
        loaded = w.editor.loaded_id()
        row = next((r for r in range(model.rowCount()) if loaded and model.index(r, 0).data(IdRole) == loaded), -1)
        w.switching = True
        try:
            if row >= 0:
                view.setCurrentIndex(model.index(row, 0))
            else:
                view.selectionModel().clearSelection()
        finally:
            w.switching = False
        self.update_selection_bar()

    def update_selection_bar(self, *_args) -> None:
        w = self.w
        items = self.selected_items()
        trash = self.in_trash()
        w.selection_salience.setEnabled(bool(items) and not trash)
        w.delete_button.setEnabled(bool(items) and not trash)
        w.restore_button.setVisible(trash)
        w.restore_button.setEnabled(bool(items))
        w.selection_label.setText(f"Salience of {len(items)} selected" if items else "Salience")
        if items:
            w.selection_salience.set_value(items[0].salience)

    # -- changes (undoable) ---------------------------------------------------------------------------

    def save_editor(self, item: MemoryItem | None, values: dict) -> None:
        w = self.w
        if w.engine is None:
            return
        w._pending_save = dict(values)
        if item is None:
            commands.push_when_done(w.undo_stack, commands.CreateMemory(w, values))
            return
        before = {"title": item.title, "category": item.category, "keywords": list(item.keywords),
                  "session_id": item.session_id or "", "salience": item.salience, "content": item.content}
        changed = {k: v for k, v in values.items() if v != before.get(k)}
        if not changed:
            w.editor.load(item)
            return
        title = values.get("title") or item.title
        commands.push_when_done(w.undo_stack, commands.EditMemory(w, item.id, title, {k: before[k] for k in changed},
                                                            changed))

    def set_selection_salience(self, value: float) -> None:
        items = [it for it in self.selected_items() if abs(it.salience - value) > 1e-9]
        if items:
            commands.push_when_done(self.w.undo_stack, commands.SetSalience(self.w, {it.id: it.salience for it in items},
                                                                      value))

    def delete_selected(self) -> None:
        w = self.w
        items = self.selected_items()
        if not items or self.in_trash():
            return
        if w.editor.loaded_id() in {it.id for it in items}:
            w.editor.load(None)
        label = f"“{commands.short(items[0].title)}”" if len(items) == 1 else f"{len(items)} memories"
        commands.push_when_done(w.undo_stack, commands.DeleteMemories(w, [it.id for it in items], label))

    def restore(self, ids: list[str]) -> None:
        w = self.w
        if ids:
            if w.editor.loaded_id() in ids:
                w.editor.load(None)
            w.track(w.engine.run(lambda svc: svc.restore_many(ids)), "create")

    def restore_selected(self) -> None:
        self.restore([it.id for it in self.selected_items()])

    def new_memory(self) -> None:
        w = self.w
        if not self.confirm_discard():
            return
        w.editor.load(None, category=w.current_filter.category)
        w.show_pane(w.editor)
        w.editor.title.setFocus()

    def confirm_discard(self) -> bool:
        """Unsaved changes are never lost silently: save, discard, or stay."""
        editor = self.w.editor
        if not editor.dirty:
            return True
        box = QMessageBox(QMessageBox.Icon.Question, "Unsaved changes",
                          f"“{editor.title.text() or 'New memory'}” has unsaved changes.",
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self.w)
        box.setObjectName("unsavedChangesBox")
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        if answer == QMessageBox.StandardButton.Save:
            editor.request_save()
            editor.load(editor.item)  # the save is queued; its result refreshes the list
            return True
        if answer == QMessageBox.StandardButton.Discard:
            editor.load(editor.item)
            return True
        return False
