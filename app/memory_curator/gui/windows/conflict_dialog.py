"""Sync conflicts, side by side: the two versions of a memory that two machines changed at once, the fields
that differ and the text's differences highlighted; Keep this (either side), Keep both, or Edit merge. Each
resolution is an undoable command (Ctrl+Z puts the conflict back, files and all)."""

from __future__ import annotations

import difflib
import html
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFontDatabase, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from memory_curator.core.conflicts.model import Conflict, Resolution, Sides
from memory_curator.gui.accessibility import name_from_labels
from memory_curator.gui.commands import CommandContext, _EngineCommand, push_when_done, short
from memory_curator.gui.worker import Request

KeyRole = Qt.ItemDataRole.UserRole
REMOVED, ADDED, CHANGED = "#f8d7da", "#d4edda", "#fff3cd"  # this machine's / the other's / both changed
_TAKEN = {"ours": "this machine's (only it changed this)", "theirs": "the other's (only it changed this)",
          "later": "the later", "conflict": "you choose: both changed it", "merged": "merged already by git"}
_WORDS = re.compile(r"(\s+)")


def highlighted(ours: str, theirs: str) -> tuple[str, str]:
    """The two texts as HTML, lines only in one side highlighted, words changed within a line marked."""
    a, b = ours.splitlines(), theirs.splitlines()
    left: list[str] = []
    right: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            left += [html.escape(x) for x in a[i1:i2]]
            right += [html.escape(x) for x in b[j1:j2]]
            continue
        paired = min(i2 - i1, j2 - j1) if op == "replace" else 0  # changed lines: their words compared
        for x, y in zip(a[i1 : i1 + paired], b[j1 : j1 + paired], strict=True):
            wl, wr = _word_diff(x, y)
            left.append(_line(wl, REMOVED))
            right.append(_line(wr, ADDED))
        left += [_line(html.escape(x), REMOVED) for x in a[i1 + paired : i2]]
        right += [_line(html.escape(y), ADDED) for y in b[j1 + paired : j2]]
    return "<br>".join(left) or "<i>(empty)</i>", "<br>".join(right) or "<i>(empty)</i>"


def _word_diff(x: str, y: str) -> tuple[str, str]:
    wa, wb = _WORDS.split(x), _WORDS.split(y)
    out_a, out_b = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes():
        sa, sb = html.escape("".join(wa[i1:i2])), html.escape("".join(wb[j1:j2]))
        out_a.append(sa if op == "equal" or not sa else f"<b><u>{sa}</u></b>")
        out_b.append(sb if op == "equal" or not sb else f"<b><u>{sb}</u></b>")
    return "".join(out_a), "".join(out_b)


def _line(text: str, colour: str) -> str:
    return f'<span style="background-color:{colour}">{text or "&nbsp;"}</span>'


class ResolveConflict(_EngineCommand):
    """Resolve a conflict; undo puts its files back as they were (and the conflict with them)."""

    kind = "conflict"  # the window reloads its list: a resolution can add a memory or move one

    def __init__(self, ctx: CommandContext, conflict: Conflict, keep: str, merged: str | None = None):
        super().__init__(ctx, f"Resolve the conflict of “{short(conflict.title)}”")
        self.key, self.keep, self.merged = conflict.key, keep, merged
        self.result: dict[str, Resolution] = {}  # set on the worker thread

    def apply(self) -> Request:
        key, keep, merged, result = self.key, self.keep, self.merged, self.result

        def resolve(svc):
            result["done"] = svc.conflicts.resolve(key, keep, merged)
            return result["done"]

        return self._run(resolve)

    def undo(self) -> None:
        result = self.result
        self._run(lambda svc: svc.conflicts.undo(result["done"]))


class _Side(QWidget):
    keep = Signal()

    def __init__(self, button: str, tip: str):
        super().__init__()
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.text = QTextBrowser(openLinks=False)
        self.keep_button = QPushButton(button, toolTip=tip)
        self.keep_button.clicked.connect(self.keep)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.label)
        lay.addWidget(self.text, 1)
        lay.addWidget(self.keep_button)


