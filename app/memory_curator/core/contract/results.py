"""What each operation answers, as JSON: the same shape on HTTP and MCP, described by models for OpenAPI."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict

from memory_curator.core.direct import seed_fields
from memory_curator.core.inbox import Provenance, is_pending
from memory_curator.core.model import MemoryItem, SearchResult


class Result(BaseModel):
    model_config = ConfigDict(extra="allow")


class Memory(Result):
    """A memory; optional fields (scope, actors, expires_at, summary, typed fields...) only when set."""

    id: str
    title: str
    content: str
    category: str
    keywords: list[str]
    salience: float
    importance: float
    session_id: str | None
    source: str
    created_at: str
    updated_at: str
    access_count: int
    embedded: bool
    in_inbox: bool
    raw: str | None
    used_summary: bool
    chunk_count: int


class Stored(Result):
    status: str
    memory_id: str
    memory: Memory
    used_summary: bool  # seed 003: the summary, not the full text, is what was embedded
    chunk_count: int  # the vectors stored for it (0 while the embedder is down: filled in later)


class Deleted(Result):
    status: str
    deleted: bool
    memory_id: str


class SearchHit(Result):
    memory: Memory
    score: float
    snippet: str | None
    distance: float | None
    matched_keywords: list[str]


class Notice(Result):
    code: str  # NOT_EMBEDDED_YET, SEMANTIC_UNAVAILABLE, SEMANTIC_WEIGHT_LOWERED, VECTORS_LOADING, ...: what a client can act on
    message: str  # the same text as in ``warnings``


class SearchResults(Result):
    query: str
    mode_used: str
    results: list[SearchHit]
    warnings: list[str]
    notices: list[Notice]  # the warnings again, each with its code


class MemoryPage(Result):
    memories: list[Memory]
    count: int
    offset: int
    next_cursor: str | None  # send it back as ``cursor`` for the next page; null after the last page


class Batch(Result):
    success_count: int
    error_count: int
    created_ids: list[str]
    errors: list[dict[str, Any]]


class Score(Result):
    score: float
    memory_id: str
    computed: float
    override: float | None


class SessionContext(Result):
    session_id: str
    count: int
    tokens: int
    memories: list[Memory]


class Consolidated(Result):
    memory: Memory
    source_ids: list[str]
    trashed: int


class Cleared(Result):
    status: str
    cleared: int


class Health(Result):
    status: str  # ok | degraded (a component works in a fallback: the embedder down, files the index skips)
    version: str
    components: dict[str, Any]  # each with its status: ok | degraded | off
    embedder: dict[str, Any]
    index: dict[str, Any]


def _when(dt: datetime | None) -> str | None:
    return dt.isoformat().replace("+00:00", "Z") if dt else None


def owner_of(item: MemoryItem) -> str | None:
    """The ``user_id`` a memory was stored for over HTTP or MCP (None: no owner)."""
    owner = (item.provenance or {}).get("user_id")
    return str(owner) if owner else None


def memory_dict(item: MemoryItem) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": item.id,
        "title": item.title,
        "content": item.content,
        "category": item.category,
        "keywords": list(item.keywords),
        "salience": item.salience,
        "importance": item.importance,
        "session_id": item.session_id,
        "source": item.source,
        "created_at": _when(item.created_at),
        "updated_at": _when(item.updated_at),
        "access_count": item.access_count,
        "embedded": item.embedded,
        "in_inbox": is_pending(item),
    }
    optional = {"scope": item.scope, "actors": list(item.actors) or None, "expires_at": _when(item.expires_at),
                "pinned": item.pinned or None, "superseded_by": item.superseded_by, "summary": item.summary,
                "user_id": owner_of(item), "raw_expires_at": _when(item.raw_expires_at),
                "labels": item.extra.get("labels") or None}
    out.update({k: v for k, v in optional.items() if v is not None})
    # Seed 003: the raw text (null once its own time to live passed), and what was embedded.
    out.update(raw=item.raw, used_summary=item.used_summary, chunk_count=item.chunk_count)
    out.update(seed_fields(item))  # seed 004's layer, type, confidence, metadata, when the memory has them
    for key, value in item.typed.items():
        out[key] = _when(value) if isinstance(value, datetime) else value
    if item.memory_types:
        out["memory_types"] = list(item.memory_types)
    if item.provenance:
        p = Provenance.of(item)
        out["provenance"] = {"client": p.client, "session": p.session, "time": p.time}
    return out


def notice_dicts(warnings: Sequence[str]) -> list[dict[str, str]]:
    """Each warning with its code (core/model.py Notice); one without a code (none today) is a NOTICE."""
    return [{"code": getattr(w, "code", "NOTICE"), "message": str(w)} for w in warnings]


def hit_dict(r: SearchResult) -> dict[str, Any]:
    return {"memory": memory_dict(r.memory), "score": round(r.score, 6), "snippet": r.matched_snippet,
            "distance": r.distance, "matched_keywords": list(r.matched_keywords)}


def to_jsonable(value: Any) -> Any:
    """Dataclasses, datetimes and enums as JSON data (the CLI's --json and the servers' results)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [to_jsonable(v) for v in value]
    return value
