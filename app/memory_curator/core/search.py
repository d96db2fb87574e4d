"""Keyword (FTS5), semantic (sqlite-vec KNN) and hybrid search.

Each side finds its candidates (memory pks, best first); the candidates' session neighbours join them, and
core/fusion.py scores them all on one scale. Scores are 0..1: keyword and hybrid as the fused score,
semantic as the cosine similarity between the query and the memory's context vector.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, replace

import numpy as np

from memory_curator.core import blas, fusion
from memory_curator.core.config import MemoryConfig
from memory_curator.core.embed.base import Embedder
from memory_curator.core.embedding import Embedding
from memory_curator.core.errors import ValidationError
from memory_curator.core.graph.graph import EntityGraph
from memory_curator.core.graph.retrieval import GraphLeg
from memory_curator.core.index import maxscore, search_rows
from memory_curator.core.index.codes import Scan
from memory_curator.core.index.filters import Filters
from memory_curator.core.index.neighbours import session_neighbours
from memory_curator.core.index.store import IndexStore
from memory_curator.core.index.vectors import normalized
from memory_curator.core.model import (
    SEARCH_MODES,
    SORT_KEYS,
    MemoryItem,
    Notice,
    RankExplanation,
    SearchResult,
    SearchResults,
)
from memory_curator.core.model import (
    SEMANTIC_WEIGHT_LOWERED as LOWERED,
)
from memory_curator.core.text import tokens
from memory_curator.core.text.chunking import chunk_text

# Column weights for bm25(): a hit in the title or the tags says more than one in the body.
BM25_WEIGHTS = (2.0, 1.0, 1.5, 1.0)  # title, content, keywords, Finnish stems
# The relevance cut-off (see relevance_cutoff): how far past the best hit of a list a hit stays relevant, as a
# share of the way to the list's median candidate (cosine distance: at least MIN_MARGIN past the best). On
# LoCoMo conv-26 and conv-30 (local model, hybrid, top 50, rank fusion then) these kept 11 and 14 hits on
# average, and of the queries with evidence in the top 10, 94% and 98% still showed it above the cut.
SEMANTIC_SHARE = 0.3
KEYWORD_SHARE = 0.5
MIN_MARGIN = 0.02
MIN_SAMPLE = 10  # a shorter list has no "typical candidate" to measure against: all of it is kept


@dataclass(frozen=True)
class SearchOutcome:
    results: list[SearchResult]
    mode_used: str
    warnings: tuple[str, ...] = ()

    def value(self, query: str) -> SearchResults:
        return SearchResults(self.results, query=query, mode_used=self.mode_used, warnings=self.warnings)


@dataclass
class _Candidate:
    pk: int
    keyword_rank: int | None = None
    bm25: float | None = None
    semantic_rank: int | None = None
    distance: float | None = None
    chunk_snippet: str | None = None
    graph_rank: int | None = None
    fused: float = 0.0
    cosine: float | None = None  # the query's cosine with the memory's context vector (core/fusion.py)


def keyword_ranked(store: IndexStore, terms: Sequence[str], filters: Filters, n: int) -> list[tuple[int, float]]:
    """Memories matching the query words, best first. Words match as the index stores them (porter stems:
    ``plans`` meets ``planning``); a word found nowhere is read as the start of longer ones (``kube`` ->
    ``kubernetes``, a word still being typed). When fewer than ``n`` memories match, every word becomes a
    prefix (``muisti`` -> ``muistipalvelu``) and then Finnish stems join in, Snowball's as stored
    (``tietokantaan`` meets ``tietokannan``) and then prefix stems (``muisteja`` -> ``muist*``);
    what they add follows what matched as typed, never reordering it. Prefixes are a fallback because each
    one ORs every longer word into the ranking, which cost a third of a keyword search on a large vault."""
    terms = list(terms)
    candidates = [t for t in terms if tokens.can_prefix(t)]
    unknown = [t for t, known in zip(candidates, store.has_terms(candidates), strict=True) if not known]
    tried = tokens.fts_match(terms, unknown)
    ranked = _fts_ranked(store, tried, filters, n, None if unknown else terms)
    for wider in _wider_matches(terms):
        if len(ranked) >= n:
            break
        if wider is None or wider == tried:
            continue
        seen = {pk for pk, _ in ranked}
        more = _fts_ranked(store, wider, filters, n)
        ranked += [(pk, r) for pk, r in more if pk not in seen][: n - len(ranked)]
    return ranked


def _wider_matches(terms: list[str]) -> Iterator[str | None]:
    """keyword_ranked's fallback rounds, made only when one is needed (most searches fill up at once)."""
    yield tokens.fts_match(terms, terms)
    yield from tokens.stem_matches(terms)


