"""Opening another vault, recent vaults, settings remembered, Ctrl+F, and restoring from the trash view."""

from __future__ import annotations

from gui_helpers import seed, select_title
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from memory_curator.gui.models.memory_table import ListFilter
from memory_curator.gui.settings import AppSettings
from memory_curator.gui.windows.settings_dialog import SettingsDialog


def test_open_another_vault_and_recent_vaults(harness, vault_dir, seeded, tmp_path, config):
    other = tmp_path / "other"
    seed(other, config, [("Only in the other vault.", "Other", "context", [], None, 0.5)])
    w = harness.open(vault_dir)
    with harness.qtbot.waitSignal(w.vault_opened):
        w.open_vault(other)
    harness.idle()
    assert w.list_model.rowCount() == 1 and w.list_model.item(0).title == "Other"
    assert harness.settings.recent_vaults[:2] == [str(other), str(vault_dir)]
    recent = [a.text() for a in w.vault_actions.recent_menu.actions()]
    assert recent[:2] == [str(other), str(vault_dir)]
    with harness.qtbot.waitSignal(w.vault_opened):
        w.vault_actions.recent_menu.actions()[1].trigger()
    harness.idle()
    assert w.list_model.rowCount() == len(seeded)


def test_settings_are_remembered(qtbot, gui_settings):
    dialog = SettingsDialog(gui_settings)
    qtbot.addWidget(dialog)
    dialog.host.setText("http://192.0.2.10:11434")
    dialog.model.setText("bge-m3")
    dialog.rates["context"].setValue(0.8)
    dialog.vault.setText("/tmp/elsewhere")
    dialog.accept()
    assert str(dialog.chosen_vault()) == "/tmp/elsewhere"
    again = AppSettings(gui_settings.q)
    config = again.memory_config()
    assert again.ollama_model == "bge-m3" and config.ollama_model == "bge-m3"
    assert config.category_decay_rates["context"] == 0.8
    # The environment wins over settings, as on the command line (the tests point OLLAMA_HOST at port 9).
    assert config.ollama_host == "http://127.0.0.1:9"


def test_ctrl_f_focuses_search_and_trash_restores(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    w.activateWindow()
    w.list_view.setFocus()
    harness.qtbot.keyClick(w.list_view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    harness.qtbot.waitUntil(lambda: QApplication.focusWidget() is w.search_bar.edit)

    item = select_title(harness, "Tea" if "Tea" in seeded else "User preferences")
    with harness.qtbot.waitSignal(w.changed):
        w.delete_button.click()
    harness.idle()
    w.browse.setCurrentIndex(w.browse_model.find(ListFilter(trash=True)))
    harness.qtbot.waitUntil(lambda: w.list_model.rowCount() == 1)
    assert w.restore_button.isVisible() and not w.delete_button.isEnabled()
    w.list_view.setCurrentIndex(w.list_model.index(0, 0))
    with harness.qtbot.waitSignal(w.changed):
        w.restore_button.click()
    harness.idle()
    harness.qtbot.waitUntil(lambda: w.list_model.rowCount() == 0)
    w.browse.setCurrentIndex(w.browse_model.find(ListFilter()))
    harness.qtbot.waitUntil(lambda: w.list_model.row_of(item.id) >= 0)


def test_choosing_a_vault_in_settings_opens_it(harness, vault_dir, seeded, tmp_path, config):
    other = tmp_path / "from-settings"
    seed(other, config, [("Chosen in settings.", "Chosen", "context", [], None, 0.5)])
    w = harness.open(vault_dir)

    def fill() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, SettingsDialog):
            QTimer.singleShot(20, fill)
            return
        dialog.vault.setText(str(other))
        dialog.accept()

    QTimer.singleShot(0, fill)
    with harness.qtbot.waitSignal(w.vault_opened, timeout=20000) as opened:
        w.vault_actions.open_settings()
    assert opened.args == [other]
    harness.idle()
    assert w.list_model.item(0).title == "Chosen"
