"""Ctrl+Z and Ctrl+Shift+Z reach the window's undo stack from a spin box.

A spin box's line edit claims the undo keys for its own text (a shortcut override), so with the focus in the
salience spin box Ctrl+Z did nothing: the value typed there is committed as a change, and undoing it is the
window's job. Text fields keep their own undo."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QAbstractSpinBox, QWidget

_KEYS = (QKeySequence.StandardKey.Undo, QKeySequence.StandardKey.Redo)


class _PassUndo(QObject):
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            redo_alt = event.keyCombination().toCombined() == QKeySequence("Ctrl+Shift+Z")[0].toCombined()
            if any(event.matches(k) for k in _KEYS) or redo_alt:
                event.ignore()  # not overridden: the window's shortcut runs
                return True
        return False


def pass_undo_to_window(root: QWidget) -> None:
    """Every spin box under ``root`` leaves the undo keys to the window."""
    filt = _PassUndo(root)
    for spin in root.findChildren(QAbstractSpinBox):
        spin.installEventFilter(filt)