def _fts_ranked(store: IndexStore, match: str | None, filters: Filters, n: int,
                terms: Sequence[str] | None = None) -> list[tuple[int, float]]:
    """The ``n`` best rows of ``match`` that pass the filters; ``terms`` when ``match`` is their plain OR, which
    lets the ranking skip the rows of common words that cannot reach the top (core/index/maxscore.py)."""
    if match is None:
        return []
    # Widen the window while filters drop too many and matches remain.
    depth = n * 2
    while True:
        top = maxscore.fts_top_pruned(store, terms, BM25_WEIGHTS, filters, depth, want=n) if terms else None
        if top is None:
            top = search_rows.fts_top(store, match, BM25_WEIGHTS, filters, depth)
        ranked = [(pk, r) for pk, r, allowed in top if allowed]
        if len(ranked) >= n or len(top) < depth:
            return ranked[:n]
        depth *= 4


def semantic_ranked(store: IndexStore, query_vec: Sequence[float], filters: Filters, n: int,
                    beside: Callable[[], object] | None = None) -> list[tuple[int, float, str]]:
    """Nearest memories as (pk, distance of the best chunk, that chunk's text). A memory appears once.
    ``beside`` (a hybrid search's keyword leg) runs on this thread while the first vector scan runs on the
    search worker: see ``_beside``."""
    total = store.vectors.count()
    if total == 0:
        if beside is not None:
            beside()
        return []
    k = min(total, max(n * 2, 64))  # most memories are one chunk; the loop widens when filters drop hits
    while True:
        scan, finish = store.vectors.knn_split(query_vec, k)
        hits = finish(_beside(scan, beside or _no_work))
        beside = None
        best = _first_passing(store, hits, filters, n)
        if len(best) >= n or k >= total:
            ranked = sorted(best.items(), key=lambda kv: kv[1][0])[:n]
            return [(pk, d, t) for pk, (d, t) in ranked]
        k = min(total, k * 4)


def _first_passing(store: IndexStore, hits: Sequence[tuple[int, float]], filters: Filters, n: int,
                   ) -> dict[int, tuple[float, str]]:
    """The memories of ``hits`` (chunks, nearest first) that pass the filters, in that order, each with its
    nearest chunk's distance and text: at least the first ``n`` of them when there are so many. The filter
    check reads each chunk's row and its memory's, cold pages in a large vault, so only the first ``n`` chunks
    are checked (one chunk per memory is the common case), and the rest only when those give fewer memories."""
    best: dict[int, tuple[float, str]] = {}
    for part in (hits[:n], hits[n:]):
        if len(best) >= n or not part:
            break
        allowed = search_rows.chunks_passing(store, [cid for cid, _ in part], filters)
        for cid, dist in part:
            if cid in allowed:
                pk, text = allowed[cid]
                if pk not in best:
                    best[pk] = (dist, text)
    return best


def _search_worker() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="search-vectors")


# One thread for the whole process, kept: a hybrid search's vector scan runs on it beside the keyword leg. A
# forked child has no such thread, whatever the executor it inherits thinks: it gets its own.
_WORKER = _search_worker()


def _after_fork() -> None:
    global _WORKER
    _WORKER = _search_worker()


os.register_at_fork(after_in_child=_after_fork)


def _no_work() -> None:
    return None


def _beside(scan: Scan, work: Callable[[], object]) -> np.ndarray | None:
    """``scan()`` while ``work()`` runs here, with the search worker; ``scan``'s result once both are done.

    The scan is faiss and numpy over in-memory codes and FTS5 runs in SQLite, and all release the GIL, so on two
    cores a hybrid search takes about the longer leg instead of the sum. The ``Scan`` is shared: the worker helps it
    (``Scan.help``: blocks of the sign-bit pass and of the int8 scores, each claimed by whichever thread is
    free) from the start, and this thread runs it once ``work()`` is done, so the pass that is most of a large
    vault's vector leg uses both cores whenever it outlasts the keyword leg (a semantic search's from the
    start), and the result is this thread's own: no wait for the worker to hand it back (once every block is
    done, the worker's part touches nothing; on a loaded machine it may not even have started). Only this
    thread touches the connection. The BLAS limit (blas.one_thread) is the process's, so it holds on the
    worker too."""
    helper = _WORKER.submit(scan.help)
    try:
        work()
    except BaseException:
        wait([helper])  # nothing of the scan runs on behind the caller
        raise
    return scan()


