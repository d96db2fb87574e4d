"""GUI fixtures: a real vault on disk, the real main window offscreen, settings in a temp ini file."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from gui_helpers import seed
from PySide6.QtCore import QSettings

from memory_curator.gui.app import create_app
from memory_curator.gui.settings import AppSettings
from memory_curator.gui.windows.main_window import MainWindow


@pytest.fixture(autouse=True)
def app_setup(qapp):
    """The app's fonts and palette, as ``run`` sets them up. The app's start freezes the heap it made
    (gui/app.py freeze_startup_heap): in a test run that would keep earlier tests' garbage, so it thaws."""
    yield create_app([])
    gc.unfreeze()


@pytest.fixture
def gui_settings(tmp_path) -> AppSettings:
    return AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def seeded(vault_dir, config) -> dict[str, str]:
    return seed(vault_dir, config)


class Harness:
    """Opens the main window on a vault and waits for what a user would wait for."""

    def __init__(self, qtbot, settings: AppSettings):
        self.qtbot = qtbot
        self.settings = settings
        self.window: MainWindow | None = None

    def open(self, vault: Path, embedder="none") -> MainWindow:
        w = MainWindow(self.settings)
        self.qtbot.addWidget(w)
        with self.qtbot.waitSignal(w.vault_opened, timeout=30000):
            w.open_vault(vault, embedder=embedder)
        w.show()
        self.window = w
        self.idle()
        return w

    def idle(self, timeout: int = 20000) -> None:
        self.qtbot.waitUntil(lambda: not self.window.engine.busy, timeout=timeout)

    def close(self) -> None:
        if self.window is not None:
            self.window.editor.load(self.window.editor.item)  # nothing unsaved: closing must not prompt
            self.window.close()


@pytest.fixture
def harness(qtbot, gui_settings):
    h = Harness(qtbot, gui_settings)
    yield h
    h.close()
