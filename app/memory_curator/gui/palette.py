"""Light and dark palettes that follow the system's colour scheme."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication


def dark_palette() -> QPalette:
    p = QPalette()
    base, window, text = QColor(30, 31, 34), QColor(43, 45, 48), QColor(223, 225, 229)
    for role, color in (
        (QPalette.ColorRole.Window, window), (QPalette.ColorRole.WindowText, text),
        (QPalette.ColorRole.Base, base), (QPalette.ColorRole.AlternateBase, QColor(38, 39, 43)),
        (QPalette.ColorRole.Text, text), (QPalette.ColorRole.Button, window),
        (QPalette.ColorRole.ButtonText, text), (QPalette.ColorRole.ToolTipBase, window),
        (QPalette.ColorRole.ToolTipText, text), (QPalette.ColorRole.Highlight, QColor(53, 116, 240)),
        (QPalette.ColorRole.HighlightedText, QColor(255, 255, 255)), (QPalette.ColorRole.Link, QColor(110, 160, 255)),
        (QPalette.ColorRole.PlaceholderText, QColor(140, 143, 150)),
    ):  # fmt: skip
        p.setColor(role, color)
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor(120, 120, 120))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor(120, 120, 120))
    return p


def system_is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def apply_system_palette(app: QApplication) -> None:
    """Fusion with our dark palette when the system is dark, the standard palette otherwise; re-applied
    when the system switches."""

    def apply(*_args: object) -> None:
        app.setStyle("Fusion")
        app.setPalette(dark_palette() if system_is_dark() else app.style().standardPalette())

    apply()
    QGuiApplication.styleHints().colorSchemeChanged.connect(apply)
