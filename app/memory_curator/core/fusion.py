"""Hybrid fusion: both sides' scores on one scale, context from session neighbours, mixed by keyword_weight.

- Keyword side: a memory's BM25 plus ``KEYWORD_CONTEXT`` times its session neighbours' BM25 (divided by their
  distance), over the best such score for the query, so 0..1.
- Semantic side: the cosine between the query and the memory's context vector (its chunk nearest the query
  plus ``VECTOR_CONTEXT`` times its neighbours', divided by distance), measured from the query's similarity
  to the collection's mean vector (a typical memory scores 0) to the best candidate (1).
- Score: ``keyword_weight`` x keyword side + (1 - ``keyword_weight``) x semantic side.

Why scores and not ranks: reciprocal rank fusion forgets how far ahead the first hit is; a keyword hit that
stands alone and a hit among a hundred near-ties counted alike. Why neighbours: a conversation saved turn by
turn (or a document part by part) spreads one subject over neighbouring memories; the answer is often the
turn after the one that names the subject (``Yeah, I painted that lake sunrise last year!``). A memory
without a session has no neighbours and keeps its own scores.

Measured on LoCoMo dev (bench/eval_locomo.py, bundled model), hybrid R@10 / MRR@10: reciprocal rank fusion
(k = 10) 0.770 / 0.490; scores on one scale 0.778 / 0.536; with session neighbours 0.835 / 0.557. Keyword
only 0.698 / 0.480 -> 0.747 / 0.494 with neighbours. The weights below sit on a plateau: 0.1..0.2 and
0.3..0.5 all gave R@10 0.813..0.825.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

CONTEXT_WIDTH = 2  # neighbours on each side of a memory that lend it context
CONTEXT_CANDIDATES = 30  # the neighbours of each side's first this many join (50 gave the same recall)
KEYWORD_CONTEXT = 0.35  # share of a neighbour's BM25 that a memory borrows (halved at distance 2)
VECTOR_CONTEXT = 0.15  # share of a neighbour's vector added to a memory's own (halved at distance 2)
# The semantic side's scale never gets shorter than this: when no memory is much closer to the query than a
# typical one, the best of them is not a strong semantic match.
SEMANTIC_SPAN_MIN = 0.1


@dataclass(frozen=True)
class Scored:
    """One memory's fused score and its parts (each side already weighted)."""

    score: float
    keyword: float  # weighted keyword side, 0 when the memory matched no query word and no neighbour did
    semantic: float  # weighted semantic side (negative when less similar than a typical memory)
    context: float  # how much of ``score`` came from the neighbours
    cosine: float | None  # the query's cosine with the memory's context vector


def context_pairs(neighbours: Mapping[int, Sequence[tuple[int, int]]], width: int = CONTEXT_WIDTH,
                  ) -> dict[tuple[int, int], int]:
    """(a, b) with a < b -> distance, for every pair of memories known from the windows found around the
    candidates: a candidate's window also tells how far apart its neighbours are (-1 and +1 are 2 apart)."""
    pairs: dict[tuple[int, int], int] = {}
    for pk, window in neighbours.items():
        placed = [(pk, 0), *window]
        for i, (a, oa) in enumerate(placed):
            for b, ob in placed[i + 1 :]:
                d = abs(oa - ob)
                if a != b and 0 < d <= width:
                    key = (a, b) if a < b else (b, a)
                    pairs[key] = min(d, pairs.get(key, d))
    return pairs


class Fused(Mapping[int, Scored]):
    """Every member's score and its parts as arrays in ``members`` order, read as pk -> Scored: a search
    reads the arrays for all members and builds a Scored only for the hits it shows (one object per member
    was a tenth of a keyword search)."""

    def __init__(self, members: Sequence[int], score: np.ndarray, keyword: np.ndarray, semantic: np.ndarray,
                 context: np.ndarray, cosine: np.ndarray, index: Mapping[int, int] | None = None):
        self.members = list(members)
        self.index = {pk: i for i, pk in enumerate(self.members)} if index is None else index
        self.score, self.keyword, self.semantic, self.context, self.cosine = score, keyword, semantic, context, cosine

    def __getitem__(self, pk: int) -> Scored:
        i = self.index[pk]
        cos = self.cosine[i]
        return Scored(float(self.score[i]), float(self.keyword[i]), float(self.semantic[i]), float(self.context[i]),
                      None if np.isnan(cos) else float(cos))

    def __iter__(self) -> Iterator[int]:
        return iter(self.members)

    def __len__(self) -> int:
        return len(self.members)


