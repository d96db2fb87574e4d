"""Suggesting groups of memories to consolidate, by semantic similarity.

Vectors come from the index (the mean of each memory's chunk vectors); without them (no embedder, or
fewer than two memories embedded) memories are compared by the Jaccard similarity of their word sets.
Groups are built around seeds, most important memory first: a seed takes every ungrouped memory at least
``threshold`` similar to it, up to ``max_size``. Predictable, and a group never drifts away from its seed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from memory_curator.core.errors import ValidationError
from memory_curator.core.index import listing
from memory_curator.core.index.filters import Filters
from memory_curator.core.index.search_rows import memory_vectors
from memory_curator.core.index.store import IndexStore
from memory_curator.core.lifecycle.similarity import jaccard, word_set

SEMANTIC_THRESHOLD = 0.75
KEYWORD_THRESHOLD = 0.3
MIN_GROUP, MAX_GROUP = 2, 50


@dataclass(frozen=True)
class MemoryGroup:
    memory_ids: tuple[str, ...]
    titles: tuple[str, ...]
    similarity: float  # mean similarity of the members to the group's seed
    method: str  # "semantic" | "keyword"


def _seeded_groups(n: int, similar, threshold: float, min_size: int, max_size: int) -> list[tuple[list[int], float]]:
    assigned = [False] * n
    groups = []
    for seed in range(n):
        if assigned[seed]:
            continue
        near = sorted(((s, j) for s, j in similar(seed) if j != seed and not assigned[j] and s >= threshold),
                      reverse=True)[: max_size - 1]
        if len(near) + 1 < min_size:
            continue
        members = [seed, *(j for _, j in near)]
        for j in members:
            assigned[j] = True
        groups.append((members, float(np.mean([s for s, _ in near]))))
    return groups


def suggest_groups(store: IndexStore, *, category: str | None = None, threshold: float | None = None,
                   min_size: int = MIN_GROUP, max_size: int = MAX_GROUP, max_candidates: int = 2000,
                   method: str = "auto") -> list[MemoryGroup]:
    """Groups of similar memories, largest first. ``method``: "auto" | "semantic" | "keyword"."""
    if not MIN_GROUP <= min_size <= max_size <= MAX_GROUP:
        raise ValidationError(f"Group sizes must satisfy {MIN_GROUP} <= min_size <= max_size <= {MAX_GROUP}.",
                              field="max_size")
    if method not in ("auto", "semantic", "keyword"):
        raise ValidationError("method must be auto, semantic or keyword.", field="method")
    # Live memories (not superseded, not expired), most important and most recent first.
    items = listing.most_important(store, Filters(category=category), max_candidates)
    vectors = memory_vectors(store, [it.id for it in items]) if method != "keyword" else {}
    if method == "semantic" or (method == "auto" and len(vectors) >= 2):
        items = [it for it in items if it.id in vectors]
        used = "semantic"
        matrix = np.stack([vectors[it.id] for it in items]) if items else np.zeros((0, 1), np.float32)
        sims = matrix @ matrix.T

        def similar(i: int):
            return ((float(sims[i, j]), j) for j in range(len(items)))
    else:
        used = "keyword"
        sets = [word_set(it) for it in items]
        postings: dict[str, list[int]] = defaultdict(list)
        for i, ws in enumerate(sets):
            for w in ws:
                postings[w].append(i)

        def similar(i: int):
            others = {j for w in sets[i] for j in postings[w]}
            return ((jaccard(sets[i], sets[j]), j) for j in others)

    limit = SEMANTIC_THRESHOLD if used == "semantic" else KEYWORD_THRESHOLD
    groups = _seeded_groups(len(items), similar, limit if threshold is None else float(threshold), min_size, max_size)
    out = [
        MemoryGroup(tuple(items[i].id for i in members), tuple(items[i].title for i in members), round(sim, 4), used)
        for members, sim in groups
    ]
    out.sort(key=lambda g: (-len(g.memory_ids), -g.similarity))
    return out
