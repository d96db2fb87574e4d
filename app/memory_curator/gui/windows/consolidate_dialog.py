"""Consolidation: preview the extractive summary of selected (or suggested) memories, then create it,
keeping the originals or moving them to the trash."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from memory_curator.core.model import MemoryItem
from memory_curator.gui.accessibility import name_from_labels
from memory_curator.gui.models.roles import IdRole
from memory_curator.gui.widgets.preview import SafePreview
from memory_curator.gui.worker import Engine


class ConsolidateDialog(QDialog):
    consolidated = Signal(object)  # the engine's ConsolidationResult
    previewed = Signal(object)  # the ConsolidationPreview shown

    def __init__(self, engine: Engine, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Consolidate memories")
        self.setObjectName("consolidateDialog")
        self.resize(900, 560)
        self.engine = engine
        self.ids: list[str] = []
        self.current = None
        self.groups = QListWidget()
        self.groups.setVisible(False)
        self.sources = QListWidget()
        self.title = QLineEdit()
        self.category = QComboBox(editable=True)
        self.keep = QRadioButton("Keep the originals")
        self.trash = QRadioButton("Move the originals to the trash")
        self.keep.setChecked(True)
        self.summary = SafePreview()
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.accept_button = QPushButton("Create summary memory")
        self.accept_button.setEnabled(False)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        self.accept_button.clicked.connect(self.create)
        self.groups.currentItemChanged.connect(self._group_chosen)

        left = QWidget()
        left_lay = QVBoxLayout(left)
        self.groups_label = QLabel("Suggested groups")
        self.groups_label.setVisible(False)
        left_lay.addWidget(self.groups_label, 0)
        left_lay.addWidget(self.groups, 1)
        left_lay.addWidget(QLabel("Memories to consolidate"))
        left_lay.addWidget(self.sources, 1)
        right = QWidget()
        form = QFormLayout()
        form.addRow("Title", self.title)
        form.addRow("Category", self.category)
        right_lay = QVBoxLayout(right)
        right_lay.addLayout(form)
        right_lay.addWidget(QLabel("Summary preview (extractive: the most representative sentences)"))
        right_lay.addWidget(self.summary, 1)
        right_lay.addWidget(self.keep)
        right_lay.addWidget(self.trash)
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([320, 580])
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(cancel)
        buttons.addWidget(self.accept_button)
        lay = QVBoxLayout(self)
        lay.addWidget(split, 1)
        lay.addLayout(buttons)
        name_from_labels(self)

    # -- choosing -------------------------------------------------------------------------------------

    def preview(self, items: list[MemoryItem]) -> None:
        self._load_ids([it.id for it in items])

    def suggest(self, category: str | None = None) -> None:
        self.groups.setVisible(True)
        self.groups_label.setVisible(True)
        self.status.setText("Looking for groups of similar memories…")
        req = self.engine.call("suggest_groups", category=category, read=True)
        req.done.connect(self._on_groups)
        req.failed.connect(lambda exc: self.status.setText(str(exc)))

    def _on_groups(self, groups) -> None:
        self.groups.clear()
        for g in groups:
            item = QListWidgetItem(f"{len(g.memory_ids)} memories ({g.method}, {g.similarity:.2f}): "
                                   f"{', '.join(g.titles[:3])}")
            item.setData(IdRole, list(g.memory_ids))
            item.setToolTip("\n".join(g.titles))
            self.groups.addItem(item)
        if groups:
            self.groups.setCurrentRow(0)
        else:
            self.status.setText("No groups of similar memories found. Select memories in the list instead.")

    def _group_chosen(self, current, _previous) -> None:
        if current is not None:
            self._load_ids(current.data(IdRole))

    def _load_ids(self, ids: list[str]) -> None:
        self.ids = list(ids)
        self.accept_button.setEnabled(False)
        self.status.setText("Summarising…")
        req = self.engine.call("preview_consolidation", self.ids, key="consolidation-preview", read=True)
        req.done.connect(self._on_preview)
        req.failed.connect(lambda exc: self.status.setText(str(exc)))

    def _on_preview(self, preview) -> None:
        self.current = preview
        self.sources.clear()
        for title in preview.source_titles:
            self.sources.addItem(title)
        self.title.setText(preview.title)
        self.category.clear()
        self.category.addItems(sorted({preview.category, "summaries", "decisions", "context"}))
        self.category.setCurrentText(preview.category)
        self.summary.show_markdown(preview.content)
        self.status.setText(f"{len(preview.source_ids)} memories → one summary of {len(preview.content)} characters.")
        self.accept_button.setEnabled(True)
        self.previewed.emit(preview)

    # -- creating -------------------------------------------------------------------------------------

    def create(self) -> None:
        if not self.ids:
            return
        self.accept_button.setEnabled(False)
        self.status.setText("Creating the summary memory…")
        req = self.engine.call("consolidate", self.ids, preserve_originals=self.keep.isChecked(),
                               title=self.title.text().strip() or None,
                               category=self.category.currentText().strip() or None)
        req.done.connect(self._on_created)
        req.failed.connect(self._on_failed)

    def _on_created(self, result) -> None:
        self.consolidated.emit(result)
        self.accept()

    def _on_failed(self, exc: object) -> None:
        self.status.setText(f"Could not consolidate: {exc}")
        self.accept_button.setEnabled(True)
