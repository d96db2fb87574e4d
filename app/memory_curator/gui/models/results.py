"""Search results: rank, score, title, category and the matched snippet (with the query terms marked)."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from memory_curator.core.model import SearchResult
from memory_curator.gui.models.roles import IdRole, ItemRole

_ROOT = QModelIndex()  # the invisible root: the default parent of a table's rows

COLUMNS = ("Score", "Title", "Category", "Salience", "Snippet")
SNIPPET_COLUMN = 4
HtmlRole = Qt.ItemDataRole.UserRole + 10  # the snippet as HTML with <b> around matched terms


def _term_pattern(term: str) -> str:
    # Latin words match whole words only ("we" must not light up "answers"); CJK has no spaces to bound by.
    return rf"\b{re.escape(term)}\b" if term.isascii() else re.escape(term)


def highlight(snippet: str, terms: list[str]) -> str:
    """HTML-escaped ``snippet`` with every occurrence of a term (case-insensitive) in bold."""
    text = " ".join(snippet.split())
    words = sorted({t for t in terms if len(t) > 2 or not t.isascii()}, key=len, reverse=True)
    if not words:
        return html.escape(text)
    pattern = re.compile("|".join(_term_pattern(w) for w in words), re.IGNORECASE)
    out, pos = [], 0
    for m in pattern.finditer(text):
        out.append(html.escape(text[pos : m.start()]))
        out.append(f"<b>{html.escape(m.group())}</b>")
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def query_terms(query: str, result: SearchResult) -> list[str]:
    words = re.findall(r"\w+", query)
    return [*words, *result.matched_keywords]


class SearchResultsModel(QAbstractTableModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._results: list[SearchResult] = []
        self._html: list[str] = []
        self.query = ""
        self.warnings: tuple[str, ...] = ()

    def set_results(self, query: str, results: list[SearchResult], warnings: tuple[str, ...] = ()) -> None:
        self.beginResetModel()
        self.query = query
        self._results = list(results)
        self._html = [highlight(r.matched_snippet, query_terms(query, r)) for r in self._results]
        self.warnings = tuple(warnings)
        self.endResetModel()

    def result(self, row: int) -> SearchResult | None:
        return self._results[row] if 0 <= row < len(self._results) else None

    def replace_item(self, item) -> None:
        for row, r in enumerate(self._results):
            if r.memory.id == item.id:
                self._results[row] = SearchResult(item, r.score, r.distance, r.matched_snippet, r.matched_keywords,
                                                  r.explanation)
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def rowCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(self._results)

    def columnCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not (0 <= index.row() < len(self._results)):
            return None
        r = self._results[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            snippet = " ".join(r.matched_snippet.split())
            return (f"{r.score:.3f}", r.memory.title, r.memory.category, f"{r.memory.salience:.2f}", snippet)[col]
        if role == HtmlRole and col == SNIPPET_COLUMN:
            return self._html[index.row()]
        if role == Qt.ItemDataRole.ToolTipRole and col == SNIPPET_COLUMN:
            return r.matched_snippet
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 3):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == ItemRole:
            return r
        if role == IdRole:
            return r.memory.id
        return None
