"""The browse pane's tree: all memories, categories (defaults and any others in the vault) with counts,
sessions, keywords, classification labels (the browse facet of issue 11) and the trash. Each node carries the ListFilter it selects."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QStandardItem, QStandardItemModel

from memory_curator.gui.models.memory_table import ListFilter
from memory_curator.gui.models.roles import FilterRole

MAX_KEYWORDS = 300  # the tag and session lists stay readable; the rest are still searchable


@dataclass(frozen=True)
class BrowseCounts:
    total: int = 0
    categories: dict[str, int] = field(default_factory=dict)
    sessions: dict[str, int] = field(default_factory=dict)
    keywords: dict[str, int] = field(default_factory=dict)
    trash: int = 0
    labels: dict[str, int] = field(default_factory=dict)


def browse_counts(svc) -> BrowseCounts:
    """Runs on the worker thread: everything the pane shows, in one request."""
    return BrowseCounts(svc.count(), svc.categories(), svc.sessions(), svc.keywords(), svc.counts.trash(),
                        svc.graph.labels.counts())


def _node(text: str, filt: ListFilter | None) -> QStandardItem:
    item = QStandardItem(text)
    item.setEditable(False)
    item.setData(filt, FilterRole)
    return item


class BrowseModel(QStandardItemModel):
    GROUPS = ("Categories", "Sessions", "Keywords", "Labels")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setHorizontalHeaderLabels(["Browse"])
        self.populate(BrowseCounts())

    def populate(self, counts: BrowseCounts) -> None:
        self.clear()
        self.setHorizontalHeaderLabels(["Browse"])
        root = self.invisibleRootItem()
        root.appendRow(_node(f"All memories ({counts.total})", ListFilter()))
        groups = (
            ("Categories", counts.categories, lambda v: ListFilter(category=v)),
            ("Sessions", dict(list(counts.sessions.items())[-MAX_KEYWORDS:]), lambda v: ListFilter(session_id=v)),
            ("Keywords", dict(list(counts.keywords.items())[:MAX_KEYWORDS]), lambda v: ListFilter(keyword=v)),
            ("Labels", dict(sorted(counts.labels.items())), lambda v: ListFilter(labelled=v)),
        )
        for title, values, make in groups:
            group = _node(title, None)
            group.setSelectable(False)
            for value, n in values.items():
                group.appendRow(_node(f"{value} ({n})", make(value)))
            root.appendRow(group)
        root.appendRow(_node(f"Trash ({counts.trash})", ListFilter(trash=True)))

    def find(self, filt: ListFilter):
        """The index of the node that selects ``filt`` (to keep the selection across a refresh)."""
        for item in self._walk(self.invisibleRootItem()):
            if item.data(FilterRole) == filt:
                return item.index()
        return None

    def _walk(self, parent: QStandardItem):
        for row in range(parent.rowCount()):
            child = parent.child(row)
            yield child
            yield from self._walk(child)
