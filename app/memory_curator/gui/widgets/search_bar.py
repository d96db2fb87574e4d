"""The search bar: type-ahead with a debounce, the mode switch and the filters."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from memory_curator.core.model import SEARCH_MODES

DEBOUNCE_MS = 250


@dataclass(frozen=True)
class SearchQuery:
    text: str
    mode: str = "hybrid"
    category: str | None = None
    session_id: str | None = None
    min_salience: float = 0.0
    label: str | None = None  # a classification label (the vault's set)


class SearchBar(QWidget):
    search_requested = Signal(object)  # SearchQuery, after the debounce; empty text means "back to the list"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.edit = QLineEdit(placeholderText="Search memories (Ctrl+F)…", clearButtonEnabled=True)
        self.edit.setObjectName("searchEdit")
        self.mode = QComboBox()
        for m in ("hybrid", "semantic", "keyword"):
            assert m in SEARCH_MODES
            self.mode.addItem(m.capitalize(), m)
        self.mode.setToolTip("Hybrid fuses keyword and semantic ranks; keyword needs no embedder")
        self.category = QComboBox(minimumContentsLength=10)
        self.session = QComboBox(minimumContentsLength=10)
        self.label = QComboBox(minimumContentsLength=8)
        self.min_salience = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=2)
        self.min_salience.setToolTip("Only memories at least this salient")
        for widget, name in ((self.edit, "Search memories"), (self.mode, "Search mode"),
                             (self.category, "Category filter"), (self.session, "Session filter"),
                             (self.label, "Label filter"),
                             (self.min_salience, "Minimum salience")):
            widget.setAccessibleName(name)
        self.set_choices([], [])
        top = QHBoxLayout()
        top.addWidget(self.edit, 1)
        top.addWidget(self.mode)
        filters = QHBoxLayout()
        for label, w in (("Category", self.category), ("Session", self.session), ("Label", self.label),
                         ("Min salience", self.min_salience)):
            filters.addWidget(QLabel(label))
            filters.addWidget(w, 1 if w is not self.min_salience else 0)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(top)
        lay.addLayout(filters)
        self._timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._timer.timeout.connect(self._emit)
        self.edit.textChanged.connect(self._timer.start)
        self.edit.returnPressed.connect(self._emit)
        for combo in (self.mode, self.category, self.session, self.label):
            combo.currentIndexChanged.connect(self._refilter)
        self.min_salience.valueChanged.connect(self._refilter)

    def set_choices(self, categories: list[str], sessions: list[str], labels: list[str] | tuple = ()) -> None:
        """Fill the filter boxes, keeping the current choice when it still exists."""
        for combo, values in ((self.category, categories), (self.session, sessions), (self.label, labels)):
            current = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem("Any", None)
            for v in values:
                combo.addItem(v, v)
            i = combo.findData(current)
            combo.setCurrentIndex(max(i, 0))
            combo.blockSignals(False)

    def query(self) -> SearchQuery:
        return SearchQuery(self.edit.text().strip(), self.mode.currentData(), self.category.currentData(),
                           self.session.currentData(), self.min_salience.value(), self.label.currentData())

    def _refilter(self) -> None:
        if self.edit.text().strip():
            self._timer.start()

    def _emit(self) -> None:
        self._timer.stop()
        self.search_requested.emit(self.query())

    def focus(self) -> None:
        self.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.edit.selectAll()
