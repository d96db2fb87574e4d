"""Search results: rank, score, title, category and the matched snippet (with the query terms marked)."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt

from memory_curator.core.model import SearchResult
from memory_curator.gui.models.roles import IdRole, ItemRole
from memory_curator.gui.models.table import RowsTableModel

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


class SearchResultsModel(RowsTableModel):
    columns = COLUMNS

    def __init__(self, parent=None):
        super().__init__(parent)
        self._html: list[str] = []
        self.query = ""
        self.warnings: tuple[str, ...] = ()

    def set_results(self, query: str, results: list[SearchResult], warnings: tuple[str, ...] = ()) -> None:
        self.beginResetModel()
        self.query = query
        self._rows = list(results)
        self._html = [highlight(r.matched_snippet, query_terms(query, r)) for r in self._rows]
        self.warnings = tuple(warnings)
        self.endResetModel()

    def result(self, row: int) -> SearchResult | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def replace_item(self, item) -> None:
        for row, r in enumerate(self._rows):
            if r.memory.id == item.id:
                self._rows[row] = SearchResult(item, r.score, r.distance, r.matched_snippet, r.matched_keywords,
                                                  r.explanation)
                self.row_changed(row)

    def data(self, index: QModelIndex | QPersistentModelIndex, role=Qt.ItemDataRole.DisplayRole):
        r: SearchResult | None = self.row_at(index)
        if r is None:
            return None
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
