"""Retrieval metrics with binary relevance, as the eval's README defines them."""

from __future__ import annotations

import math
from collections.abc import Sequence


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """1 if any relevant id is in the top ``k``, else 0."""
    return 1.0 if any(r in relevant for r in ranked[:k]) else 0.0


def mrr_at(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    for i, r in enumerate(ranked[:k], start=1):
        if r in relevant:
            return 1.0 / i
    return 0.0


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    dcg = sum(1.0 / math.log2(i + 1) for i, r in enumerate(ranked[:k], start=1) if r in relevant)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(relevant), k) + 1))
    return dcg / ideal if ideal else 0.0


METRICS = {
    "R@1": lambda r, rel: recall_at(r, rel, 1),
    "R@5": lambda r, rel: recall_at(r, rel, 5),
    "R@10": lambda r, rel: recall_at(r, rel, 10),
    "MRR@10": lambda r, rel: mrr_at(r, rel, 10),
    "nDCG@10": lambda r, rel: ndcg_at(r, rel, 10),
}


def score(runs: Sequence[tuple[Sequence[str], set[str]]]) -> dict[str, float]:
    """Mean of every metric over (ranked ids, relevant ids) pairs."""
    if not runs:
        return {name: 0.0 for name in METRICS}
    return {name: sum(fn(r, rel) for r, rel in runs) / len(runs) for name, fn in METRICS.items()}