def semantic_weight_for(query: str, embedder: Embedder | None, keyword_weight: float) -> tuple[float, str]:
    """The semantic list's weight in the fusion, lowered for text the embedder cannot read.

    An English-only model maps Japanese to near-noise vectors; fusing their ranks at full weight buries the
    memory that keyword search found. The weight falls with the share of CJK characters in the query.
    """
    base = 1.0 - keyword_weight
    if embedder is None or embedder.multilingual:
        return base, ""
    share = tokens.cjk_share(query)
    if share <= 0.0:
        return base, ""
    if share >= 0.5:
        return 0.0, Notice(f"semantic ranks ignored: {embedder.model} does not read this language", LOWERED)
    return base * (1.0 - 2 * share), Notice(f"semantic weight lowered: {embedder.model} reads English only", LOWERED)


def unreadable_shares(store: IndexStore, pks: Sequence[int], embedder: Embedder | None) -> dict[int, float]:
    """How far each memory's semantic rank is noise for an English-only model, 0..1 (tokens.unreadable), for
    the memories above 0: kept with each row (core/index/unreadable.py), so English text costs no row read."""
    if embedder is None or embedder.multilingual or not pks:
        return {}
    return search_rows.unreadable_shares(store, pks)


def best_snippet(content: str, terms: Sequence[str], size: int = 120, overlap: int = 20) -> str:
    """The window of ``content`` holding the most query terms (a chunk of ``size`` tokens)."""
    chunks = chunk_text(content, size, overlap)
    if len(chunks) <= 1:
        return content
    lowered = [t.lower() for t in terms]
    best = max(chunks, key=lambda c: sum(c.text.lower().count(t) for t in lowered))
    return best.text


def matched_keywords(item: MemoryItem, terms: Sequence[str]) -> tuple[str, ...]:
    """The memory's tags a query term points at, then query terms found in the title or text."""
    out: list[str] = []
    lowered = [t.lower() for t in terms]
    for kw in item.keywords:
        k = kw.lower()
        if any(k == t or k.startswith(t) or t.startswith(k) for t in lowered):
            out.append(kw)
    text = (item.title + "\n" + item.content).lower()
    for t in lowered:
        if t in text and t not in (o.lower() for o in out):
            out.append(t)
    return tuple(out)


def _load_items(store: IndexStore, ordered: list[_Candidate], want: int) -> tuple[list[_Candidate], dict[int, MemoryItem]]:
    """Whole items for the first ``want`` candidates only (unless the order itself depends on them). A memory
    that another process deleted after it was ranked drops out, and the next candidate takes its place."""
    items: dict[int, MemoryItem] = {}
    present: list[_Candidate] = []
    pos = 0
    while len(present) < want and pos < len(ordered):
        batch = ordered[pos : pos + want - len(present)]
        pos += len(batch)
        items.update(store.get_by_pks([c.pk for c in batch]))
        present += [c for c in batch if c.pk in items]
    return present + ordered[pos:], items


