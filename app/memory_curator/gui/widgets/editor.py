"""The memory editor: frontmatter as a form, markdown source, and a live rendered preview."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from memory_curator.core.model import DEFAULT_CATEGORIES, MemoryItem
from memory_curator.gui.widgets.preview import SafePreview
from memory_curator.gui.widgets.salience import SalienceControl

PREVIEW_DELAY_MS = 150


def split_keywords(text: str) -> list[str]:
    return [k.strip() for k in text.split(",") if k.strip()]


class MemoryEditor(QWidget):
    save_requested = Signal(object, dict)  # the memory being edited (None for a new one), the form's values
    dirty_changed = Signal(bool)
    loaded = Signal(object)  # the memory now shown (None: an empty form); the Graph pane follows it
    restore_requested = Signal(str)  # the id of the trashed memory shown read-only

    def __init__(self, parent=None):
        super().__init__(parent)
        self.item: MemoryItem | None = None
        self.read_only = False
        self._dirty = False
        self._loading = False
        self.title = QLineEdit(placeholderText="Title (defaults to the first heading)")
        self.category = QComboBox(editable=True)
        self.category.addItems(DEFAULT_CATEGORIES)
        self.keywords = QLineEdit(placeholderText="comma, separated, keywords")
        self.session = QLineEdit(placeholderText="session id (optional)")
        self.salience = SalienceControl()
        self.source = QPlainTextEdit(placeholderText="Write the memory in markdown…")
        self.source.setObjectName("markdownSource")
        self.preview = SafePreview()
        self.info = QLabel()
        self.info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.save_button = QPushButton("Save")
        self.save_button.setEnabled(False)
        self.revert_button = QPushButton("Revert")
        self.revert_button.setEnabled(False)
        self.restore_button = QPushButton("Restore from trash")
        self.restore_button.setVisible(False)
        self.restore_button.clicked.connect(self._restore)
        for widget, name in ((self.title, "Title"), (self.category, "Category"), (self.keywords, "Keywords"),
                             (self.session, "Session"), (self.source, "Markdown source"),
                             (self.preview, "Preview")):
            widget.setAccessibleName(name)

        form = QFormLayout()
        form.addRow("Title", self.title)
        form.addRow("Category", self.category)
        form.addRow("Keywords", self.keywords)
        form.addRow("Session", self.session)
        form.addRow("Salience", self.salience)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.setObjectName("editorSplitter")
        self.split.addWidget(self.source)
        self.split.addWidget(self.preview)
        buttons = QHBoxLayout()
        buttons.addWidget(self.info, 1)
        buttons.addWidget(self.restore_button)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.save_button)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.split, 1)
        lay.addLayout(buttons)

        self._preview_timer = QTimer(self, singleShot=True, interval=PREVIEW_DELAY_MS)
        self._preview_timer.timeout.connect(self._render)
        self.source.textChanged.connect(self._preview_timer.start)
        for signal in (self.title.textEdited, self.keywords.textEdited, self.session.textEdited,
                       self.category.editTextChanged, self.source.textChanged, self.salience.changed):
            signal.connect(self._mark_dirty)
        self.save_button.clicked.connect(self.request_save)
        self.revert_button.clicked.connect(lambda: self.load(self.item))
        self.load(None)

    # -- state ----------------------------------------------------------------------------------------

    @property
    def dirty(self) -> bool:
        return self._dirty

    def _set_dirty(self, value: bool) -> None:
        if value != self._dirty:
            self._dirty = value
            self.dirty_changed.emit(value)
        self.save_button.setEnabled(value)
        self.revert_button.setEnabled(value and self.item is not None)

    def _mark_dirty(self, *_args: object) -> None:
        if not self._loading and not self.read_only:
            self._set_dirty(True)

    def load(self, item: MemoryItem | None, category: str | None = None, *, read_only: bool = False) -> None:
        """Show ``item`` (or an empty form for a new memory); clears the unsaved state. ``read_only``: a memory
        in the trash, shown with Restore instead of Save."""
        self._loading = True
        self.item = item
        self._set_read_only(read_only and item is not None)
        self.title.setText(item.title if item else "")
        self.category.setCurrentText(item.category if item else (category or "context"))
        self.keywords.setText(", ".join(item.keywords) if item else "")
        self.session.setText((item.session_id or "") if item else "")
        self.salience.set_value(item.salience if item else 0.8)
        self.source.setPlainText(item.content if item else "")
        self._render()
        self.info.setText("In the trash: restore it to edit it." if self.read_only else self._describe(item))
        self._loading = False
        self._set_dirty(False)
        self.loaded.emit(item)

    def _set_read_only(self, value: bool) -> None:
        self.read_only = value
        for edit in (self.title, self.keywords, self.session):
            edit.setReadOnly(value)
        self.source.setReadOnly(value)
        self.category.setEnabled(not value)
        self.salience.setEnabled(not value)
        self.restore_button.setVisible(value)
        self.save_button.setVisible(not value)
        self.revert_button.setVisible(not value)

    def set_categories(self, categories: list[str]) -> None:
        """The category choices (the vault's own), keeping what the form shows."""
        self.category.blockSignals(True)
        current = self.category.currentText()
        self.category.clear()
        self.category.addItems(categories)
        self.category.setCurrentText(current)
        self.category.blockSignals(False)

    def _restore(self) -> None:
        if self.item is not None:
            self.restore_requested.emit(self.item.id)

    def loaded_id(self) -> str | None:
        return self.item.id if self.item else None

    def show_counts(self, item: MemoryItem) -> None:
        """A fresher copy of the memory shown (a recall just logged, a list page read after the background
        embedding): its recalls and chunks below the form, which said "recalled 0×" and "not embedded yet" while
        the list showed 1 and yes. Only the counts of the same version are taken: the form may hold edits."""
        if self.item is None or item.id != self.item.id or item.updated_at != self.item.updated_at:
            return
        self.item = replace(self.item, access_count=item.access_count, last_accessed=item.last_accessed,
                            chunk_count=item.chunk_count)
        if not self.read_only:
            self.info.setText(self._describe(self.item))

    @staticmethod
    def _describe(item: MemoryItem | None) -> str:
        if item is None:
            return "New memory: not saved yet"
        when = item.updated_at.astimezone().strftime("%Y-%m-%d %H:%M")
        embedded = "embedded" if item.embedded else "not embedded yet"
        pinned = " · pinned" if item.pinned else ""
        return f"Updated {when} · recalled {item.access_count}× · {embedded}{pinned}"

    def values(self) -> dict:
        return {
            "title": self.title.text().strip(),
            "category": self.category.currentText().strip() or "context",
            "keywords": split_keywords(self.keywords.text()),
            "session_id": self.session.text().strip(),
            "salience": self.salience.value(),
            "content": self.source.toPlainText(),
        }

    def request_save(self) -> None:
        if self._dirty and not self.read_only:
            self.save_requested.emit(self.item, self.values())

    def _render(self) -> None:
        self.preview.show_markdown(self.source.toPlainText())
