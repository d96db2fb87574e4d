"""The desktop app's composition root: reads settings and the environment, opens the main window."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import QApplication, QMessageBox

from memory_curator import __version__
from memory_curator.environment import default_vault_dir
from memory_curator.gui import resources
from memory_curator.gui.palette import apply_system_palette
from memory_curator.gui.settings import AppSettings
from memory_curator.gui.windows.main_window import MainWindow

# Families tried in order so Finnish and Japanese text render with real glyphs, not boxes.
UI_FONTS = ["Noto Sans", "Noto Sans CJK JP", "DejaVu Sans", "Sans Serif"]


def create_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv)
    app.setApplicationName("Memory Curator")
    app.setOrganizationName("memory-curator")
    app.setApplicationVersion(__version__)
    font = QFont(app.font())
    font.setFamilies(UI_FONTS)
    app.setFont(font)
    apply_system_palette(app)
    return app


def choose_vault(settings: AppSettings, explicit: Path | None, *, ask: bool = True) -> Path:
    """The --vault argument, else the last vault used, else the default; a new empty vault may start
    from the sample memories."""
    if explicit is not None:
        return Path(explicit).expanduser()
    if settings.vault is not None:
        return settings.vault
    vault = default_vault_dir()
    if ask and resources.vault_is_empty(vault) and resources.SAMPLE_VAULT.is_dir():
        answer = QMessageBox.question(
            None, "Welcome to Memory Curator",
            f"Your vault at {vault} is empty.\n\nStart with a sample vault of about twenty memories "
            "(decisions, summaries, context; some in Finnish and Japanese) to try things out?",
        )
        if answer == QMessageBox.StandardButton.Yes:
            resources.copy_sample_vault(vault)
    return vault


def run(vault: Path | None = None, argv: list[str] | None = None) -> int:
    app = create_app(argv)
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
    settings = AppSettings()
    window = MainWindow(settings)
    window.open_vault(choose_vault(settings, vault))
    window.show()
    return app.exec()
