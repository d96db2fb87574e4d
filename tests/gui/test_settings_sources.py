"""Settings keep temporary choices temporary (#17 item 4): each value says where it comes from, Save writes
only what the user changed, "Keep the vault's model" is remembered, and the switch is offered in the window;
every category of the vault has its decay rate (item 10), and the token's hint is not cut off."""

from __future__ import annotations

from gui_helpers import answer_next_box
from PySide6.QtWidgets import QMessageBox

from memory_curator.core.config import MemoryConfig
from memory_curator.core.embed.base import EmbedderSpec
from memory_curator.core.vault.settings import VaultSettings
from memory_curator.gui.settings import AppSettings
from memory_curator.gui.windows.main_window import MainWindow
from memory_curator.gui.windows.settings_dialog import SettingsDialog

ENV_HOST = "http://192.0.2.7:11434"


def test_a_host_from_the_environment_is_shown_as_such_and_not_saved(qtbot, gui_settings, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", ENV_HOST)
    monkeypatch.delenv("MEMORY_CURATOR_OLLAMA_MODEL", raising=False)
    dialog = SettingsDialog(gui_settings)
    qtbot.addWidget(dialog)
    assert dialog.host.text() == ENV_HOST
    assert "environment (OLLAMA_HOST)" in dialog.origins["ollama_host"].text()
    assert dialog.origins["ollama_model"].text() == "Default" and dialog.origins["embedder"].text() == "Default"
    assert dialog.rates["context"].suffix() == "  (default)"
    dialog.rates["context"].setValue(0.8)
    dialog.accept()  # Save, having changed one rate
    assert not gui_settings.q.contains("ollama/host") and not gui_settings.q.contains("ollama/model")
    assert not gui_settings.q.contains("embedder")
    assert gui_settings.decay_rates == {"context": 0.8}
    monkeypatch.delenv("OLLAMA_HOST")  # the variable is gone: so is its host
    assert AppSettings(gui_settings.q).memory_config().ollama_host == MemoryConfig().ollama_host

    monkeypatch.setenv("OLLAMA_HOST", ENV_HOST)
    again = SettingsDialog(gui_settings)
    qtbot.addWidget(again)
    again.model.setText("bge-m3")  # what the user types is saved, and says so next time
    again.accept()
    assert gui_settings.ollama_model == "bge-m3" and not gui_settings.q.contains("ollama/host")
    third = SettingsDialog(gui_settings)
    qtbot.addWidget(third)
    assert third.origins["ollama_model"].text() == "Saved" and third.rates["context"].value() == 0.8
    assert third.rates["context"].suffix() == "  (saved)" and third.rates["decisions"].suffix() == "  (default)"
    third.model.clear()  # an emptied field goes back to the default
    third.accept()
    assert not gui_settings.q.contains("ollama/model")


def test_every_category_of_the_vault_has_a_decay_rate_and_the_token_hint_fits(qtbot, gui_settings):
    dialog = SettingsDialog(gui_settings, categories=["decisions", "runbooks", "people"])
    qtbot.addWidget(dialog)
    assert {"decisions", "summaries", "context", "runbooks", "people"} <= set(dialog.rates)
    assert dialog.rates["runbooks"].value() == 1.0  # a category without a rate never decays
    dialog.rates["runbooks"].setValue(0.95)
    dialog.accept()
    assert AppSettings(gui_settings.q).memory_config().category_decay_rates["runbooks"] == 0.95
    edit = dialog.api_token.edit
    assert edit.minimumWidth() >= edit.fontMetrics().horizontalAdvance(edit.placeholderText())


def test_keep_the_vaults_model_is_remembered_and_the_switch_stays_in_the_window(qtbot, gui_settings, vault_dir,
                                                                                seeded):
    VaultSettings(vault_dir / ".memory-curator").set_embedding(EmbedderSpec("ollama", "other-model", 768))

    def open_window() -> MainWindow:
        w = MainWindow(gui_settings)
        qtbot.addWidget(w)
        with qtbot.waitSignal(w.vault_opened, timeout=30000):
            w.open_vault(vault_dir, embedder="local")  # Settings ask for the offline model
        w.show()
        return w

    asked = answer_next_box(QMessageBox.StandardButton.No)  # Keep the vault's model
    first = open_window()
    assert asked and "memory-curator reindex" not in asked[0] and "other-model" in asked[0]
    assert first.model_switch.action.isEnabled() and "local" in first.model_switch.action.text()
    qtbot.waitUntil(lambda: not first.engine.busy)
    first.close()

    second = open_window()  # no question this time: the vault opens with its own model
    assert second.model_switch.box is None
    switch = second.model_switch.action  # offered in the status bar and the File menu
    assert switch.isEnabled() and second.model_switch.button.isVisible() and switch.text().startswith("Switch")
    assert switch in second.menuBar().actions()[0].menu().actions()
    qtbot.waitUntil(lambda: not second.engine.busy)
    second.close()
