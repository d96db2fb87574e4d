"""Dedup on save (seed 003): a near-duplicate of a live memory is reported and the caller chooses.

``on_duplicate``: "add" saves anyway (the match is still reported), "skip" saves nothing and returns the
existing memory, "merge" folds the new text and tags into the existing memory. Similarity is the cosine
of the new memory's embedded text against stored chunk vectors (mean over its chunks of the best match per
memory); without an embedder it is the Jaccard similarity of word sets against keyword-search candidates.
A duplicate is similarity > ``config.dedup_threshold`` (0.95).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from memory_curator.core import indexing
from memory_curator.core.config import MemoryConfig
from memory_curator.core.errors import ValidationError
from memory_curator.core.index.filters import Filters
from memory_curator.core.index.search_rows import passing_pks
from memory_curator.core.lifecycle.similarity import jaccard, word_set
from memory_curator.core.memories import Memories
from memory_curator.core.model import MemoryItem
from memory_curator.core.search import keyword_ranked
from memory_curator.core.text import tokens
from memory_curator.core.validation import known_fields, validated

ON_DUPLICATE = ("add", "skip", "merge")
KNN_PER_CHUNK = 10
KEYWORD_CANDIDATES = 20


@dataclass(frozen=True)
class DuplicateMatch:
    memory_id: str
    title: str
    similarity: float
    method: str  # "semantic" | "keyword"


@dataclass(frozen=True)
class SaveOutcome:
    memory: MemoryItem  # the new memory, or the existing one when skipped or merged
    action: str  # "added" | "skipped" | "merged"
    duplicate: DuplicateMatch | None  # the closest memory above the threshold, if any
    checked_by: str = ""  # "semantic" (vectors) or "keyword" (a keyword search ran): how the check compared


def _live(memories: Memories, pks: list[int]) -> dict[int, MemoryItem]:
    found = memories.store.get_by_pks(pks)
    live = passing_pks(memories.store, pks, Filters())
    return {pk: it for pk, it in found.items() if pk in live}


def semantic_matches(memories: Memories, item: MemoryItem, limit: int) -> list[DuplicateMatch] | None:
    """None when the embedder cannot be used (the caller falls back to keywords)."""
    emb = memories.embedding.usable()
    if emb is None:
        return None
    # Memories saved a moment ago are still being embedded in the background: give them the query's wait.
    memories.embedding.wait(memories.config.query_embed_wait_s)
    if memories.store.vectors.count() == 0:
        return None
    texts = [c[4] for c in indexing.embedding_chunks(item, memories.config, emb.max_chunk_tokens)]
    vectors = memories.embedding.vectors_within(texts)  # a slow embedder never holds the save up
    if vectors is None:
        return None
    best: dict[int, list[float]] = defaultdict(lambda: [0.0] * len(vectors))
    for n, vec in enumerate(vectors):
        hits = memories.store.vectors.knn(vec, KNN_PER_CHUNK)
        owners = memories.store.chunk_texts([cid for cid, _ in hits])
        for cid, dist in hits:
            if cid in owners:
                pk = owners[cid][0]
                best[pk][n] = max(best[pk][n], 1.0 - dist)
    if not best:
        return []
    items = _live(memories, list(best))
    out = [DuplicateMatch(it.id, it.title, round(sum(best[pk]) / len(vectors), 6), "semantic")
           for pk, it in items.items()]
    return sorted(out, key=lambda m: -m.similarity)[:limit]


def keyword_matches(memories: Memories, item: MemoryItem, limit: int) -> list[DuplicateMatch]:
    terms = tokens.query_terms(f"{item.title} {item.content[:2000]}")[:64]
    ranked = keyword_ranked(memories.store, terms, Filters(), KEYWORD_CANDIDATES)
    mine = word_set(item)
    items = memories.store.get_by_pks([pk for pk, _ in ranked])
    out = [DuplicateMatch(it.id, it.title, round(jaccard(mine, word_set(it)), 6), "keyword") for it in items.values()]
    return sorted(out, key=lambda m: -m.similarity)[:limit]


def find_duplicates(memories: Memories, item: MemoryItem, *, threshold: float | None = None,
                    limit: int = 5) -> list[DuplicateMatch]:
    """Live memories more similar to ``item`` than the threshold, closest first."""
    return _checked(memories, item, threshold, limit)[0]


def _checked(memories: Memories, item: MemoryItem, threshold: float | None,
             limit: int) -> tuple[list[DuplicateMatch], str]:
    """``find_duplicates``'s matches, and how they were compared ("semantic" or "keyword")."""
    limit_sim = memories.config.dedup_threshold if threshold is None else float(threshold)
    matches, how = semantic_matches(memories, item, limit), "semantic"
    if matches is None:
        matches, how = keyword_matches(memories, item, limit), "keyword"
    return [m for m in matches if m.similarity > limit_sim and m.memory_id != item.id], how


def merged_content(existing: str, new: str) -> str:
    """The existing text, plus the new text when it says something the existing one does not."""
    if " ".join(new.split()).lower() in " ".join(existing.split()).lower():
        return existing
    return f"{existing}\n\n{new}"


def save(memories: Memories, on_duplicate: str, item: MemoryItem, save_args: dict[str, Any]) -> SaveOutcome:
    """Check ``item`` (validated, not yet written) for duplicates, then add, skip or merge."""
    if on_duplicate not in ON_DUPLICATE:
        raise ValidationError(f"on_duplicate must be one of {', '.join(ON_DUPLICATE)}.", field="on_duplicate")
    found, how = _checked(memories, item, None, 1)
    dup = found[0] if found else None
    if dup is None or on_duplicate == "add":
        return SaveOutcome(memories.create(**save_args), "added", dup, how)
    with memories.writing():  # read and merge as one change: another process's edit in between is kept
        existing = memories.fresh(dup.memory_id)
        assert existing is not None
        if on_duplicate == "skip":
            return SaveOutcome(existing, "skipped", dup, how)
        merged = memories.update(
            existing.id,
            content=merged_content(existing.content, item.content),
            keywords=tuple(dict.fromkeys((*existing.keywords, *item.keywords))),
            salience=max(existing.salience, item.salience),
        )
    return SaveOutcome(merged, "merged", dup, how)


def probe(config: MemoryConfig, content: str, category: str = "context", title: str | None = None,
          keywords: Iterable[str] | None = None, session_id: str | None = None, source: str = "user",
          salience: float | None = None, **fields: Any) -> MemoryItem:
    """The memory ``save`` would write, validated, for comparison only (never written)."""
    values = validated(config, content, category, title, keywords, session_id, source,
                       config.default_salience if salience is None else salience)
    base = MemoryItem(id="", created_at=None, updated_at=None, **values)  # type: ignore[arg-type]
    extra = known_fields(fields)
    return replace(base, **extra) if extra else base
