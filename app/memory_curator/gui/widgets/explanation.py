"""'Why this result': how a hit was ranked, from SearchResult.explanation."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QTextBrowser

from memory_curator.core.model import SearchResult


def explain_html(result: SearchResult) -> str:
    e = result.explanation
    title = html.escape(result.memory.title)
    if e is None:
        return f"<h3>{title}</h3><p>Score {result.score:.3f}. The engine gave no ranking details for this hit.</p>"

    def rank(r: int | None) -> str:
        return f"#{r}" if r is not None else "not in this list"

    rows = [
        ("Mode", html.escape(e.mode)),
        ("Keyword rank (FTS5 / BM25)", rank(e.keyword_rank)),
        ("Semantic rank", rank(e.semantic_rank)),
        ("Cosine distance", f"{e.distance:.4f}" if e.distance is not None else "—"),
        (f"Keyword contribution  w·BM25/best, w={e.keyword_weight:.2f}", f"{e.keyword_contribution:.5f}"),
        (f"Semantic contribution  w·cosine above a typical memory's, w={e.semantic_weight:.2f}",
         f"{e.semantic_contribution:.5f}"),
        ("Of that, lent by neighbours in its session", f"{e.context_contribution:.5f}"),
        *([("Graph rank (entities the query names)", rank(e.graph_rank)),
           (f"Graph contribution  w·score/best, w={e.graph_weight:.2f}", f"{e.graph_contribution:.5f}")]
          if e.graph_weight else []),
        ("Salience", f"{e.salience:.2f}"),
        ("Importance (from recall history)", f"{e.importance:.2f}"),
        ("Final score", f"{result.score:.4f}"),
    ]
    table = "".join(f"<tr><td>{k}</td><td align='right'><b>{v}</b></td></tr>" for k, v in rows)
    note = f"<p><i>{html.escape(e.note)}</i></p>" if e.note else ""
    if e.graph_note:
        note += f"<p>Graph: {html.escape(e.graph_note)}</p>"
    matched = (f"<p>Matched keywords: {html.escape(', '.join(result.matched_keywords))}</p>"
               if result.matched_keywords else "")
    return f"<h3>Why “{title}”</h3><table cellspacing='4'>{table}</table>{matched}{note}"


class ExplanationPanel(QTextBrowser):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setOpenLinks(False)
        self.clear_result()

    def show_result(self, result: SearchResult | None) -> None:
        if result is None:
            self.clear_result()
        else:
            self.setHtml(explain_html(result))

    def clear_result(self) -> None:
        self.setHtml("<p>Select a search result to see how it was ranked: its keyword and semantic ranks, "
                     "each side's contribution to the score, and what its session neighbours lent it.</p>")
