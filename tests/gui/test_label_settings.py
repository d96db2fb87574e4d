"""The vault's label set is edited in Settings' Labels tab (issue 11 item 3): add, rename and remove labels and
their examples; saved in the vault, so the reopened vault labels new memories with it; a bad name is refused
with a message and nothing is saved."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from memory_curator.core.graph.labelling import label_set_of
from memory_curator.core.vault.settings import VaultSettings
from memory_curator.core.vault.store import STATE_DIR
from memory_curator.gui.windows.label_set_tab import EXAMPLES, NAME
from memory_curator.gui.windows.settings_dialog import SettingsDialog


def _row(tab, name: str) -> int:
    return next(r for r in range(tab.table.rowCount()) if tab.table.item(r, NAME).text() == name)


def test_labels_edited_in_settings_are_the_vaults_and_label_new_memories(harness, vault_dir, qtbot):
    w = harness.open(vault_dir)
    seen: list[str] = []

    def edit_and_save() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, SettingsDialog):
            QTimer.singleShot(20, edit_and_save)
            return
        tab = dialog.labels_tab
        seen.extend(tab.table.item(r, NAME).text() for r in range(tab.table.rowCount()))
        tab.table.item(_row(tab, "event"), NAME).setText("quest")  # rename
        tab.table.item(_row(tab, "quest"), EXAMPLES).setText("quest, mission, errand")
        tab.table.selectRow(_row(tab, "location"))
        tab.remove_button.click()
        tab.add_button.click()
        tab.table.item(tab.table.rowCount() - 1, NAME).setText("Bad Name!")
        tab.table.item(tab.table.rowCount() - 1, EXAMPLES).setText("loot, treasure")
        dialog.accept()  # refused: the tab says what to fix, the dialog stays open
        assert dialog.isVisible() and "Bad Name!" in tab.error.text()
        tab.table.item(tab.table.rowCount() - 1, NAME).setText("loot")
        dialog.accept()

    QTimer.singleShot(0, edit_and_save)
    w.vault_actions.open_settings()
    assert {"event", "location", "favor_owed"} <= set(seen)  # the default set was shown
    saved = label_set_of(VaultSettings(vault_dir / STATE_DIR))
    assert set(saved) == {"quest", "npc_relationship", "favor_owed", "loot"}
    assert saved["quest"] == ["quest", "mission", "errand"] and saved["loot"] == ["loot", "treasure"]
    qtbot.waitUntil(lambda: w.engine is not None and w.engine.vault == vault_dir, timeout=30000)
    harness.idle()
    text = "A mission to find the treasure and the loot in the tower."
    req = w.engine.run(lambda svc: svc.save(text, title="Errand"))
    with qtbot.waitSignal(req.done, timeout=20000) as got:
        pass
    labels = got.args[0].extra["labels"]
    assert {"quest", "loot"} <= set(labels) and "location" not in labels  # the reopened vault uses the new set


def test_an_unchanged_label_set_is_not_written(qtbot, gui_settings, vault_dir):
    vs = VaultSettings(vault_dir / STATE_DIR)
    dialog = SettingsDialog(gui_settings, vault_settings=vs)
    qtbot.addWidget(dialog)
    dialog.accept()
    assert vs.get("labels") is None  # the default stays the default: nothing pinned in the vault
