"""The main window's menus. Every action lives in a menu, so the command palette (which walks the menu bar)
offers every action with its shortcut."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from memory_curator.gui.about import show_about
from memory_curator.gui.windows.conflict_dialog import open_conflicts
from memory_curator.gui.windows.history_dialog import open_history

PALETTE_SHORTCUTS = ("Ctrl+K", "Ctrl+P")


def add_action(window, menu: QMenu, text: str, shortcut, slot, *, shortcuts=()) -> QAction:
    action = QAction(text, window)
    keys = [QKeySequence(s) for s in ((shortcut,) if shortcut is not None else ()) + tuple(shortcuts)]
    keys = [k for k in keys if not k.isEmpty()]  # a standard key this platform has no binding for
    if keys:
        action.setShortcuts(keys)
    action.triggered.connect(lambda _checked=False: slot())
    menu.addAction(action)
    window.addAction(action)  # shortcuts work while the menu bar is hidden (and in the palette's list)
    return action


def build_menus(w) -> None:
    bar = w.menuBar()
    file_menu = bar.addMenu("&File")
    w.vault_actions.populate_file_menu(file_menu)

    edit = bar.addMenu("&Edit")
    w.undo_action = w.undo_stack.createUndoAction(w, "&Undo")
    w.undo_action.setShortcuts(QKeySequence.StandardKey.Undo)
    w.redo_action = w.undo_stack.createRedoAction(w, "&Redo")
    w.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    for action in (w.undo_action, w.redo_action):
        edit.addAction(action)
        w.addAction(action)
    edit.addSeparator()
    # Escape comes back to the search box from the list, the results or the editor.
    w.find_action = add_action(w, edit, "&Find", "Ctrl+F", w.search_bar.focus, shortcuts=("Escape",))
    w.new_action = add_action(w, edit, "&New memory", "Ctrl+N", w.edit_flow.new_memory)
    w.save_action = add_action(w, edit, "&Save memory", "Ctrl+S", w.editor.request_save)
    w.delete_action = add_action(w, edit, "Move to &trash", QKeySequence.StandardKey.Delete,
                                 w.edit_flow.delete_selected)

    go = bar.addMenu("&Go")
    nav = w.navigation
    w.back_action = add_action(w, go, "&Back", "Alt+Left", nav.back)
    w.forward_action = add_action(w, go, "&Forward", "Alt+Right", nav.forward)
    w.open_result_action = add_action(w, go, "&Open in editor", None, w.search_flow.open_editor)
    w.recent_memories_menu = go.addMenu("&Recently viewed")
    nav.changed.connect(lambda: _update_go(w))
    _update_go(w)

    memory = bar.addMenu("&Memory")
    w.vault_actions.populate_memory_menu(memory)
    w.history_action = add_action(w, memory, "&History…", "Ctrl+Shift+H", lambda: open_history(w))

    view = bar.addMenu("&View")
    w.palette_action = add_action(w, view, "&Command palette…", PALETTE_SHORTCUTS[0], w.open_palette,
                                  shortcuts=PALETTE_SHORTCUTS[1:])
    add_action(w, view, "Vault &health", None, lambda: (w.refresh_health(), w.show_pane(w.health)))
    w.conflicts_action = add_action(w, view, "Sync &conflicts…", None, lambda: open_conflicts(w))
    add_action(w, view, "&Why this result", None, lambda: w.show_pane(w.explanation))
    add_action(w, view, "&Inbox", None, lambda: (w.inbox.refresh(), w.show_pane(w.inbox)))

    help_menu = bar.addMenu("&Help")
    w.tour_action = add_action(w, help_menu, "Show the &tour", None, lambda: w.show_tour(force=True))
    w.about_action = add_action(w, help_menu, "&About Memory Curator", None, lambda: show_about(w))


def _update_go(w) -> None:
    nav = w.navigation
    w.back_action.setEnabled(nav.can_go_back())
    w.forward_action.setEnabled(nav.can_go_forward())
    menu = w.recent_memories_menu
    menu.clear()
    for memory_id, title in nav.recent:
        action = menu.addAction(title)
        action.triggered.connect(lambda _c=False, mid=memory_id: nav.open_recent(mid))
    menu.setEnabled(bool(nav.recent))
