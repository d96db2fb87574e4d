"""'Why this result': how a hit was ranked, from SearchResult.explanation, as arithmetic a user can follow
from the parts to the score (core/fusion.py), and why the hit counts as relevant (or is a weaker match)."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QTextBrowser

from memory_curator.core.model import RankExplanation, SearchResult
from memory_curator.core.search import KEYWORD_SHARE, SEMANTIC_SHARE


def _rank(r: int | None) -> str:
    return f"#{r}" if r is not None else "not in this list"


def arithmetic(result: SearchResult) -> list[str]:
    """The steps from the parts to the score, each a line of plain text."""
    e = result.explanation
    assert e is not None
    if not e.best_possible:  # semantic mode: the score is the cosine similarity
        return [f"Score = the cosine similarity of the query and this memory (with what its session neighbours "
                f"lend its vector) = {result.score:.4f}"]
    parts = [("keyword", e.keyword_contribution), ("semantic", e.semantic_contribution)]
    if e.graph_weight:
        parts.append(("graph", e.graph_contribution))
    total = sum(v for _, v in parts)
    lines = [
        f"Keyword: {e.keyword_weight:.2f} × its BM25 over the best BM25 for this query = {e.keyword_contribution:.4f}",
        f"Semantic: {e.semantic_weight:.2f} × how far its cosine lies above a typical memory's, on the way to the "
        f"best hit's = {e.semantic_contribution:.4f}",
    ]
    if e.context_contribution:
        lines.append(f"(of these, {e.context_contribution:.4f} lent by neighbours in its session)")
    if e.graph_weight:
        lines.append(f"Graph: {e.graph_weight:.2f} × its graph score over the best = {e.graph_contribution:.4f}")
    sums = " + ".join(f"{v:.4f}" for _, v in parts)
    raw = total / e.best_possible
    blended = e.importance_weight > 0 and e.relevance is not None
    name = "Relevance" if blended else "Score"
    line = f"{name} = ({sums}) / {e.best_possible:.2f} = {raw:.4f} ({e.best_possible:.2f}: the most a hit can reach)"
    kept = e.relevance if blended else result.score
    if abs(raw - kept) > 5e-4:
        line += f", kept within 0..1: {kept:.4f}"
    lines.append(line)
    if blended:
        w = e.importance_weight
        lines.append(f"Score = {1 - w:.2f} × relevance {e.relevance:.4f} + {w:.2f} × importance {e.importance:.4f} "
                     f"(the search asked to weigh importance {w:.2f}) = {result.score:.4f}")
    return lines


def relevance(e: RankExplanation) -> str:
    """Why the hit is listed among the relevant ones, or why it waits behind "Show weaker matches"."""
    how = (f"{KEYWORD_SHARE:.0%} (keyword) and {SEMANTIC_SHARE:.0%} (meaning) of the way from the best hit to a "
           "typical one of this vault for this query")
    reasons = []
    if e.bm25 is not None and e.bm25_cutoff is not None:
        strong = e.bm25 <= e.bm25_cutoff
        reasons.append((strong, f"it holds the query's words {'as strongly as' if strong else 'less strongly than'} "
                                f"the best keyword hits (BM25 {e.bm25:.2f}, cut-off {e.bm25_cutoff:.2f}; lower is "
                                "stronger)"))
    if e.distance is not None and e.cutoff_distance is not None:
        close = e.distance <= e.cutoff_distance
        reasons.append((close, f"its meaning is {'close to' if close else 'not close to'} the query's (cosine "
                               f"distance {e.distance:.3f}, cut-off {e.cutoff_distance:.3f})"))
    kept = [text for ok, text in reasons if ok]
    if e.relevant:
        return f"Kept: {' and '.join(kept) or 'no cut-off applies in this mode'}. Each cut-off lies {how}."
    missed = [text for ok, text in reasons if not ok] or ["only its session neighbours brought it in"]
    return f"A weaker match: {' and '.join(missed)}. Each cut-off lies {how}."


def explain_html(result: SearchResult) -> str:
    e = result.explanation
    title = html.escape(result.memory.title)
    if e is None:
        return f"<h3>{title}</h3><p>Score {result.score:.3f}. The engine gave no ranking details for this hit.</p>"
    rows = [
        ("Mode", html.escape(e.mode)),
        ("Keyword rank (FTS5 / BM25)", _rank(e.keyword_rank)),
        ("Semantic rank", _rank(e.semantic_rank)),
        ("Cosine distance", f"{e.distance:.4f}" if e.distance is not None else "—"),
        *([("Graph rank (entities the query names)", _rank(e.graph_rank))] if e.graph_weight else []),
    ]
    table = "".join(f"<tr><td>{k}</td><td align='right'><b>{v}</b></td></tr>" for k, v in rows)
    steps = "".join(f"<li>{html.escape(line)}</li>" for line in arithmetic(result))
    weights = (f"<p>Salience {e.salience:.2f} and importance {e.importance:.2f} (from recall history) do not change "
               "this score; they order the results when you sort by importance.</p>")
    note = f"<p><i>{html.escape(e.note)}</i></p>" if e.note else ""
    if e.graph_note:
        note += f"<p>Graph: {html.escape(e.graph_note)}</p>"
    matched = (f"<p>Matched keywords: {html.escape(', '.join(result.matched_keywords))}</p>"
               if result.matched_keywords else "")
    return (f"<h3>Why “{title}”</h3><p><b>{html.escape(relevance(e))}</b></p><table cellspacing='4'>{table}</table>"
            f"<ol>{steps}</ol>{weights}{matched}{note}")


class ExplanationPanel(QTextBrowser):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("whyThisResult")
        self.setAccessibleName("Why this result")
        self.setOpenLinks(False)
        self.clear_result()

    def show_result(self, result: SearchResult | None) -> None:
        if result is None:
            self.clear_result()
        else:
            self.setHtml(explain_html(result))

    def clear_result(self) -> None:
        self.setHtml("<p>Select a search result to see how it was ranked: the arithmetic from each side's part "
                     "(and what its session neighbours lent it) to the score, and why it counts as relevant.</p>")
