"""Consolidation (seed 001): 2 to 50 memories become one, an extractive summary of them.

The new memory records ``consolidated_from`` (the ids). The originals are kept (default) or moved to the
trash, where they stay restorable. Kept originals are marked ``superseded_by`` the new memory: default
search then returns the consolidation once instead of it and all its sources (seed 001: consolidation
improves search relevance), while listings, ``include_superseded`` searches and ``unsupersede`` still reach
them. An original already superseded by another memory keeps that link. ``preview`` computes the same memory
without writing anything, so the desktop app can show it before the user agrees; ``undo`` takes a
consolidation back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from memory_curator.core.errors import ValidationError
from memory_curator.core.index.store import IndexStore
from memory_curator.core.lifecycle.decay import move_to_trash
from memory_curator.core.lifecycle.grouping import MAX_GROUP, MIN_GROUP
from memory_curator.core.lifecycle.rewrite import rewrite
from memory_curator.core.lifecycle.summarize import MAX_SUMMARY_CHARS, summarize
from memory_curator.core.memories import Memories
from memory_curator.core.model import MemoryItem, SearchResults

MAX_KEYWORDS = 20
Searched = Callable[[SearchResults], None]  # told the results of the search that chose the memories


@dataclass(frozen=True)
class ConsolidationPreview:
    title: str
    content: str  # the summary, at most MAX_SUMMARY_CHARS characters
    category: str
    keywords: tuple[str, ...]
    salience: float
    session_id: str | None
    scope: str | None
    actors: tuple[str, ...]
    source_ids: tuple[str, ...]
    source_titles: tuple[str, ...]


@dataclass(frozen=True)
class ConsolidationResult:
    memory: MemoryItem
    source_ids: tuple[str, ...]
    trashed: int  # originals moved to the trash (0 when preserved)


def sources(store: IndexStore, ids: Sequence[str] | None, query: str | None, limit: int,
            search: Callable[[str, int], SearchResults], searched: Searched | None = None) -> list[MemoryItem]:
    """The memories to consolidate: by id (in the order given), or the best ``limit`` hits of ``query``
    (``search(query, limit)``, whose results ``searched`` is given: the command line says when pending upkeep
    slowed that search)."""
    if (ids is None) == (query is None):
        raise ValidationError("Give either ids or a query to choose the memories to consolidate.", field="ids")
    if ids is not None:
        if isinstance(ids, str):
            raise ValidationError("ids must be a list of memory ids.", field="ids", code="WRONG_TYPE")
        ids = list(dict.fromkeys(ids))
        _check_size(len(ids))
        found = store.get_many(ids)
        for mid in ids:
            if mid not in found:
                raise store.missing(mid)
        return [found[mid] for mid in ids]
    _check_size(limit)
    results = search(query, limit)  # type: ignore[arg-type]
    if searched is not None:
        searched(results)
    items = [r.memory for r in results]
    if len(items) < MIN_GROUP:
        raise ValidationError(f"The query found {len(items)} memory; consolidation needs at least {MIN_GROUP}.",
                              field="query", code="GROUP_SIZE")
    return items


def _check_size(n: int) -> None:
    if not MIN_GROUP <= n <= MAX_GROUP:
        raise ValidationError(f"Consolidation takes {MIN_GROUP} to {MAX_GROUP} memories (got {n}).", field="ids",
                              code="GROUP_SIZE")


def _shared(values: Sequence[str | None]) -> str | None:
    return values[0] if values and all(v == values[0] for v in values) else None


def preview(items: Sequence[MemoryItem], *, title: str | None = None, category: str | None = None,
            max_chars: int = MAX_SUMMARY_CHARS) -> ConsolidationPreview:
    if not 0 < max_chars <= MAX_SUMMARY_CHARS:
        raise ValidationError(f"max_chars must be between 1 and {MAX_SUMMARY_CHARS}.", field="max_chars")
    content = summarize([it.content for it in items], max_chars=max_chars)
    if not content:
        content = "\n".join(f"- {it.title}" for it in items)[:max_chars]
    counts = Counter(k for it in items for k in dict.fromkeys(it.keywords))
    keywords = tuple(k for k, _ in sorted(counts.items(), key=lambda kv: -kv[1])[:MAX_KEYWORDS])
    more = f" (+{len(items) - 1} more)" if len(items) > 1 else ""
    return ConsolidationPreview(
        title=title or f"Consolidated: {items[0].title}{more}"[:200],
        content=content,
        category=category or _shared([it.category for it in items]) or "summaries",
        keywords=keywords,
        salience=max(it.salience for it in items),
        session_id=_shared([it.session_id for it in items]),
        scope=_shared([it.scope for it in items]),
        actors=tuple(dict.fromkeys(a for it in items for a in it.actors)),
        source_ids=tuple(it.id for it in items),
        source_titles=tuple(it.title for it in items),
    )


def consolidate(memories: Memories, items: Sequence[MemoryItem], *, preserve_originals: bool = True,
                title: str | None = None, category: str | None = None,
                max_chars: int = MAX_SUMMARY_CHARS) -> ConsolidationResult:
    p = preview(items, title=title, category=category, max_chars=max_chars)
    memory = memories.create(p.content, category=p.category, title=p.title, keywords=p.keywords, session_id=p.session_id,
                      source="system", salience=p.salience, scope=p.scope, actors=p.actors,
                      consolidated_from=p.source_ids)
    if preserve_originals:
        rewrite(memories.store, memories.vault, p.source_ids,
                lambda it: None if it.superseded_by else replace(it, superseded_by=memory.id), skip_unreadable=True)
        return ConsolidationResult(memory, p.source_ids, 0)
    return ConsolidationResult(memory, p.source_ids, move_to_trash(memories.store, memories.vault, list(p.source_ids)))


def undo(memories: Memories, summary_id: str) -> list[MemoryItem]:
    """Take a consolidation back: its originals return (from the trash, or no longer superseded by the summary)
    and the summary goes to the trash. Returns the originals that came back; one deleted for good since (the
    trash emptied) cannot, and is left out."""
    summary = memories.store.get(summary_id)
    if summary is None:
        raise memories.store.missing(summary_id)
    if not summary.consolidated_from:
        raise ValidationError(f"{summary.title!r} is not the summary of a consolidation.", field="id")
    kept = memories.store.get_many(summary.consolidated_from)
    marked = [mid for mid, it in kept.items() if it.superseded_by == summary_id]
    rewrite(memories.store, memories.vault, marked, lambda it: replace(it, superseded_by=None), skip_unreadable=True)
    memories.restore_many([mid for mid in summary.consolidated_from if mid not in kept], missing_ok=True)
    memories.delete(summary_id)
    back = memories.store.get_many(summary.consolidated_from)
    return [back[mid] for mid in summary.consolidated_from if mid in back]
