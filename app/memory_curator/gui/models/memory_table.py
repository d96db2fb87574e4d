"""The memory list: a table model that fetches pages from the engine as the view scrolls.

Only the rows seen so far are held; the total comes from ``count``. Pages arrive asynchronously: a
``reload`` supersedes any page still in flight (requests share the key "list").
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFont

from memory_curator.core.model import MemoryItem
from memory_curator.gui.models.roles import IdRole, ItemRole
from memory_curator.gui.models.table import ROOT, RowsTableModel
from memory_curator.gui.worker import Engine

PAGE = 400
COLUMNS = ("Title", "Category", "Salience", "Updated", "Accessed", "Embedded")
# column -> the engine's order_by; a column without one is not sortable
ORDER_BY = {0: "title", 1: "category", 2: "salience", 3: "updated", 4: "access_count"}


@dataclass(frozen=True)
class ListFilter:
    """What the browse pane selected: a category, a session, a keyword, a classification label, the trash, or
    everything."""

    category: str | None = None
    session_id: str | None = None
    keyword: str | None = None
    trash: bool = False
    labelled: str | None = None  # a classification label (core/graph/classify.py); ``label()`` is the caption

    def label(self) -> str:
        if self.trash:
            return "Trash"
        for prefix, value in (("Category", self.category), ("Session", self.session_id), ("Keyword", self.keyword),
                              ("Label", self.labelled)):
            if value:
                return f"{prefix}: {value}"
        return "All memories"


def _fmt_date(item: MemoryItem, with_time: bool = False) -> str:
    """The day in the list (the column stays narrow so the title gets the room); the time in its tooltip."""
    return item.updated_at.astimezone().strftime("%Y-%m-%d %H:%M" if with_time else "%Y-%m-%d")


_CELLS = (None, lambda it: it.category, lambda it: f"{it.salience:.2f}", _fmt_date, lambda it: str(it.access_count),
          lambda it: "yes" if it.embedded else "no")  # columns 1-5 as the list shows them (the title is data's)


_ROLES = frozenset((Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.FontRole,
                    Qt.ItemDataRole.TextAlignmentRole, ItemRole, IdRole))  # the roles data() answers


class MemoryTableModel(RowsTableModel):
    columns = COLUMNS
    loaded = Signal(int)  # total rows for the current filter
    failed = Signal(str)

    def __init__(self, engine: Engine | None = None, parent=None):
        super().__init__(parent)
        self._engine = engine
        self._total = 0
        self._loading = False
        self.filter = ListFilter()
        self._order = ("updated", False)  # (order_by, ascending)
        self.in_conflict: set[str] = set()  # ids of memories in a sync conflict: marked in the list

    def set_engine(self, engine: Engine) -> None:
        self._engine = engine
        self.beginResetModel()
        self._rows, self._total, self._loading = [], 0, False
        self.endResetModel()

    # -- loading --------------------------------------------------------------------------------------

    def _query(self) -> dict:
        f = self.filter
        order_by, ascending = self._order
        return {"category": f.category, "session_id": f.session_id, "keyword": f.keyword, "label": f.labelled,
                "order_by": order_by, "descending": not ascending}

    def reload(self, filter: ListFilter | None = None) -> None:
        if filter is not None:
            self.filter = filter
        if self._engine is None:
            return
        self._loading = True
        if self.filter.trash:
            req = self._engine.run(lambda svc: (svc.list_trash(), None, set()), key="list", read=True)
        else:
            q = self._query()
            req = self._engine.run(
                lambda svc: (svc.list_memories(limit=PAGE, offset=0, **q),
                             svc.count(category=q["category"], session_id=q["session_id"], keyword=q["keyword"],
                                       label=q["label"]),
                             svc.conflicts.ids()),
                key="list", read=True,
            )
        req.done.connect(self._on_reloaded)
        req.failed.connect(self._on_failed)

    def _on_reloaded(self, value: tuple[list[MemoryItem], int | None, set[str]]) -> None:
        rows, total, self.in_conflict = value
        self.beginResetModel()
        self._rows = list(rows)
        self._total = len(rows) if total is None else total
        self._loading = False
        self.endResetModel()
        self.loaded.emit(self._total)

    def _on_failed(self, exc: object) -> None:
        self._loading = False
        self.failed.emit(str(exc))

    def canFetchMore(self, parent=ROOT) -> bool:
        return not parent.isValid() and not self._loading and len(self._rows) < self._total

    def fetchMore(self, parent=ROOT) -> None:
        if not self.canFetchMore(parent) or self._engine is None:
            return
        self._loading = True
        # The page after the last row held, found by its sort key (a page deep in 1,000,000 is a seek, not a walk
        # of every row before it); the offset serves the orders without a key (session, times recalled).
        req = self._engine.call("list_memories", limit=PAGE, offset=len(self._rows),
                                after=self._rows[-1] if self._rows else None, key="list", read=True, **self._query())
        req.done.connect(self._on_page)
        req.failed.connect(self._on_failed)

    def _on_page(self, rows: list[MemoryItem]) -> None:
        self._loading = False
        known = {it.id for it in self._rows[-PAGE:]}
        rows = [r for r in rows if r.id not in known]  # a save between pages may shift the offsets
        if not rows:
            self._total = len(self._rows)
            return
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(rows) - 1)
        self._rows.extend(rows)
        self.endInsertRows()

    # -- Qt model -------------------------------------------------------------------------------------

    def data(self, index: QModelIndex | QPersistentModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if role not in _ROLES:  # most of a repaint's questions (colours, icons, check states...)
            return None
        item: MemoryItem | None = self.row_at(index)
        if item is None:
            return None
        col = index.column()
        conflict = item.id in self.in_conflict
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return "⚠ " + item.title if conflict else item.title
            return _CELLS[col](item)  # only the cell asked for: a repaint asks for each one in turn
        if role == Qt.ItemDataRole.ToolTipRole and col == 3:
            return f"Updated {_fmt_date(item, with_time=True)}"
        if role == Qt.ItemDataRole.ToolTipRole and col == 0 and conflict:
            return (f"{item.title}\nIn a sync conflict: two machines changed it. View › Sync conflicts… shows both "
                    "versions; until then it is listed as this machine had it.")
        if role == Qt.ItemDataRole.ToolTipRole and col == 0:
            pinned = "\nPinned: never decays" if item.pinned else ""
            return f"{item.title}\n{', '.join(item.keywords)}{pinned}" if item.keywords else item.title + pinned
        if role == Qt.ItemDataRole.FontRole and col == 0 and item.pinned:
            font = QFont()  # pinned memories stand out in the list
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (2, 4):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == ItemRole:
            return item
        if role == IdRole:
            return item.id
        return None

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        if column in ORDER_BY and not self.filter.trash:
            self._order = (ORDER_BY[column], order == Qt.SortOrder.AscendingOrder)
            self.reload()

    # -- edits from elsewhere -------------------------------------------------------------------------

    def item(self, row: int) -> MemoryItem | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, memory_id: str) -> int:
        return next((i for i, it in enumerate(self._rows) if it.id == memory_id), -1)

    def replace_item(self, item: MemoryItem) -> None:
        """A memory changed (saved, salience): show its new values in place."""
        row = self.row_of(item.id)
        if row >= 0:
            self._rows[row] = item
            self.row_changed(row)
