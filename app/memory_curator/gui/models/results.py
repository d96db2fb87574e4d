"""Search results: rank, score, title, category and the matched snippet (with the query terms marked)."""

from __future__ import annotations

import html
import re
from dataclasses import replace

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from memory_curator.core.model import SearchResult
from memory_curator.gui.models.roles import IdRole, ItemRole
from memory_curator.gui.models.table import ROOT, RowsTableModel

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
    """The relevant hits (see ``search.relevance_cutoff``), then one "Show N weaker matches" row that brings in
    the rest when activated: every search ranks the whole vault, and its tail is noise a user asks for."""

    columns = COLUMNS

    def __init__(self, parent=None):
        super().__init__(parent)
        self._html: list[str] = []
        self._weaker: list[SearchResult] = []
        self.query = ""
        self.warnings: tuple[str, ...] = ()

    def set_results(self, query: str, results: list[SearchResult], warnings: tuple[str, ...] = ()) -> None:
        self.beginResetModel()
        self.query = query
        relevant = [r for r in results if r.explanation is None or r.explanation.relevant]
        self._weaker = [r for r in results if r.explanation is not None and not r.explanation.relevant]
        self._rows = relevant
        self._html = [self._highlight(r) for r in self._rows]
        self.warnings = tuple(warnings)
        self.endResetModel()

    def _highlight(self, r: SearchResult) -> str:
        return highlight(r.matched_snippet, query_terms(self.query, r))

    @property
    def shown_count(self) -> int:
        """Results on screen (without the "show more" row)."""
        return len(self._rows)

    @property
    def weaker_hidden(self) -> int:
        return len(self._weaker)

    def is_more_row(self, row: int) -> bool:
        return bool(self._weaker) and row == len(self._rows)

    def show_more(self) -> None:
        """Bring in the weaker matches in place of the "show more" row."""
        if not self._weaker:
            return
        first = len(self._rows)
        self.beginRemoveRows(ROOT, first, first)
        weaker, self._weaker = self._weaker, []
        self.endRemoveRows()
        self.beginInsertRows(ROOT, first, first + len(weaker) - 1)
        self._rows += weaker
        self._html += [self._highlight(r) for r in weaker]
        self.endInsertRows()

    def rowCount(self, parent=ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows) + (1 if self._weaker else 0)

    def result(self, row: int) -> SearchResult | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def results(self) -> list[SearchResult]:
        return [*self._rows, *self._weaker]

    def replace_item(self, item) -> None:
        for rows in (self._rows, self._weaker):
            for row, r in enumerate(rows):
                if r.memory.id == item.id:
                    rows[row] = replace(r, memory=item)
                    if rows is self._rows:
                        self.row_changed(row)

    def data(self, index: QModelIndex | QPersistentModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if index.isValid() and self.is_more_row(index.row()):
            return self._more_data(index.column(), role)
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

    def _more_data(self, col: int, role: int):
        n = len(self._weaker)
        if role == Qt.ItemDataRole.DisplayRole and col == 1:
            return f"Show {n} weaker match{'es' if n != 1 else ''}…"
        if role == Qt.ItemDataRole.ToolTipRole:
            return ("Memories that neither hold the query's words nor come close to its meaning "
                    "(Enter or a click shows them)")
        if role == Qt.ItemDataRole.FontRole:
            font = QFont()
            font.setItalic(True)
            return font
        return None