class ConflictDialog(QDialog):
    loaded = Signal(int)  # conflicts listed
    shown = Signal(str)  # the key of the conflict shown
    resolved = Signal(str)  # the key of a conflict resolved

    def __init__(self, window, parent=None):
        super().__init__(parent or window)
        self.setWindowTitle("Sync conflicts")
        self.setObjectName("conflictDialog")
        self.window_, self.engine = window, window.engine
        self.sides: Sides | None = None
        self.list = QListWidget()
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.currentItemChanged.connect(lambda cur, _prev: self.show_conflict(cur.data(KeyRole) if cur else None))
        self.header = QLabel("Loading…")
        self.header.setWordWrap(True)
        self.fields = QTableWidget(0, 4)
        self.fields.setHorizontalHeaderLabels(["Field", "This machine", "Other version", "Merge takes"])
        self.fields.horizontalHeader().setStretchLastSection(True)
        self.fields.verticalHeader().setVisible(False)
        self.fields.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.ours = _Side("Keep this", "Keep this version; the other goes to the trash (Ctrl+Z takes it back)")
        self.theirs = _Side("Keep this", "Keep this version; the other goes to the trash (Ctrl+Z takes it back)")
        for widget, name in ((self.ours.text, "This machine's version"), (self.theirs.text, "The other version"),
                             (self.ours.keep_button, "Keep this machine's version"),
                             (self.theirs.keep_button, "Keep the other version")):
            widget.setAccessibleName(name)
        self.list.setAccessibleName("Sync conflicts")
        self.fields.setAccessibleName("Fields that differ")
        self.ours.keep.connect(lambda: self.resolve("ours"))
        self.theirs.keep.connect(lambda: self.resolve("theirs"))
        self.merge_edit = QPlainTextEdit()
        self.merge_edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.merge_edit.setVisible(False)
        self.merge_edit.setAccessibleName("The merged memory file")
        self.both_button = QPushButton("Keep both", toolTip="Keep this machine's version; the other becomes a new "
                                       "memory that says where it came from")
        self.both_button.clicked.connect(lambda: self.resolve("both"))
        self.merge_button = QPushButton("Edit merge…", toolTip="Write the memory as it should be, starting from "
                                        "both versions merged (this machine's where both changed)")
        self.merge_button.clicked.connect(self.edit_merge)
        self.save_merge_button = QPushButton("Save merge", visible=False)
        self.save_merge_button.clicked.connect(lambda: self.resolve("merged", self.merge_edit.toPlainText()))
        close = QPushButton("Close")
        close.clicked.connect(self.accept)
        sides = QGridLayout()
        sides.addWidget(self.ours, 0, 0)
        sides.addWidget(self.theirs, 0, 1)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.addWidget(self.header)
        rl.addWidget(self.fields)
        rl.addLayout(sides, 1)
        rl.addWidget(self.merge_edit, 1)
        split = QSplitter()
        split.addWidget(self.list)
        split.addWidget(right)
        split.setSizes([220, 780])
        buttons = QHBoxLayout()
        buttons.addWidget(self.both_button)
        buttons.addWidget(self.merge_button)
        buttons.addWidget(self.save_merge_button)
        buttons.addStretch(1)
        buttons.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addWidget(split, 1)
        lay.addLayout(buttons)
        QShortcut(QKeySequence.StandardKey.Undo, self, activated=window.undo_stack.undo)
        self.resize(1060, 640)
        name_from_labels(self)
        self.reload()

    def reload(self) -> None:
        req = self.engine.run(lambda svc: svc.conflicts.list(), key="conflict-list")
        req.done.connect(self._listed)
        req.failed.connect(lambda exc: self.header.setText(str(exc)))

    def _listed(self, conflicts: list[Conflict]) -> None:
        current = self.sides.conflict.key if self.sides else None
        self.list.blockSignals(True)
        self.list.clear()
        for c in conflicts:
            row = QListWidgetItem(f"{c.title}\n{c.tool}: {(c.copy_path or c.path).rsplit('/', 1)[-1]}")
            row.setData(KeyRole, c.key)
            row.setToolTip(c.path + (f"\n{c.copy_path}" if c.copy_path else ""))
            self.list.addItem(row)
        self.list.blockSignals(False)
        keys = [c.key for c in conflicts]
        self._enable(False)
        if conflicts:
            self.list.setCurrentRow(keys.index(current) if current in keys else 0)
        else:
            self.sides = None
            self.header.setText("No sync conflicts: every memory has one version.")
            for side in (self.ours, self.theirs):
                side.text.clear()
                side.label.clear()
            self.fields.setRowCount(0)
        self.loaded.emit(len(conflicts))

    def show_conflict(self, key: str | None) -> None:
        if key is None:
            return
        req = self.engine.run(lambda svc: svc.conflicts.sides(key), key="conflict-sides")
        req.done.connect(self._show)
        req.failed.connect(lambda exc: self.header.setText(str(exc)))

    def _show(self, sides: Sides) -> None:
        self.sides = sides
        c = sides.conflict
        how = ("git left both versions in one file" if c.kind == "git" else
               f"{c.tool} left a copy" if c.tool != "duplicate id" else "two files hold this memory's id")
        self.header.setText(f"<b>{html.escape(c.title)}</b> — {how}. Until you choose, the memory is listed and "
                            "found as it is on the left, and edits to it wait. Differences are highlighted.")
        self.ours.label.setText(f"<b>{html.escape(sides.ours.label)}</b>")
        self.theirs.label.setText(f"<b>{html.escape(sides.theirs.label)}</b>")
        ours = sides.ours.item.content if sides.ours.item else sides.ours.text
        theirs = sides.theirs.item.content if sides.theirs.item else sides.theirs.text
        left, right = highlighted(ours, theirs)
        self.ours.text.setHtml(left)
        self.theirs.text.setHtml(right)
        diffs = [f for f in (sides.merge.fields if sides.merge else ()) if f.name != "content"]
        self.fields.setRowCount(len(diffs))
        for row, f in enumerate(diffs):
            cells = (f.name, _value(f.ours), _value(f.theirs), _TAKEN.get(f.taken, f.taken))
            for col, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                if col in (1, 2) and f.taken != "merged":
                    cell.setBackground(QBrush(QColor(CHANGED if f.taken == "conflict" else
                                                     (REMOVED if col == 1 else ADDED))))
                self.fields.setItem(row, col, cell)
        self.fields.resizeColumnsToContents()
        rows = sum(self.fields.rowHeight(r) for r in range(len(diffs)))
        self.fields.setFixedHeight(min(170, self.fields.horizontalHeader().height() + rows + 4))
        self.ours.keep_button.setEnabled(sides.ours.item is not None)
        self.theirs.keep_button.setEnabled(sides.theirs.item is not None)
        self.both_button.setEnabled(sides.theirs.item is not None)
        self.merge_button.setEnabled(True)
        self._editing(False)
        self.shown.emit(c.key)

    def _enable(self, on: bool) -> None:
        for b in (self.ours.keep_button, self.theirs.keep_button, self.both_button, self.merge_button):
            b.setEnabled(on)

    def _editing(self, on: bool) -> None:
        self.merge_button.setText("Back to the versions" if on else "Edit merge…")
        self.merge_edit.setVisible(on)
        self.save_merge_button.setVisible(on)
        self.ours.setVisible(not on)
        self.theirs.setVisible(not on)

    def edit_merge(self) -> None:
        """Edit merge…, and again (Back to the versions) to leave the editor without saving."""
        if self.sides is None:
            return
        if self.merge_edit.isVisible():
            self._editing(False)
            return
        self.merge_edit.setPlainText(self.sides.proposal)
        self._editing(True)
        self.merge_edit.setFocus()

    def resolve(self, keep: str, merged: str | None = None) -> Request | None:
        if self.sides is None:
            return None
        conflict = self.sides.conflict
        self._enable(False)
        req = push_when_done(self.window_.undo_stack, ResolveConflict(self.window_, conflict, keep, merged))
        req.done.connect(lambda res: (self.header.setText(f"{html.escape(res.note)} Ctrl+Z takes it back."),
                                      self.resolved.emit(conflict.key), self.reload()))
        req.failed.connect(lambda exc: (self.header.setText(html.escape(str(exc))), self._enable(True)))
        return req


def _value(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return "" if value is None else str(value)


def open_conflicts(window) -> ConflictDialog | None:
    """View › Sync conflicts…, and the status bar's conflict button."""
    if window.engine is None:
        return None
    dialog = ConflictDialog(window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.finished.connect(lambda _r: window.refresh_status())
    window.undo_stack.indexChanged.connect(dialog.reload)
    dialog.open()
    return dialog
