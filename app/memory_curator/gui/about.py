"""Help > About: the app's version (from ``memory_curator.__version__``, like ``--version``) and what it runs on."""

from __future__ import annotations

import platform
import sys

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QSize, qVersion
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QMessageBox, QWidget

from memory_curator import __version__
from memory_curator.appinfo import DISPLAY_NAME, icon_png, icon_svg
from memory_curator.core.index.db import sqlite_version


def app_icon() -> QIcon:
    """The window and taskbar icon, from the rendered PNGs (the SVG plugin may be missing in a build)."""
    icon = QIcon()
    for size in (16, 32, 48, 64, 128, 256):
        path = icon_png(size)
        if path.exists():
            icon.addFile(str(path))
    return icon if not icon.isNull() else QIcon(str(icon_svg()))


def about_text() -> str:
    frozen = " (installed build)" if getattr(sys, "frozen", False) else ""
    return (
        f"<h3>{DISPLAY_NAME} {__version__}</h3>"
        "<p>See, search, fix and grow what your LLM assistants remember.</p>"
        "<p>Your memories are markdown files in a folder you own; the index beside them can always be rebuilt "
        "from them.</p>"
        f"<p><small>Python {platform.python_version()}{frozen} · Qt {qVersion()} · PySide6 {pyside_version} · "
        f"SQLite {sqlite_version()}<br>MIT licence</small></p>"
    )


def build_about_box(parent: QWidget | None = None) -> QMessageBox:
    box = QMessageBox(parent)
    box.setWindowTitle(f"About {DISPLAY_NAME}")
    # From the icon's PNG set at the screen's scale: a 2x screen gets the 256 px image, not 128 px scaled up.
    box.setIconPixmap(app_icon().pixmap(QSize(128, 128), box.devicePixelRatioF()))
    box.setText(about_text())
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    return box


def show_about(parent: QWidget | None = None) -> None:
    build_about_box(parent).exec()
