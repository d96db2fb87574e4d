"""The Entities pane: every entity with the number of memories about it; merge, rename, hide; the memories
of the selected one (double-click opens). The engine does the work on its reader and writer threads.

Entities come a page at a time, most mentioned first, the next page when the list is scrolled near its end,
and the filter asks the engine too: a vault of 100,000 memories names tens of thousands of entities."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSortFilterProxyModel, Qt, QTimer, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memory_curator.core.graph.graph import Entity

ENTITY_ROLE = Qt.ItemDataRole.UserRole + 1
MEMORY_ROLE = Qt.ItemDataRole.UserRole + 2
HEADERS = ("Entity", "Memories", "From")
PAGE = 500  # entities per request


class EntitiesPane(QWidget):
    memory_activated = Signal(str)  # a memory id to open
    error = Signal(str)

    def __init__(self, engine: Callable[[], object | None], parent=None):
        """``engine`` returns the window's current Engine (None while no vault is open)."""
        super().__init__(parent)
        self._engine = engine
        self.model = QStandardItemModel(0, len(HEADERS), self)
        self.model.setHorizontalHeaderLabels(list(HEADERS))
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)

        self.filter = QLineEdit(placeholderText="Filter entities")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)  # at once, on the rows loaded
        self._query_timer = QTimer(self, singleShot=True, interval=250)  # then the engine, once typing pauses
        self._query_timer.timeout.connect(self.refresh)
        self.filter.textChanged.connect(lambda _t: self._query_timer.start())
        self._loaded = 0  # entities listed (pages received)
        self._more = False  # the last page was full: there may be more
        self._loading = False
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(1, Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.table.verticalScrollBar().valueChanged.connect(self._scrolled)
        self.memories = QListWidget()
        self.memories.itemActivated.connect(lambda it: self.memory_activated.emit(it.data(MEMORY_ROLE)))
        self.summary = QLabel("")
        self.merge_button = QPushButton("Merge…")
        self.merge_button.setToolTip("The selected entities are one: keep one name, the others become its aliases")
        self.rename_button = QPushButton("Rename…")
        self.hide_button = QPushButton("Not an entity")
        self.hide_button.setToolTip("Hide the selected names from entities, links and graph search")
        self.merge_button.clicked.connect(self.merge_selected)
        self.rename_button.clicked.connect(self.rename_selected)
        self.hide_button.clicked.connect(self.hide_selected)

        buttons = QHBoxLayout()
        for b in (self.merge_button, self.rename_button, self.hide_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        top = QWidget()
        top_lay = QVBoxLayout(top)
        top_lay.setContentsMargins(0, 0, 0, 0)
        top_lay.addWidget(self.filter)
        top_lay.addWidget(self.table, 1)
        top_lay.addLayout(buttons)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(self.memories)
        split.setSizes([300, 160])
        lay = QVBoxLayout(self)
        lay.addWidget(split, 1)
        lay.addWidget(self.summary)
        self._update_buttons()

    # -- data -----------------------------------------------------------------------------------------

    def refresh(self) -> None:
        """The first page again (after a change, or for the filter's text)."""
        self._load(0)

    def _load(self, offset: int) -> None:
        engine = self._engine()
        if engine is None:
            return
        query = self.filter.text().strip() or None
        self._loading = True
        req = engine.run(lambda svc: svc.graph.entities(limit=PAGE, offset=offset, query=query), read=True,
                         key="entities-pane")  # a newer request (refresh, filter) supersedes a pending one
        req.done.connect(lambda page: self._page_arrived(offset, page))
        req.failed.connect(self._failed)

    def _failed(self, exc: BaseException) -> None:
        self._loading = False
        self.error.emit(str(exc))

    def _page_arrived(self, offset: int, page: list[Entity]) -> None:
        self._loading = False
        if offset == 0:
            self.set_entities(page, more=len(page) == PAGE)
        elif offset == self._loaded:  # else a refresh came in between: this page belongs to the old list
            self._append(page)
            self._more = len(page) == PAGE
            self._show_count()
        self._scrolled(self.table.verticalScrollBar().value())  # a list that does not fill the view yet grows

    def _scrolled(self, value: int) -> None:
        bar = self.table.verticalScrollBar()
        if self._more and not self._loading and value >= bar.maximum() - 2 * bar.pageStep():
            self._load(self._loaded)

    def set_entities(self, entities: list[Entity], *, more: bool = False) -> None:
        self.model.removeRows(0, self.model.rowCount())
        self._loaded = 0
        self._append(entities)
        self._more = more
        self.table.resizeColumnToContents(0)
        self._show_count()
        self._update_buttons()

    def _show_count(self) -> None:
        more = ", more as you scroll" if self._more else ""
        self.summary.setText(f"{self._loaded} entities{more}")

    def _append(self, entities: list[Entity]) -> None:
        self._loaded += len(entities)
        for e in entities:
            name = QStandardItem(e.name)
            name.setData(e.name.casefold(), Qt.ItemDataRole.UserRole)
            name.setData(e, ENTITY_ROLE)
            if e.aliases:
                name.setToolTip("Also: " + ", ".join(e.aliases))
            count = QStandardItem(str(e.count))
            count.setData(e.count, Qt.ItemDataRole.UserRole)
            count.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            src = QStandardItem(", ".join(e.sources))
            src.setData(", ".join(e.sources), Qt.ItemDataRole.UserRole)
            for it in (name, count, src):
                it.setEditable(False)
            self.model.appendRow([name, count, src])

    def selected(self) -> list[Entity]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.proxy.index(r, 0).data(ENTITY_ROLE) for r in rows]

    def _selection_changed(self, *_args) -> None:
        self._update_buttons()
        chosen = self.selected()
        self.memories.clear()
        engine = self._engine()
        if len(chosen) != 1 or engine is None:
            return
        name = chosen[0].name
        req = engine.run(lambda svc: svc.graph.memories_of(name, 200), read=True, key="entity-memories")
        req.done.connect(self._show_memories)

    def _show_memories(self, items) -> None:
        self.memories.clear()
        for m in items:
            it = QListWidgetItem(m.title)
            it.setData(MEMORY_ROLE, m.id)
            it.setToolTip(m.content[:300])
            self.memories.addItem(it)

    def _update_buttons(self) -> None:
        n = len(self.selected())
        self.merge_button.setEnabled(n >= 2)
        self.rename_button.setEnabled(n == 1)
        self.hide_button.setEnabled(n >= 1)

    # -- corrections ----------------------------------------------------------------------------------

    def _change(self, fn) -> None:
        engine = self._engine()
        if engine is None:
            return
        req = engine.run(fn)
        req.done.connect(lambda _v: self.refresh())
        req.failed.connect(lambda exc: self.error.emit(str(exc)))

    def merge_selected(self, into: str | None = None) -> None:
        names = [e.name for e in self.selected()]
        if len(names) < 2:
            return
        if into is None:
            into, ok = QInputDialog.getItem(self, "Merge entities", "Keep the name:", names, 0, True)
            if not ok or not into.strip():
                return
        others = [n for n in names if n != into]
        self._change(lambda svc: svc.graph.merge(others, into))

    def rename_selected(self, new_name: str | None = None) -> None:
        chosen = self.selected()
        if len(chosen) != 1:
            return
        old = chosen[0].name
        if new_name is None:
            new_name, ok = QInputDialog.getText(self, "Rename entity", f"New name for “{old}”:", text=old)
            if not ok or not new_name.strip() or new_name == old:
                return
        self._change(lambda svc: svc.graph.rename(old, new_name))

    def hide_selected(self) -> None:
        names = [e.name for e in self.selected()]

        def hide_all(svc) -> None:
            for n in names:
                svc.graph.hide(n)

        if names:
            self._change(hide_all)