def relevance_cutoff(values: Sequence[float], share: float, min_margin: float = 0.0) -> float | None:
    """The largest value (a cosine distance, or an FTS5 BM25 score: lower is better in both) at which a hit
    still counts as relevant for that list.

    Semantic ranking orders the whole vault, and a common word matches half of it, so rank alone never says
    "unrelated". The values do, but on each model's (and each vault's) own scale: MiniLM puts the sample vault's
    unrelated memories near distance 0.9, other models crowd theirs closer. So the cut-off is measured from the
    best hit towards the median candidate, which stands for "unrelated" in this vault for this query: where the
    values fall away."""
    if not values:
        return None
    ordered = sorted(values)
    if len(ordered) < MIN_SAMPLE:
        return ordered[-1]
    best, median = ordered[0], ordered[len(ordered) // 2]
    return best + max(min_margin, share * (median - best))


def is_relevant(c: _Candidate, keyword_cutoff: float | None, semantic_cutoff: float | None) -> bool:
    """Relevant: the query's words as strongly as the best keyword hits, or a meaning close to the query's.
    A memory that only its session neighbours brought in is context, not a relevant hit of its own."""
    by_words = c.bm25 is not None and keyword_cutoff is not None and c.bm25 <= keyword_cutoff
    by_meaning = c.distance is not None and semantic_cutoff is not None and c.distance <= semantic_cutoff
    return by_words or by_meaning


def validate(mode: str, sort_by: str, limit: int, keyword_weight: float, max_limit: int,
             importance_weight: float = 0.0, min_score: float = 0.0) -> None:
    if mode not in SEARCH_MODES:
        raise ValidationError(f"Unknown search mode {mode!r}: use {', '.join(SEARCH_MODES)}.", field="mode")
    if sort_by not in SORT_KEYS:
        raise ValidationError(f"Unknown sort {sort_by!r}: use {', '.join(SORT_KEYS)}.", field="sort_by")
    if not 1 <= int(limit) <= max_limit:
        raise ValidationError(f"limit must be between 1 and {max_limit}.", field="limit")
    if not 0.0 <= keyword_weight <= 1.0:
        raise ValidationError("keyword_weight must be between 0 and 1.", field="keyword_weight")
    for name, value in (("importance_weight", importance_weight), ("min_score", min_score)):
        if not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:  # NaN fails both comparisons
            raise ValidationError(f"{name} must be between 0 and 1.", field=name, code="OUT_OF_RANGE")


def with_neighbours(store: IndexStore, pks: Sequence[int], filters: Filters,
                    ) -> tuple[list[int], dict[tuple[int, int], int]]:
    """``pks`` and their visible session neighbours, with the distances between them (core/fusion.py)."""
    windows = session_neighbours(store, pks, fusion.CONTEXT_WIDTH, filters)
    known = set(pks)
    extra = dict.fromkeys(nb for w in windows.values() for nb, _ in w if nb not in known)
    return [*pks, *extra], fusion.context_pairs(windows)


def _ranked(cands: dict[int, _Candidate], scored: fusion.Fused, graph_side: dict[int, float], wk: float,
            ws: float) -> list[_Candidate]:
    """The candidates and neighbours that are results, best first. A result needs evidence of its own that
    carries weight: a query word it holds, or a vector the model can read (not a semantic hit that the
    query's language made worthless). A neighbour that only lends context is not a result of a keyword
    search. Ties fall back to the better semantic rank, then the keyword rank, then the order found. Sorted
    on arrays: an object per member cost more than the fusion."""
    extra = [pk for pk in scored.members if pk not in cands]
    pks = [*cands, *extra]
    pos = np.fromiter((scored.index[pk] for pk in pks), dtype=np.intp, count=len(pks))
    gc = np.fromiter((graph_side.get(pk, 0.0) for pk in pks), dtype=np.float64, count=len(pks))
    fused = scored.score[pos] + gc
    cosine = scored.cosine[pos]
    never = 10**9
    kw_rank = np.fromiter(((c.keyword_rank or never) for c in cands.values()), dtype=np.int64, count=len(cands))
    sem_rank = np.fromiter(((c.semantic_rank or never) for c in cands.values()), dtype=np.int64, count=len(cands))
    kw_rank, sem_rank = np.r_[kw_rank, np.full(len(extra), never)], np.r_[sem_rank, np.full(len(extra), never)]
    keep = (gc > 0) | ((kw_rank < never) if wk > 0 else False) | ((~np.isnan(cosine)) if ws > 0 else False)
    at = np.flatnonzero(keep)
    at = at[np.lexsort((kw_rank[at], sem_rank[at], -fused[at]))]
    out = []
    for i, f, cos in zip(at.tolist(), fused[at].tolist(), cosine[at].tolist(), strict=True):
        c = cands.get(pks[i]) or _Candidate(pks[i])
        c.fused = f
        c.cosine = None if cos != cos else cos  # NaN: no vector
        out.append(c)
    return out


def run(
    store: IndexStore,
    query: str,
    *,
    query_vec: Sequence[float] | None,
    embedder: Embedder | None,
    mode: str,
    limit: int,
    filters: Filters,
    sort_by: str = "relevance",
    keyword_weight: float = 0.5,
    warnings: Sequence[str] = (),
    graph: GraphLeg | None = None,
    graph_weight: float = 0.0,
    importance_weight: float = 0.0,
    min_score: float = 0.0,
) -> SearchOutcome:
    """Rank memories for ``query``. ``query_vec`` is None when semantic ranking is unavailable.
    ``importance_weight`` blends each hit's importance into its score (seed 001); hits scoring below
    ``min_score`` are left out before the ``limit`` is taken (seed 002)."""
    with blas.one_thread():
        return _run(store, query, query_vec=query_vec, embedder=embedder, mode=mode, limit=limit, filters=filters,
                    sort_by=sort_by, keyword_weight=keyword_weight, warnings=warnings, graph=graph,
                    graph_weight=graph_weight, importance_weight=importance_weight, min_score=min_score)


def _run(store: IndexStore, query: str, *, query_vec: Sequence[float] | None, embedder: Embedder | None, mode: str,
         limit: int, filters: Filters, sort_by: str, keyword_weight: float, warnings: Sequence[str],
         graph: GraphLeg | None, graph_weight: float, importance_weight: float = 0.0,
         min_score: float = 0.0) -> SearchOutcome:
    warn = list(warnings)
    terms = tokens.query_terms(query)
    mode_used = mode
    if mode in ("semantic", "hybrid") and query_vec is None:
        mode_used = "keyword"
    n = max(limit * 5, 50) if sort_by == "relevance" else max(limit * 10, 200)

    if mode_used == "hybrid":
        wk = keyword_weight
        ws, note = semantic_weight_for(query, embedder, keyword_weight)
        if note:
            warn.append(note)
    elif mode_used == "keyword":
        wk, ws, note = 1.0, 0.0, ""
    else:
        wk, ws, note = 0.0, 1.0, ""

    cands: dict[int, _Candidate] = {}
    bm25: dict[int, float] = {}

    def keyword_leg() -> None:  # its candidates come first, whichever leg finishes first
        for rank, (pk, bm) in enumerate(keyword_ranked(store, terms, filters, n), start=1):
            cands.setdefault(pk, _Candidate(pk)).__dict__.update(keyword_rank=rank, bm25=bm)
            bm25[pk] = -bm  # FTS5's bm25() is lower for better matches

    if mode_used in ("semantic", "hybrid") and query_vec is not None:
        beside = keyword_leg if wk > 0 else None
        for rank, (pk, dist, text) in enumerate(semantic_ranked(store, query_vec, filters, n, beside), start=1):
            c = cands.setdefault(pk, _Candidate(pk))
            c.semantic_rank, c.distance, c.chunk_snippet = rank, dist, text
    elif wk > 0:
        keyword_leg()
    wg = graph_weight if graph is not None and mode == "hybrid" else 0.0
    top_graph = max((s for _pk, s in graph.ranked), default=0.0) if graph is not None and wg > 0 else 0.0
    if top_graph > 0:  # the entity-aware leg (core/graph/retrieval.py): its score over its best, times wg
        for rank, (pk, _s) in enumerate(graph.ranked, start=1):  # type: ignore[union-attr]
            cands.setdefault(pk, _Candidate(pk)).graph_rank = rank
        graph_side = {pk: wg * s / top_graph for pk, s in graph.ranked}  # type: ignore[union-attr]
    else:
        graph_side = {}

    top = [c.pk for c in cands.values()
           if min(c.keyword_rank or 10**9, c.semantic_rank or 10**9) <= fusion.CONTEXT_CANDIDATES]
    members, pairs = with_neighbours(store, top, filters)
    known = set(members)
    members += [pk for pk in cands if pk not in known]
    vectors, mean, qv = None, None, None
    if ws > 0 and query_vec is not None:
        qv = normalized(query_vec, len(query_vec))
        vectors, mean = store.vectors.memory_vectors(members, qv), store.vectors.mean()
    unreadable = unreadable_shares(store, members, embedder) if ws > 0 and wk > 0 else {}
    scored = fusion.fuse(members, bm25, vectors, qv, mean, pairs, wk, ws, unreadable)
    ordered = _ranked(cands, scored, graph_side, wk, ws)

    def relevance(c: _Candidate) -> float:  # the score before the importance blend, 0..1
        raw = (c.cosine or 0.0) if mode_used == "semantic" else c.fused / (1.0 + wg)
        return min(1.0, max(0.0, raw))

    # The blend and the floor need every candidate's final score; otherwise only the shown ones are loaded.
    whole = sort_by != "relevance" or importance_weight > 0 or min_score > 0
    ordered, items = _load_items(store, ordered, len(ordered) if whole else limit)
    iw = float(importance_weight)
    final = {c.pk: round((1.0 - iw) * relevance(c) + iw * items[c.pk].importance if c.pk in items
                         else relevance(c), 6) for c in (ordered if whole else ordered[:limit])}
    # (rounded as shown, so the floor cuts as seen)
    if iw > 0:
        ordered.sort(key=lambda c: -final[c.pk])  # stable: ties keep the relevance order
    if min_score > 0:
        ordered = [c for c in ordered if final[c.pk] >= min_score]
    if sort_by == "importance":
        ordered.sort(key=lambda c: (-items[c.pk].importance, -items[c.pk].salience, -c.fused))
    elif sort_by == "recency":
        ordered.sort(key=lambda c: (items[c.pk].updated_at, c.fused), reverse=True)

    distances = [c.distance for c in cands.values() if c.distance is not None]
    semantic_cutoff = relevance_cutoff(distances, SEMANTIC_SHARE, MIN_MARGIN) if ws > 0 else None
    bm25s = [c.bm25 for c in cands.values() if c.bm25 is not None]
    keyword_cutoff = relevance_cutoff(bm25s, KEYWORD_SHARE) if wk > 0 else None
    results = []
    for c in ordered[:limit]:
        item = items[c.pk]
        sc = scored[c.pk]
        score = final[c.pk]
        snippet = c.chunk_snippet if c.chunk_snippet and c.keyword_rank is None else best_snippet(item.content, terms)
        results.append(
            SearchResult(
                memory=item,
                score=score,
                distance=c.distance,
                matched_snippet=snippet,
                matched_keywords=matched_keywords(item, terms),
                explanation=RankExplanation(
                    mode=mode_used,
                    keyword_rank=c.keyword_rank,
                    semantic_rank=c.semantic_rank,
                    distance=c.distance,
                    keyword_contribution=sc.keyword,
                    semantic_contribution=sc.semantic,
                    keyword_weight=wk,
                    semantic_weight=ws,
                    salience=item.salience,
                    importance=item.importance,
                    note=note,
                    context_contribution=sc.context,
                    graph_rank=c.graph_rank,
                    graph_contribution=graph_side.get(c.pk, 0.0),
                    graph_weight=wg,
                    graph_note=graph.why.get(c.pk, "") if graph is not None and c.graph_rank else "",
                    best_possible=1.0 + wg if mode_used != "semantic" else 0.0,
                    relevant=is_relevant(c, keyword_cutoff, semantic_cutoff),
                    best_distance=min(distances) if semantic_cutoff is not None else None,
                    cutoff_distance=semantic_cutoff,
                    bm25=c.bm25,
                    bm25_cutoff=keyword_cutoff,
                    importance_weight=iw,
                    relevance=round(relevance(c), 6),
                ),
            )
        )
    return SearchOutcome(results, mode_used, tuple(warn))


def answer(store: IndexStore, embedding: Embedding, config: MemoryConfig, graph: EntityGraph | None, query: str, *,
           limit: int | None, mode: str, filters: Filters, sort_by: str, keyword_weight: float | None,
           importance_weight: float = 0.0, min_score: float = 0.0) -> SearchOutcome:
    """A caller's search: checked, with the configured defaults, and the query's vector when the embedder can
    give one (semantic and hybrid fall back to keyword results, with a warning, while it cannot)."""
    limit = config.default_search_limit if limit is None else limit
    kw_weight = config.keyword_weight if keyword_weight is None else keyword_weight
    validate(mode, sort_by, limit, kw_weight, config.max_search_limit, importance_weight, min_score)
    if not isinstance(query, str) or not query.strip():
        raise ValidationError("The search query is empty.", field="query")
    if graph is not None and filters.actor:  # seed 002's actor scope: every name of the actor's entity
        filters = replace(filters, actor_keys=tuple(graph.keys_of(filters.actor)))
    g_weight = config.graph_weight  # the graph leg (core/graph/retrieval.py): 0 = off
    leg = graph.search_leg(query, filters, limit) if graph is not None and mode == "hybrid" and g_weight > 0 else None
    warnings: list[str] = []
    query_vec = embedding.query_vector(query, mode, warnings) if mode != "keyword" else None
    return run(store, query, query_vec=query_vec, embedder=embedding.embedder, mode=mode, limit=limit,
               filters=filters, sort_by=sort_by, keyword_weight=kw_weight, warnings=warnings, graph=leg,
               graph_weight=g_weight, importance_weight=importance_weight, min_score=min_score)


def tagged(store: IndexStore, keywords: Iterable[str], limit: int, match_all: bool) -> list[str]:
    """Ids of memories whose tags match ``keywords`` (case-insensitive), best matches first; superseded and
    expired memories are hidden, as in search."""
    words = [k.strip() for k in keywords if k and k.strip()]
    if not words:
        raise ValidationError("Give at least one keyword.", field="keywords")
    expr = "{keywords} : (" + (" AND " if match_all else " OR ").join(tokens.phrase(w) for w in words) + ")"
    return search_rows.tagged_ids(store, expr, Filters(), limit)
