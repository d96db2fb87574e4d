"""The best full-text rows of a query without scoring every matching row (MaxScore over FTS5).

FTS5's ``bm25()`` scores every row that matches any word of the query, 3-5 us a row at 1,000,000 memories:
a query holding one common word scored tens of thousands of rows to keep a hundred. A word's part of a score
is below ``idf * (k1 + 1)`` however often a row holds it, so once ``depth`` rows are known to score at least
``theta``, a row holding only words whose bounds sum below ``theta`` cannot reach the top:

- ``theta`` is the ``depth``-th best score of the rows holding the rarest word and another one;
- the common words (``rest``) are a run at the start or the end of the query whose bounds sum below
  ``theta``; ``(rare) AND (rest)`` scores the rows holding both kinds with every phrase in the query's order,
  so FTS5 adds the same parts in the same order and the scores are the same floats as the plain ranking's;
- a row holding rare words only is scored by ``(rare)`` alone: the common words' parts would have been 0.0.

The result is search_rows.fts_top's, row for row and float for float (ties by rowid, as SQLite's sorter
leaves them). Prefix words, one-word queries, small indexes and queries the pruning would not halve go the
plain way. At 1,000,000 a fifth to a half of the bench's queries are pruned, each ranked in about half the
time; the others pay the word counts once more (a few percent).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from memory_curator.core.index import postings
from memory_curator.core.index.filters import Filters
from memory_curator.core.index.store import IndexStore
from memory_curator.core.text.tokens import TEXT_COLUMNS, phrase

K1 = 1.2  # FTS5's bm25() constants (ext/fts5/fts5_aux.c)
SLACK = 1e-9  # relative: a bound compared with a score computed in another order of rounding
RARE_ROWS = 4  # the rarest word's rows per row wanted, below which pruning is not tried
# Below this many memories the plain ranking is quick (100,000: p50 3 ms, p95 10 ms) and pruning was tried in
# vain for 197 of the bench's 200 queries, each try costing a tenth of a ranking.
MIN_ROWS = 250_000


def _match(terms: Sequence[str]) -> str:
    return f"({' OR '.join(phrase(t) for t in terms)})"


def _scored(store: IndexStore, expr: str, w: str, limit: int = -1) -> dict[int, float]:
    """rowid -> bm25 of the rows matching ``expr`` over the text columns, the ``limit`` best (-1: all)."""
    return dict(store.conn.execute(
        f"SELECT rowid, bm25(memories_fts, {w}) AS r FROM memories_fts WHERE memories_fts MATCH ? "
        "ORDER BY r LIMIT ?", (f"{TEXT_COLUMNS} : ({expr})", limit)))


def _rows(store: IndexStore) -> int:
    """At least FTS5's row count (the highest rowid): an idf from it is no smaller than bm25's."""
    return store.conn.execute("SELECT max(id) FROM memories_fts_docsize").fetchone()[0] or 0


def _bounds(store: IndexStore, terms: Sequence[str], rows: int) -> tuple[list[int], list[float]]:
    """Each term's matching rows (as bm25's idf counts them) and the bound on its part of a score; ``rows``:
    ``_rows``."""
    probe = "(SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?)"
    hits = list(store.conn.execute(f"SELECT {', '.join([probe] * len(terms))}",
                                   [f"{TEXT_COLUMNS} : {phrase(t)}" for t in terms]).fetchone())
    return hits, [(K1 + 1.0) * max(math.log((rows - h + 0.5) / (h + 0.5)), 1e-6) if rows > h else 1e-6 * (K1 + 1.0)
                  for h in hits]


def _ordered_and(terms: Sequence[str], rest: range) -> str:
    """``(rare) AND (rest)`` with the phrases in the query's order when ``rest`` is a run at one end."""
    rare = [t for i, t in enumerate(terms) if i not in rest]
    common = [terms[i] for i in rest]
    return f"{_match(common)} AND {_match(rare)}" if rest.start == 0 else f"{_match(rare)} AND {_match(common)}"


