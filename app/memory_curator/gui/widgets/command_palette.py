"""The command palette (Ctrl+K / Ctrl+P): every action of the menus, found by typing a few letters of its
name, with its shortcut shown, run with Enter (as in Obsidian or VS Code)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QLineEdit, QListWidget, QListWidgetItem, QMenu, QMenuBar, QVBoxLayout

ActionRole = Qt.ItemDataRole.UserRole


def menu_actions(bar: QMenuBar) -> list[tuple[str, QAction]]:
    """(path such as "File › Import files…", action) for every enabled, visible action under ``bar``."""
    out: list[tuple[str, QAction]] = []

    def walk(menu: QMenu, path: str) -> None:
        for action in menu.actions():
            if action.isSeparator() or not action.isVisible():
                continue
            text = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
            if action.menu() is not None:
                walk(action.menu(), f"{path} › {text}")
            elif action.isEnabled() and text:
                out.append((f"{path} › {text}", action))

    for top in bar.actions():
        if top.menu() is not None:
            walk(top.menu(), top.text().replace("&", ""))
    return out


def matches(text: str, query: str) -> bool:
    lowered = text.lower()
    return all(word in lowered for word in query.lower().split())


class CommandPalette(QDialog):
    def __init__(self, bar: QMenuBar, parent=None):
        super().__init__(parent, Qt.WindowType.Dialog | Qt.WindowType.FramelessWindowHint)
        self.setObjectName("commandPalette")
        self.setAccessibleName("Command palette")
        self.edit = QLineEdit(placeholderText="Type a command (Enter runs it, Escape closes)")
        self.edit.setAccessibleName("Command")
        self.list = QListWidget()
        self.list.setAccessibleName("Commands")
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay in the box
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(self.edit)
        lay.addWidget(self.list)
        self.actions_found = menu_actions(bar)
        self.edit.textChanged.connect(self._filter)
        self.edit.installEventFilter(self)
        self.list.itemActivated.connect(self._run)
        self.list.itemClicked.connect(self._run)
        self._filter("")
        if parent is not None:
            width = min(640, max(420, parent.width() // 2))
            self.resize(width, 420)
            top_left = parent.mapToGlobal(parent.rect().topLeft())
            self.move(top_left.x() + (parent.width() - width) // 2, top_left.y() + 60)

    def _filter(self, query: str) -> None:
        self.list.clear()
        for path, action in self.actions_found:
            if not matches(path, query):
                continue
            keys = action.shortcuts()
            shown = "   " + ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in keys) if keys else ""
            row = QListWidgetItem(f"{path}{shown}")
            row.setData(ActionRole, action)
            row.setToolTip(action.toolTip())
            self.list.addItem(row)
        self.list.setCurrentRow(0)

    def shown_paths(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if obj is self.edit and event.type() == QEvent.Type.KeyPress:
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                step = 1 if key == Qt.Key.Key_Down else -1
                self.list.setCurrentRow(max(0, min(self.list.count() - 1, self.list.currentRow() + step)))
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                item = self.list.currentItem()
                if item is not None:
                    self._run(item)
                return True
        return False

    def _run(self, item: QListWidgetItem) -> None:
        action: QAction = item.data(ActionRole)
        self.accept()
        action.trigger()
