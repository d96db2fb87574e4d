"""Settings' Labels tab: the vault's label set (seed 002's Classify) — add, rename or remove a label and edit the
example phrases it is recognised by. Saved in the vault's ``vault.json`` (core/graph/labelling.py), so every
process and a rebuild label with the same set; labels a person set on a memory are never replaced."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memory_curator.core.graph import classify

NAME, EXAMPLES = 0, 1


def _phrases(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


class LabelSetTab(QWidget):
    def __init__(self, label_set: Mapping[str, Sequence[str]], parent=None):
        super().__init__(parent)
        self._initial = {name: list(ex) for name, ex in label_set.items()}
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["Label", "Example phrases (comma-separated)"])
        self.table.horizontalHeader().setSectionResizeMode(EXAMPLES, QHeaderView.ResizeMode.Stretch)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAccessibleName("Labels and their example phrases")
        for name, examples in self._initial.items():
            self._append(name, examples)
        self.add_button = QPushButton("&Add label")
        self.add_button.clicked.connect(self.add_label)
        self.remove_button = QPushButton("&Remove label")
        self.remove_button.clicked.connect(self.remove_selected)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: palette(highlight);")
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        lay = QVBoxLayout(self)
        hint = QLabel("New memories get the labels whose example words they hold, with a confidence. Double-click "
                      "a cell to rename a label or edit its examples. Labels you set on a memory are kept. Memory › "
                      "Label every memory again… labels the memories stored before with this set.")
        hint.setWordWrap(True)
        lay.addWidget(hint)
        lay.addWidget(self.table, 1)
        lay.addLayout(buttons)
        lay.addWidget(self.error)

    def _append(self, name: str, examples: Sequence[str]) -> int:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.table.setItem(row, NAME, QTableWidgetItem(name))
        self.table.setItem(row, EXAMPLES, QTableWidgetItem(", ".join(examples)))
        return row

    def add_label(self) -> None:
        taken = {self.table.item(r, NAME).text() for r in range(self.table.rowCount())}
        name = next(f"label-{n}" for n in range(1, 10_000) if f"label-{n}" not in taken)
        row = self._append(name, [])
        self.table.setCurrentCell(row, NAME)
        self.table.editItem(self.table.item(row, NAME))  # the user types its name at once

    def remove_selected(self) -> None:
        for row in sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True):
            self.table.removeRow(row)

    def value(self) -> dict[str, list[str]]:
        """The label set as shown; ValueError (with a message saying what to fix) when it cannot be saved."""
        out: dict[str, list[str]] = {}
        for row in range(self.table.rowCount()):
            name = self.table.item(row, NAME).text().strip()
            if name in out:
                raise ValueError(f"label {name!r} is listed twice: rename one")
            out[name] = _phrases(self.table.item(row, EXAMPLES).text())
        return classify.validate_labels(out)

    def changes(self) -> dict[str, list[str]] | None:
        """The new label set if the user changed it (None otherwise); ValueError if it is not valid."""
        new = self.value()
        return None if new == self._initial else new

    def check(self) -> bool:
        """True if the set can be saved; otherwise the tab says what to fix."""
        try:
            self.value()
        except ValueError as exc:
            self.error.setText(f"Cannot save the labels: {exc}.")
            return False
        self.error.clear()
        return True
