"""Request and response shapes shared by the HTTP API and the MCP tools.

pydantic models: requests are validated before they reach the engine, and the same models produce the OpenAPI
schema and the MCP tool schemas. The engine validates again (it trusts no caller).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memory_curator.core.inbox import Provenance, is_pending
from memory_curator.core.model import MemoryItem, SearchResult

MAX_BATCH = 100
MAX_CONTENT_CHARS = 100_000  # a memory, not a document: import documents instead
CATEGORY_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"

SearchMode = Literal["keyword", "semantic", "hybrid"]
SortKey = Literal["relevance", "importance", "recency"]
BatchMode = Literal["rollback", "skip"]


class MemoryFields(BaseModel):
    """What a client may set on a memory."""

    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS, description="The memory's text (markdown).")
    title: str | None = Field(None, max_length=200, description="Defaults to the first heading or line.")
    category: str = Field("context", pattern=CATEGORY_PATTERN, description="decisions, summaries, context, ...")
    keywords: list[str] = Field(default_factory=list, max_length=50)
    session_id: str | None = Field(None, max_length=200)
    salience: float | None = Field(None, ge=0.0, le=1.0, description="How important, 0..1.")
    scope: str | None = Field(None, max_length=100, description="e.g. global, project, session.")
    actors: list[str] = Field(default_factory=list, max_length=50, description="Who or what the memory is about.")
    expires_at: datetime | None = Field(None, description="After this time the memory can be cleared.")
    # Typed memories (seed 004); the engine checks them again and refuses bad values with a finer code.
    event_timestamp: datetime | None = Field(None, description="Episodic: when it happened.")
    location: str | None = Field(None, max_length=500)
    participants: list[str] | None = Field(None, max_length=100)
    event_type: str | None = Field(None, max_length=500)
    emotional_state: str | None = Field(None, max_length=500)
    valence: float | None = Field(None, ge=-1.0, le=1.0)
    arousal: float | None = Field(None, ge=0.0, le=1.0)
    trigger_event: str | None = Field(None, max_length=500)
    skill_name: str | None = Field(None, max_length=500, description="Procedural: the skill.")
    proficiency_level: str | None = Field(None, max_length=500)


class StoreRequest(MemoryFields):
    user_id: str | None = Field(None, max_length=200, description="Owner: only this user may delete it.")


class UpdateFields(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    content: str | None = Field(None, min_length=1, max_length=MAX_CONTENT_CHARS)
    title: str | None = Field(None, max_length=200)
    category: str | None = Field(None, pattern=CATEGORY_PATTERN)
    keywords: list[str] | None = Field(None, max_length=50)
    session_id: str | None = Field(None, max_length=200)
    salience: float | None = Field(None, ge=0.0, le=1.0)

    def changes(self) -> dict[str, Any]:
        return self.model_dump(exclude={"id"}, exclude_none=True)


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=2000)
    search_mode: SearchMode = "hybrid"
    limit: int = Field(5, ge=1, le=100)
    category: str | None = Field(None, pattern=CATEGORY_PATTERN)
    session_id: str | None = None
    scope: str | None = None
    actor: str | None = None
    min_salience: float = Field(0.0, ge=0.0, le=1.0)
    sort_by: SortKey = "relevance"
    keyword_weight: float | None = Field(None, ge=0.0, le=1.0)


def engine_fields(fields: MemoryFields, client: str, user_id: str | None = None) -> dict[str, Any]:
    """Keyword arguments for ``MemoryService.save``: a client's memory is source "ai", with provenance."""
    data = fields.model_dump(exclude={"user_id"}, exclude_none=True)
    provenance = {"client": client, "time": datetime.now().astimezone().isoformat(timespec="seconds")}
    if fields.session_id:
        provenance["session"] = fields.session_id
    if user_id:
        provenance["user_id"] = user_id
    for empty in ("actors",):
        if not data.get(empty):
            data.pop(empty, None)
    return {**data, "source": "ai", "provenance": provenance}


def owner_of(item: MemoryItem) -> str | None:
    return (item.provenance or {}).get("user_id")


def memory_dict(item: MemoryItem) -> dict[str, Any]:
    def when(dt: datetime | None) -> str | None:
        return dt.isoformat().replace("+00:00", "Z") if dt else None

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
        "created_at": when(item.created_at),
        "updated_at": when(item.updated_at),
        "access_count": item.access_count,
        "embedded": item.embedded,
        "in_inbox": is_pending(item),
    }
    optional = {"scope": item.scope, "actors": list(item.actors) or None, "expires_at": when(item.expires_at),
                "pinned": item.pinned or None, "superseded_by": item.superseded_by, "summary": item.summary}
    out.update({k: v for k, v in optional.items() if v is not None})
    for key, value in item.typed.items():
        out[key] = when(value) if isinstance(value, datetime) else value
    if item.memory_types:
        out["memory_types"] = list(item.memory_types)
    if item.provenance:
        p = Provenance.of(item)
        out["provenance"] = {"client": p.client, "session": p.session, "time": p.time}
    return out


def result_dict(r: SearchResult) -> dict[str, Any]:
    return {"memory": memory_dict(r.memory), "score": round(r.score, 6), "snippet": r.matched_snippet,
            "distance": r.distance, "matched_keywords": list(r.matched_keywords)}
