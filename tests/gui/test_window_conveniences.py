"""What a user of a polished desktop app expects: a command palette for every action, back/forward through the
memories opened, a first-run tour that stays dismissed, and names on every control for screen readers."""

from __future__ import annotations

import gc

from gui_helpers import select_title
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
)

from memory_curator.gui.accessibility import unnamed_controls
from memory_curator.gui.app import start
from memory_curator.gui.settings import AppSettings
from memory_curator.gui.widgets.command_palette import CommandPalette, menu_actions
from memory_curator.gui.widgets.inbox import InboxEditDialog, MergeTargetDialog
from memory_curator.gui.widgets.tour import Tour
from memory_curator.gui.windows.history_dialog import HistoryDialog
from memory_curator.gui.windows.main_window import MainWindow
from memory_curator.gui.windows.settings_dialog import SettingsDialog


def test_the_command_palette_lists_every_menu_action_with_its_shortcut_and_runs_one(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    harness.qtbot.keyClick(w, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    palette = w.findChild(CommandPalette)
    assert palette is not None and palette.isVisible()
    paths = palette.shown_paths()
    assert len(paths) == len(menu_actions(w.menuBar())) > 20
    assert "File › Import files…   Ctrl+I" in paths and "View › Command palette…   Ctrl+K, Ctrl+P" in paths
    assert "File › Settings…" in paths  # no shortcut on this platform: no empty one shown

    harness.qtbot.keyClicks(palette.edit, "vault health")
    assert palette.shown_paths() == ["View › Vault health"]
    harness.qtbot.keyClick(palette.edit, Qt.Key.Key_Return)
    assert not palette.isVisible() and w.side.currentWidget() is w.health

    harness.qtbot.keyClick(w, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)  # Obsidian's and VS Code's key
    assert any(p.isVisible() for p in w.findChildren(CommandPalette))


def test_back_and_forward_go_through_the_memories_opened(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    assert not w.back_action.isEnabled()
    for title in ("Vector store", "Deploy rule", "User preferences"):
        select_title(harness, title)
    assert w.back_action.isEnabled() and not w.forward_action.isEnabled()

    harness.qtbot.keyClick(w.list_view, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    harness.qtbot.waitUntil(lambda: w.editor.title.text() == "Deploy rule")
    w.back_action.trigger()
    harness.qtbot.waitUntil(lambda: w.editor.title.text() == "Vector store")
    assert w.list_view.currentIndex().data() == "Vector store"  # the list points at what the editor shows
    assert w.forward_action.isEnabled()
    harness.qtbot.keyClick(w.list_view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    harness.qtbot.waitUntil(lambda: w.editor.title.text() == "Deploy rule")

    recent = [a.text() for a in w.recent_memories_menu.actions()]
    assert recent == ["Deploy rule", "Vector store", "User preferences"]


def test_recently_viewed_memories_are_there_at_the_next_start(harness, vault_dir, seeded, qtbot):
    w = harness.open(vault_dir)
    for title in ("Vector store", "Deploy rule"):
        select_title(harness, title)
    harness.close()

    again = MainWindow(AppSettings(w.settings.q))
    qtbot.addWidget(again)
    with qtbot.waitSignal(again.vault_opened, timeout=30000):
        again.open_vault(vault_dir, embedder="none")
    recent = again.recent_memories_menu.actions()
    assert [a.text() for a in recent] == ["Deploy rule", "Vector store"] and again.recent_memories_menu.isEnabled()
    recent[1].trigger()
    qtbot.waitUntil(lambda: again.editor.title.text() == "Vector store")
    qtbot.waitUntil(lambda: not again.engine.busy)
    again.close()


def test_a_memory_opened_from_history_outside_the_list_selects_nothing_else(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    select_title(harness, "Vector store")
    select_title(harness, "Deploy rule")
    runbooks = w.browse_model.find(w.current_filter.__class__(category="runbooks"))
    w.browse.setCurrentIndex(runbooks)  # "Vector store" is not in this list
    harness.qtbot.waitUntil(lambda: w.list_model.rowCount() == 1)
    w.back_action.trigger()
    harness.qtbot.waitUntil(lambda: w.editor.title.text() == "Vector store")
    assert w.selected_items() == []  # Delete and salience act on nothing the editor does not show


def test_the_first_run_tour_has_three_steps_and_stays_dismissed(qtbot, gui_settings, tmp_path):
    w = MainWindow(gui_settings)
    qtbot.addWidget(w)
    w.show()
    tour = w.show_tour()
    assert tour is not None and tour.isVisible()
    titles = []
    for _ in range(3):
        titles.append(tour.heading.text())
        qtbot.mouseClick(tour.next_button, Qt.MouseButton.LeftButton)
    assert titles == ["<b>Search</b>", "<b>Edit</b>", "<b>Import</b>"] and not tour.isVisible()
    again = MainWindow(AppSettings(gui_settings.q))
    qtbot.addWidget(again)
    assert again.show_tour() is None  # not at the next start
    assert again.show_tour(force=True) is not None  # but from Help › Show the tour


def test_escape_closes_the_tour_as_skip_does_wherever_the_focus_is(qtbot, gui_settings):
    """Escape did nothing to the tour (it went to Edit › Find, which only focused the search box)."""
    w = MainWindow(gui_settings)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    for focus in ("next_button", "search_bar"):
        tour = w.show_tour(force=True)
        target = tour.next_button if focus == "next_button" else w.search_bar.edit
        target.setFocus()
        qtbot.waitUntil(target.hasFocus)
        with qtbot.waitSignal(tour.finished, timeout=2000):
            qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
        assert not tour.isVisible() and gui_settings.tour_done
    w.list_view.setFocus()  # the tour gone, Escape is Edit › Find's again: back to the search box
    qtbot.waitUntil(w.list_view.hasFocus)
    qtbot.keyClick(w.list_view, Qt.Key.Key_Escape)
    assert w.search_bar.edit.hasFocus()


def test_the_tour_opens_at_the_first_start_and_not_after_it_was_skipped(qtbot, gui_settings, vault_dir, seeded):
    def started(settings):
        w = start(settings, vault_dir)
        qtbot.addWidget(w)
        qtbot.waitUntil(lambda: w.list_model.rowCount() > 0 and not w.engine.busy, timeout=30000)
        return w

    w = started(gui_settings)
    qtbot.waitUntil(lambda: w.findChild(Tour) is not None and w.findChild(Tour).isVisible())
    assert w.findChild(Tour).heading.text() == "<b>Search</b>"
    qtbot.mouseClick(w.findChild(Tour).skip_button, Qt.MouseButton.LeftButton)
    w.close()
    again = started(AppSettings(gui_settings.q))
    qtbot.wait(50)  # the turn of the event loop at which the tour would open
    assert not [t for t in again.findChildren(Tour) if t.isVisible()]
    again.close()


def test_start_exempts_the_window_but_not_the_vault_from_the_collectors_full_passes(qtbot, gui_settings, vault_dir,
                                                                                  seeded):
    """A full pass over start-up's objects stalled the list 67-87 ms; the vault's engine must stay collectable
    (opening another vault drops it, and its cycles hold the vectors' codes)."""
    w = start(gui_settings, vault_dir, ask=False)
    qtbot.addWidget(w)
    qtbot.waitUntil(lambda: w.list_model.rowCount() > 0 and not w.engine.busy, timeout=30000)
    collectable = {id(o) for o in gc.get_objects()}  # the frozen generation is not among them
    assert gc.get_freeze_count() > 10_000
    assert id(w) not in collectable and id(w.engine) in collectable
    w.close()


def test_each_tour_card_shows_its_whole_text_inside_the_window(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    tour = w.show_tour(force=True)
    for step in range(3):
        tour.go(step)
        body = tour.body
        assert body.height() >= body.heightForWidth(body.width()), tour.heading.text()  # no line cut off
        assert w.rect().contains(tour.geometry()), tour.heading.text()
    tour.finish()


def test_every_control_has_an_accessible_name_and_tab_reaches_the_results(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    assert [f"{type(c).__name__} {c.objectName()!r}" for c in unnamed_controls(w)] == []

    w.search_bar.edit.setFocus()
    seen = []
    for _ in range(12):  # up to the editor's title (in the markdown text, Tab indents)
        harness.qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        seen.append(QApplication.focusWidget())
    assert w.list_view in seen and seen.index(w.list_view) < seen.index(w.editor.title)
    w.editor.load(w.editor.item)  # whatever the tabbing typed, closing asks nothing


def test_every_control_of_the_dialogs_has_an_accessible_name(harness, vault_dir, seeded, tmp_path):
    w = harness.open(vault_dir)
    settings = SettingsDialog(w.settings, w, categories=["decisions"])
    assert settings.host.accessibleName() == "Ollama host"  # the form row's label, though a layout holds it
    assert settings.api_token.edit.accessibleName() == "HTTP API token"
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nA note.\n", encoding="utf-8")
    importing = w.vault_actions.import_paths([folder])
    harness.qtbot.waitUntil(lambda: importing.report is not None, timeout=30000)
    select_title(harness, "Vector store")
    select_title(harness, "Deploy rule", extend=True)
    consolidating = w.vault_actions.consolidate_selected()
    assert consolidating.sources.accessibleName() == "Memories to consolidate"  # the label above it
    item = w.selected_items()[0]
    dialogs = [settings, importing, consolidating, w.open_palette(), w.show_tour(force=True),
               HistoryDialog(w.engine, item, w.track, w), InboxEditDialog(item, w), MergeTargetDialog(w.engine, item, w)]
    for dialog in dialogs:
        dialog.show()
        unnamed = [f"{type(c).__name__} {c.objectName()!r}" for c in unnamed_controls(dialog)]
        assert unnamed == [], (type(dialog).__name__, unnamed)
    for dialog in dialogs:
        dialog.close()
