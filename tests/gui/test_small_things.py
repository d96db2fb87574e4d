"""The smaller things of #17 item 10, on the real main window offscreen: Ctrl+Z from a spin box, the Editor
tab brought forward by a selection, "All memories" leaving the search results, the Inbox's From and times on
the sample vault, and Export from the window."""

from __future__ import annotations

import json

from gui_helpers import search, select_title
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memory_curator.gui import resources
from memory_curator.gui.models.memory_table import ListFilter


def test_ctrl_z_in_the_salience_spin_box_undoes_the_change(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    item = select_title(harness, "Deploy rule")
    spin = w.selection_salience.spin
    with harness.qtbot.waitSignal(w.changed, timeout=10000):
        spin.setValue(0.95)
    harness.qtbot.waitUntil(lambda: w.undo_stack.count() == 1)
    w.activateWindow()
    spin.setFocus()
    harness.qtbot.waitUntil(lambda: QApplication.focusWidget() is spin)
    with harness.qtbot.waitSignal(w.changed, timeout=10000):
        harness.qtbot.keyClick(spin, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    harness.idle()
    assert w.undo_stack.index() == 0  # undone, from the spin box
    harness.qtbot.waitUntil(lambda: w.list_model.item(w.list_view.currentIndex().row()).salience == item.salience)


def test_selecting_a_row_brings_the_editor_forward(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    for pane in (w.explanation, w.health, w.inbox):
        w.show_pane(pane)
        select_title(harness, "Deploy rule" if pane is not w.health else "Vector store")
        assert w.side.currentWidget() is w.editor, pane.accessibleName()
        w.list_view.selectionModel().clear()
        w.editor.load(None)


def test_clicking_the_selected_all_memories_leaves_the_search_results(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    search(harness, "deploy", "keyword")
    assert w.current_view() is w.results_view
    index = w.browse_model.find(ListFilter())
    assert w.browse.currentIndex() == index  # "All memories" is the node already selected
    harness.qtbot.mouseClick(w.browse.viewport(), Qt.MouseButton.LeftButton, pos=w.browse.visualRect(index).center())
    harness.qtbot.waitUntil(lambda: w.current_view() is w.list_view)
    assert w.search_bar.edit.text() == ""
    harness.qtbot.waitUntil(lambda: w.list_label.text().endswith(f": {len(seeded)}"))


def test_the_inbox_names_who_wrote_the_sample_memories_and_when_in_words(harness, vault_dir):
    resources.copy_sample_vault(vault_dir)
    w = harness.open(vault_dir)
    pane = w.inbox
    harness.qtbot.waitUntil(lambda: len(pane.items) > 0, timeout=10000)
    for i in range(pane.table.topLevelItemCount()):
        row = pane.table.topLevelItem(i)
        assert row.text(1) not in ("?", "") and "T" not in row.text(3) and "Z" not in row.text(3)
        assert len(row.text(3)) == len("2026-11-23 00:51")


def test_export_from_the_window_writes_what_the_cli_would(harness, vault_dir, seeded, tmp_path):
    w = harness.open(vault_dir)
    assert any(a.text() == "&Export…" for a in w.menuBar().actions()[0].menu().actions())
    dest = tmp_path / "backup.json"
    with harness.qtbot.waitSignal(w.vault_actions.exporter.export("json", dest).done, timeout=10000):
        pass
    data = json.loads(dest.read_text(encoding="utf-8"))
    assert len(data["memories"]) == len(seeded)
    assert w.status.currentMessage() == f"Exported {len(seeded)} memories to {dest}."
    folder = tmp_path / "decisions-only"
    with harness.qtbot.waitSignal(w.vault_actions.exporter.export("markdown", folder, "decisions").done,
                                  timeout=10000):
        pass
    assert len(list(folder.rglob("*.md"))) == 4 and not (folder / "runbooks").exists()