class _Links:
    """Each member's neighbours as slots: per slot, the members that have a neighbour in it, that neighbour
    (``nb``) and 1 / distance (``w``). A member has at most two neighbours on each side of it, so summing slot
    by slot is four vectorised steps, where a segmented sum (``np.add.reduceat``) over the links cost 5x as much
    for vectors; a slot holds only the members that have a neighbour there (2.4 of 4 slots are filled on the
    bench's searches), so no row is gathered to be multiplied by 0. The sums are made with the members
    reordered, those with more neighbours first (``order``): a slot's members are then the first rows of the
    sum, added to in place, where gathering and scattering them per slot moved each 768-wide row twice more;
    the rows go back to the members' order once at the end. Each member's sum is the same, term by term."""

    def __init__(self, members: np.ndarray, pairs: Mapping[tuple[int, int], int]):
        # pk -> position on arrays (a dict lookup per pair cost a tenth of the fusion); pairs outside the
        # members are left out.
        n = len(members)
        ends = np.fromiter(chain.from_iterable(pairs), dtype=np.int64, count=2 * len(pairs)).reshape(-1, 2)
        by_pk = np.argsort(members, kind="stable")
        at = np.minimum(np.searchsorted(members, ends, sorter=by_pk), max(n - 1, 0))
        pos = by_pk[at] if n else at
        inside = (members[pos] == ends).all(axis=1) if n else np.zeros(len(ends), bool)
        pos = pos[inside]
        dist = np.fromiter(pairs.values(), dtype=np.int64, count=len(pairs))[inside]
        src = np.concatenate([pos[:, 0], pos[:, 1]])
        dst = np.concatenate([pos[:, 1], pos[:, 0]])
        near = (1.0 / np.concatenate([dist, dist])).astype(np.float32)
        order = np.argsort(src, kind="stable")  # a member's neighbours in the order the pairs name them
        src, dst, near = src[order], dst[order], near[order]
        starts = np.flatnonzero(np.r_[True, src[1:] != src[:-1]]) if len(src) else src
        counts = np.diff(np.r_[starts, len(src)])
        groups = np.argsort(-counts, kind="stable")  # members with neighbours, more neighbours first
        lending = np.zeros(n, dtype=bool)
        lending[src[starts]] = True
        self.order = np.concatenate([src[starts[groups]], np.flatnonzero(~lending)]).astype(np.intp)
        self.slots = []
        for s in range(int(counts.max()) if len(counts) else 0):
            first = starts[groups[counts[groups] > s]] + s  # the slot's members are the first of ``order``
            self.slots.append((dst[first], near[first]))

    def lent(self, values: np.ndarray) -> np.ndarray:
        """Per member, the sum of its neighbours' ``values`` divided by their distance."""
        summed = np.empty_like(values)
        shape = (-1, *([1] * (values.ndim - 1)))
        filled = 0
        for s, (nb, w) in enumerate(self.slots):
            part = values[nb]  # a copy: weighted in place
            if s == 0:
                np.multiply(part, w.reshape(shape), out=summed[: len(nb)])
                filled = len(nb)
            else:
                part *= w.reshape(shape)
                summed[: len(nb)] += part
        summed[filled:] = 0
        out = np.empty_like(values)
        out[self.order] = summed
        return out


def fuse(
    members: Sequence[int],
    bm25: Mapping[int, float],
    vectors: tuple[np.ndarray, np.ndarray] | None,
    query: np.ndarray | None,
    mean: np.ndarray | None,
    pairs: Mapping[tuple[int, int], int],
    keyword_weight: float,
    semantic_weight: float,
    unreadable: Mapping[int, float] | None = None,
) -> Fused:
    """Scores for ``members`` (candidates and their neighbours). ``bm25``: positive keyword scores (higher is
    better); ``vectors``: rows in ``members`` order, each member's chunk vector nearest the query (unit length,
    float32), and which members have one (VectorTable.memory_vectors); ``pairs``: neighbours among the members
    and their distance; ``unreadable``: how far a member's vector is noise to the model (0..1), its keyword
    side standing in for that part."""
    n = len(members)
    index = {pk: i for i, pk in enumerate(members)}
    links = _Links(np.fromiter(members, dtype=np.int64, count=n), pairs)

    own_k = np.fromiter((bm25.get(pk, 0.0) for pk in members), dtype=np.float64, count=n)
    ctx_k = own_k + KEYWORD_CONTEXT * links.lent(own_k.astype(np.float32))
    top_k = ctx_k.max() if n else 0.0
    kn, kn_own = (ctx_k / top_k, own_k / top_k) if top_k > 0 else (np.zeros(n), np.zeros(n))

    cos = np.full(n, np.nan)
    cos_own = np.full(n, np.nan)
    sn, sn_own = np.zeros(n), np.zeros(n)
    own_v, has_vec = vectors if vectors is not None else (None, None)
    if query is not None and own_v is not None and n and has_vec.any():
        q = np.asarray(query, dtype=np.float64)
        ctx_v = links.lent(own_v)  # float32 halves the cost of lending vectors
        ctx_v *= VECTOR_CONTEXT  # in place: own_v + VECTOR_CONTEXT * lent, the same floats without two copies
        ctx_v += own_v
        if has_vec.all():  # the usual case: no copies of the rows
            cos, cos_own = _cosines(ctx_v, q), _cosines(own_v, q)
        else:
            cos[has_vec] = _cosines(ctx_v[has_vec], q)
            cos_own[has_vec] = _cosines(own_v[has_vec], q)
        mu = float(mean @ q) if mean is not None else 0.0
        span = max(float(cos[has_vec].max()) - mu, SEMANTIC_SPAN_MIN)
        sn[has_vec] = (cos[has_vec] - mu) / span
        sn_own[has_vec] = (cos_own[has_vec] - mu) / span

    # As far as its vector is noise to this model, a memory's keyword side stands in for the semantic one,
    # so fusion neither buries it (noise score) nor lifts it (noise luck) against readable memories.
    u = (np.fromiter((unreadable.get(pk, 0.0) for pk in members), dtype=np.float64, count=n) if unreadable
         else np.zeros(n))
    kc = keyword_weight * kn
    sc = semantic_weight * ((1.0 - u) * sn + u * kn)
    own = keyword_weight * kn_own + semantic_weight * ((1.0 - u) * sn_own + u * kn_own)
    total = kc + sc
    return Fused(members, total, kc, sc, total - own, cos, index)


def _cosines(m: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Each row's cosine with ``q`` (unit length), in float32 like the rows: casting them to float64 first cost
    a quarter of the fusion and moved scores by at most 1.2e-7 (the bench's 200 hybrid searches)."""
    norms = np.sqrt(np.einsum("ij,ij->i", m, m)).astype(np.float64)
    return np.divide((m @ q.astype(np.float32)).astype(np.float64), norms, out=np.zeros(len(m)), where=norms > 0)
