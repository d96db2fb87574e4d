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


# Markdown markup that means nothing in a one-line excerpt; emphasis markers go only where they wrap words,
# so snake_case names and 2*3 keep their characters.
_MARKUP = [
    (re.compile(r"^ {0,3}(?:#{1,6}|>|[-*+]|\d+[.)])[ \t]+", re.MULTILINE), ""),  # headings, quotes, list items
    (re.compile(r"^ {0,3}(?:```|~~~).*$", re.MULTILINE), ""),  # code fences
    (re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)"), r"\1"),  # links and images: their text
    (re.compile(r"(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1"), r"\2"),
    (re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])"), r"\1"),
    (re.compile(r"`([^`\n]*)`"), r"\1"),
]


def plain_excerpt(snippet: str) -> str:
    """``snippet`` (markdown) as one line of plain text: no heading hashes, bullets, emphasis or link syntax."""
    for pattern, repl in _MARKUP:
        snippet = pattern.sub(repl, snippet)
    return " ".join(snippet.split())


def highlight(snippet: str, terms: list[str]) -> str:
    """HTML-escaped ``snippet`` as plain text, with every occurrence of a term (case-insensitive) in bold."""
    text = plain_excerpt(snippet)
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
            snippet = plain_excerpt(r.matched_snippet)
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