def fts_top_pruned(store: IndexStore, terms: Sequence[str], weights: Sequence[float], filters: Filters,
                   depth: int, min_rows: int = MIN_ROWS, want: int | None = None) -> list[tuple[int, float, bool]] | None:
    """search_rows.fts_top for the plain OR of ``terms`` (no prefixes), the same rows and scores; None when
    pruning would not help (then the caller ranks every match). With the common words' postings kept
    (core/index/postings.py, large indexes) the ranking is read from them instead, the same rows and floats;
    then, with ``want``, only its first rows when ``want`` of them pass the filters (the rest are not read)."""
    terms = list(terms)
    kept = postings.ranked(store.conn, terms, weights, depth) if min(weights, default=0) >= 0 else None
    if kept is not None:
        if want is not None and want < len(kept):
            first = _with_filters(store, kept[:want], filters)
            if all(ok for _, _, ok in first):
                return first
        return _with_filters(store, kept, filters)
    m = len(terms)
    rows = _rows(store)
    if m < 2 or depth < 1 or min(weights) < 0 or rows < min_rows:
        return None
    # Few rows hold the rarest word: too few hold it with another for a floor, and the plain way is quick.
    # Counted no further than needed to know.
    enough = RARE_ROWS * depth
    probe = "(SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?))"
    if min(store.conn.execute(f"SELECT {', '.join([probe] * m)}", [
            v for t in terms for v in (f"{TEXT_COLUMNS} : {phrase(t)}", enough)]).fetchone()) < enough:
        return None
    w = ", ".join(str(float(x)) for x in weights)
    hits, ub = _bounds(store, terms, rows)
    total = sum(hits)
    r = max(range(m), key=lambda i: ub[i])  # the rarest word
    runs = [range(0, p) for p in range(1, m)] + [range(p, m) for p in range(1, m)]
    runs = [run for run in runs if r not in run and sum(hits[i] for i in run) * 2 >= total]
    if not runs:  # no run of common words could spare half the rows
        return None
    # theta: the depth-th best score of the rows holding the rarest word and another (the other words added
    # in another order than the query's when the rarest is not at an end: SLACK covers the last bits),
    # scored once they are known to be enough.
    whole = range(0, r) if r == m - 1 else range(r + 1, m) if r == 0 else None
    others = [t for i, t in enumerate(terms) if i != r]
    expr = _ordered_and(terms, whole) if whole else f"{_match([terms[r]])} AND {_match(others)}"
    if store.conn.execute("SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)",
                          (f"{TEXT_COLUMNS} : ({expr})", depth)).fetchone()[0] < depth:
        return None
    both = _scored(store, expr, w)
    theta = -sorted(both.values())[depth - 1] * (1 - SLACK)
    # The common words: the run at either end of the query, without the rarest word, sparing the most rows
    # while their bounds sum below theta. Rows holding only these cannot reach the top.
    runs = [run for run in runs if sum(ub[i] for i in run) * (1 + SLACK) < theta]
    if not runs:
        return None
    rest = max(runs, key=lambda run: sum(hits[i] for i in run))
    if rest != whole:  # each row holding a rare word and a common one, scored in the query's order
        both = _scored(store, _ordered_and(terms, rest), w)
    # The rows holding rare words only: their scores alone are whole (the common words' parts are 0.0).
    # A row of ``both`` ranked above one of them here ranks above it in the end too, so the best depth do.
    scores = _scored(store, _match([t for i, t in enumerate(terms) if i not in rest]), w, depth)
    scores.update(both)
    return _with_filters(store, sorted(scores.items(), key=lambda kv: (kv[1], kv[0]))[:depth], filters)


def _with_filters(store: IndexStore, top: list[tuple[int, float]], filters: Filters) -> list[tuple[int, float, bool]]:
    where, params = filters.sql()
    allowed = {pk for (pk,) in store.conn.execute(
        f"SELECT m.pk FROM memories m WHERE m.pk IN (SELECT value FROM json_each(?)) AND {where}",
        [json.dumps([pk for pk, _ in top]), *params])}
    return [(pk, score, pk in allowed) for pk, score in top]
