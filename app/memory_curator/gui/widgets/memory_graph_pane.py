"""The Graph pane of the memory being edited: its labels with their confidence (editable), the graph of its
neighbourhood, and its backlinks (memories that link to it). Clicking a memory anywhere here opens it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from memory_curator.core.graph.classify import labels_of
from memory_curator.core.model import MemoryItem
from memory_curator.gui.widgets.graph_view import GraphView

MEMORY_ROLE = Qt.ItemDataRole.UserRole + 2


def format_labels(labels: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.2f}" for k, v in sorted(labels.items(), key=lambda kv: -kv[1]))


def parse_labels(text: str) -> dict[str, float]:
    """"event 0.8, location" -> {"event": 0.8, "location": 1.0}. Raises ValueError on a bad confidence."""
    out: dict[str, float] = {}
    for part in text.split(","):
        words = part.split()
        if not words:
            continue
        conf = float(words[1]) if len(words) > 1 else 1.0
        out[words[0].strip().lower()] = conf
    return out


class MemoryGraphPane(QWidget):
    memory_activated = Signal(str)
    error = Signal(str)

    def __init__(self, engine: Callable[[], object | None], parent=None):
        super().__init__(parent)
        self._engine = engine
        self.memory_id: str | None = None
        self.labels = QLineEdit(placeholderText="labels, e.g. event 0.9, location")
        self.labels.setToolTip("Labels with their confidence. Yours are kept: classification never replaces them.")
        self.labels_by = QLabel("")
        self.save_labels = QPushButton("Set labels")
        self.save_labels.clicked.connect(self.apply_labels)
        self.labels.returnPressed.connect(self.apply_labels)
        self.view = GraphView()
        self.view.memory_clicked.connect(self._clicked)
        self.backlinks = QListWidget()
        self.backlinks.setAccessibleName("Backlinks")
        self.backlinks.itemActivated.connect(lambda it: self.memory_activated.emit(it.data(MEMORY_ROLE)))
        row = QHBoxLayout()
        row.addWidget(QLabel("Labels:"))
        row.addWidget(self.labels, 1)
        row.addWidget(self.labels_by)
        row.addWidget(self.save_labels)
        bottom = QWidget()
        b_lay = QVBoxLayout(bottom)
        b_lay.setContentsMargins(0, 0, 0, 0)
        b_lay.addWidget(QLabel("Backlinks (memories that link here):"))
        b_lay.addWidget(self.backlinks)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.view)
        split.addWidget(bottom)
        split.setSizes([360, 120])
        lay = QVBoxLayout(self)
        lay.addLayout(row)
        lay.addWidget(split, 1)
        self.show_memory(None)

    def _clicked(self, mid: str) -> None:
        if mid != self.memory_id:
            self.memory_activated.emit(mid)

    def show_memory(self, item: MemoryItem | None) -> None:
        self.memory_id = item.id if item else None
        self.labels.setEnabled(item is not None)
        self.save_labels.setEnabled(item is not None)
        self.backlinks.clear()
        if item is None:
            self.labels.clear()
            self.labels_by.clear()
            self.view.show_message("Select a memory to see its entities and links.")
            return
        self.labels.setText(format_labels(labels_of(item)))
        self.labels_by.setText({"user": "(yours)", "auto": "(automatic)"}.get(item.extra.get("labels_by"), ""))
        engine = self._engine()
        if engine is None:
            return
        mid = item.id
        req = engine.run(lambda svc: (svc.graph.neighbourhood(mid), svc.graph.backlinks(mid)), read=True,
                         key="memory-graph")
        req.done.connect(self._show)
        req.failed.connect(lambda exc: self.error.emit(str(exc)))

    def _show(self, value) -> None:
        hood, backlinks = value
        if hood.center != self.memory_id:
            return
        self.view.show_neighbourhood(hood)
        self.backlinks.clear()
        for m in backlinks:
            it = QListWidgetItem(m.title)
            it.setData(MEMORY_ROLE, m.id)
            self.backlinks.addItem(it)

    def apply_labels(self) -> None:
        engine = self._engine()
        if engine is None or self.memory_id is None:
            return
        try:
            labels = parse_labels(self.labels.text())
        except ValueError:
            self.error.emit("Write labels as 'name confidence', separated by commas, e.g. 'event 0.9, location'.")
            return
        mid = self.memory_id
        req = engine.run(lambda svc: svc.graph.labels.set(mid, labels))
        req.done.connect(lambda item: self.show_memory(item) if item.id == self.memory_id else None)
        req.failed.connect(lambda exc: self.error.emit(str(exc)))
