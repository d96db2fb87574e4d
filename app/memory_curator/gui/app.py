"""The desktop app's composition root: reads settings and the environment, opens the main window."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import QApplication, QMessageBox

from memory_curator import __version__
from memory_curator.appinfo import APP_ID
from memory_curator.environment import VAULT_ENV, default_vault_dir
from memory_curator.gui import resources
from memory_curator.gui.about import app_icon
from memory_curator.gui.palette import apply_system_palette
from memory_curator.gui.settings import AppSettings
from memory_curator.gui.smoke import SMOKE_ENV, start_smoke_check
from memory_curator.gui.system_libraries import startup_problem
from memory_curator.gui.windows.main_window import MainWindow

# Families tried in order so Finnish and Japanese text render with real glyphs, not boxes.
UI_FONTS = ["Noto Sans", "Noto Sans CJK JP", "DejaVu Sans", "Sans Serif"]


def create_app(argv: list[str] | None = None) -> QApplication:
    if QApplication.instance() is None:  # Qt takes the rounding policy only before the application exists
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv)
    app.setApplicationName("Memory Curator")
    app.setOrganizationName("memory-curator")
    app.setApplicationVersion(__version__)
    # Wayland matches the window to its .desktop launcher (and so its icon) by this id.
    app.setDesktopFileName(APP_ID)
    app.setWindowIcon(app_icon())
    font = QFont(app.font())
    font.setFamilies(UI_FONTS)
    app.setFont(font)
    apply_system_palette(app)
    return app


def choose_vault(settings: AppSettings, explicit: Path | None, *, ask: bool = True) -> Path:
    """The --vault argument, else $MEMORY_CURATOR_VAULT, else the last vault used, else the default (as the
    command line chooses, with the remembered vault in between); a new empty vault may start from the sample
    memories."""
    if explicit is not None:
        return Path(explicit).expanduser()
    if settings.vault is not None and not os.environ.get(VAULT_ENV):
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


def freeze_startup_heap() -> None:
    """Exempt what start-up made (modules, Qt wrappers, the window: most of the ~95,000 objects that live as
    long as the app) from the cyclic garbage collector's full passes. Each full pass walked them all, 67-87 ms
    on the main thread: the longest stall while scrolling the memory list (bench/gui_list_scroll.py at 3,000
    memories: 118-126 ms, 113-123 ms of it working; frozen, 32-38 ms). Objects made later, the vault's
    included, are collected as before."""
    gc.collect()  # what start-up already dropped is freed, not frozen
    gc.freeze()


def start(settings: AppSettings, vault: Path | None, *, ask: bool = True) -> MainWindow:
    """The main window on the chosen vault, shown; at the first start, the tour (once the window is laid out,
    so each card sits beside its part)."""
    window = MainWindow(settings)
    freeze_startup_heap()  # before the vault: its engine must stay collectable when another vault replaces it
    window.open_vault(choose_vault(settings, vault, ask=ask))
    window.show()
    if ask:
        QTimer.singleShot(0, window, window.show_tour)  # nothing once it was finished or skipped
    return window


def run(vault: Path | None = None, argv: list[str] | None = None) -> int:
    problem = startup_problem()  # Qt would abort with a message that points the wrong way
    if problem:
        print(problem, file=sys.stderr)
        return 1
    app = create_app(argv)
    smoke_query = os.environ.get(SMOKE_ENV)
    # A self-check runs unattended: no first-run question or tour may wait for an answer.
    window = start(AppSettings(), vault, ask=not smoke_query)
    if smoke_query:
        _check = start_smoke_check(app, window, smoke_query)  # noqa: F841 - kept alive until exec returns
    return app.exec()
