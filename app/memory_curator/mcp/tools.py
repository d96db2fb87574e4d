"""The MCP tools: one async function per tool, each running its engine call on the engine thread.

Arguments are validated by the SDK against the schemas derived from the annotations (and the shared pydantic
models). Engine errors become tool errors (``is_error``) whose text says what to do; a bug becomes a tool error
too, logged here with its traceback, and never stops the server.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from memory_curator.cli.output import to_jsonable
from memory_curator.core.errors import CuratorError
from memory_curator.core.service import MemoryService
from memory_curator.server import operations
from memory_curator.server.schemas import (
    MAX_BATCH,
    BatchMode,
    MemoryFields,
    SearchMode,
    SearchRequest,
    SortKey,
    UpdateFields,
    engine_fields,
    memory_dict,
)
from memory_curator.server.worker import ServiceWorker

log = logging.getLogger(__name__)
T = TypeVar("T")
MemoryId = Annotated[str, Field(min_length=1, max_length=200, description="A memory's id.")]


def register(mcp: MCPServer, worker: ServiceWorker, client: str = "mcp") -> None:
    """Add the memory tools to ``mcp``; ``client`` is recorded as the provenance of stored memories."""

    async def run(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            return await worker.call(fn, *args, **kwargs)
        except CuratorError as exc:
            raise ToolError(f"{getattr(exc, 'code', 'ERROR')}: {exc}") from exc
        except Exception as exc:  # a bug of ours: log it, answer with an error, keep serving
            log.exception("memory tool failed")
            raise ToolError(f"INTERNAL_ERROR: {type(exc).__name__}: {exc}") from exc

    def tool(description: str) -> Callable[[Callable[..., Awaitable[Any]]], Any]:
        return mcp.tool(description=description)

    @tool("Store one memory (markdown text) in the user's vault. It waits in the user's review inbox unless "
          "they turned that off. Returns the stored memory with its id.")
    async def memory_store(
        content: Annotated[str, Field(min_length=1, description="The memory's text (markdown).")],
        title: str | None = None,
        category: Annotated[str, Field(description="decisions | summaries | context | any folder name")] = "context",
        keywords: list[str] | None = None,
        session_id: str | None = None,
        salience: Annotated[float | None, Field(ge=0.0, le=1.0)] = None,
        scope: str | None = None,
        actors: list[str] | None = None,
        expires_at: Annotated[datetime | None, Field(description="ISO time after which it can be cleared")] = None,
    ) -> dict[str, Any]:
        fields = _fields(content=content, title=title, category=category, keywords=keywords or [],
                         session_id=session_id, salience=salience, scope=scope, actors=actors or [],
                         expires_at=expires_at)
        item = await run(lambda svc: svc.save(**engine_fields(fields, client)))
        return memory_dict(item)

    @tool(f"Store up to {MAX_BATCH} memories at once. mode 'rollback': one invalid item stores nothing; "
          "'skip': invalid items are reported in errors and the rest are stored.")
    async def memory_batch_store(
        items: Annotated[list[MemoryFields], Field(min_length=1, max_length=MAX_BATCH)],
        mode: BatchMode = "rollback",
    ) -> dict[str, Any]:
        batch = [engine_fields(it, client) for it in items]
        result = await run(lambda svc: svc.save_batch(batch, mode=mode))
        return result.as_dict()

    @tool(f"Update up to {MAX_BATCH} memories at once (each: id plus the fields to change). mode 'rollback': "
          "any failure undoes all; 'skip': failures are reported and the rest are updated.")
    async def memory_batch_update(
        updates: Annotated[list[UpdateFields], Field(min_length=1, max_length=MAX_BATCH)],
        mode: BatchMode = "rollback",
    ) -> dict[str, Any]:
        changes = [{"id": u.id, **u.changes()} for u in updates]
        result = await run(lambda svc: svc.update_batch(changes, mode=mode))
        return result.as_dict()

    @tool("Search memories. search_mode: keyword (exact words), semantic (meaning) or hybrid (both, the "
          "default). Filters: category, session_id, scope, actor, min_salience.")
    async def memory_search(
        query: Annotated[str, Field(min_length=1)],
        search_mode: SearchMode = "hybrid",
        limit: Annotated[int, Field(ge=1, le=100)] = 5,
        category: str | None = None,
        session_id: str | None = None,
        scope: str | None = None,
        actor: str | None = None,
        min_salience: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0,
        sort_by: SortKey = "relevance",
        keyword_weight: Annotated[float | None, Field(ge=0.0, le=1.0)] = None,
    ) -> dict[str, Any]:
        req = SearchRequest(query=query, search_mode=search_mode, limit=limit, category=category,
                            session_id=session_id, scope=scope, actor=actor, min_salience=min_salience,
                            sort_by=sort_by, keyword_weight=keyword_weight)
        return await run(operations.search, req)

    @tool("Get one memory by id.")
    async def memory_get(id: MemoryId) -> dict[str, Any]:
        item = await run(lambda svc: svc.get(id))
        if item is None:
            raise ToolError(f"NOT_FOUND: No memory with id {id!r}. Search first to find the id.")
        return memory_dict(item)

    @tool("Change a memory: give its id and only the fields to change.")
    async def memory_update(
        id: MemoryId,
        content: Annotated[str | None, Field(min_length=1)] = None,
        title: str | None = None,
        category: str | None = None,
        keywords: list[str] | None = None,
        session_id: str | None = None,
        salience: Annotated[float | None, Field(ge=0.0, le=1.0)] = None,
    ) -> dict[str, Any]:
        upd = _validated(UpdateFields, id=id, content=content, title=title, category=category, keywords=keywords,
                         session_id=session_id, salience=salience)
        item = await run(lambda svc: svc.update(upd.id, **upd.changes()))
        return memory_dict(item)

    @tool("Delete a memory (it goes to the vault's trash, where the user can restore it). Deleting twice is fine.")
    async def memory_delete(id: MemoryId) -> dict[str, Any]:
        deleted = await run(lambda svc: svc.delete(id))
        return {"id": id, "deleted": deleted}

    @tool("Get a memory's importance score (0..1, from how often and how recently it is used) and its parts.")
    async def memory_get_score(id: MemoryId) -> dict[str, Any]:
        return _score(await run(lambda svc: svc.get_score(id)))

    @tool("Set a memory's importance score by hand (0..1); it wins over the computed score.")
    async def memory_set_score(id: MemoryId, score: Annotated[float, Field(ge=0.0, le=1.0)]) -> dict[str, Any]:
        return _score(await run(lambda svc: svc.set_score(id, score)))

    @tool("Consolidate 2 to 50 related memories into one summary memory (extractive). Give ids, or a query to "
          "pick them. preserve_originals keeps the originals (marked as superseded).")
    async def memory_consolidate(
        ids: Annotated[list[str] | None, Field(max_length=50)] = None,
        query: str | None = None,
        preserve_originals: bool = True,
        title: str | None = None,
        category: str | None = None,
    ) -> dict[str, Any]:
        if not ids and not query:
            raise ToolError("VALIDATION_ERROR: give the ids of the memories to consolidate, or a query.")
        result = await run(lambda svc: svc.consolidate(ids=ids or None, query=query, preserve_originals=preserve_originals,
                                                       title=title, category=category))
        return {"memory": memory_dict(result.memory), "source_ids": list(result.source_ids),
                "trashed": result.trashed}

    @tool("All memories of a session, oldest first, with their total token estimate.")
    async def memory_session_context(session_id: Annotated[str, Field(min_length=1)]) -> dict[str, Any]:
        def context(svc: MemoryService) -> dict[str, Any]:
            items = svc.get_session_context(session_id)
            return {"session_id": session_id, "count": len(items), "tokens": svc.get_session_token_count(session_id),
                    "memories": [memory_dict(it) for it in items]}

        return await run(context)


def _validated(model: type[T], **values: Any) -> T:
    try:
        return model(**{k: v for k, v in values.items() if v is not None})  # type: ignore[call-arg]
    except ValueError as exc:
        raise ToolError(f"VALIDATION_ERROR: {exc}") from exc


def _fields(**values: Any) -> MemoryFields:
    return _validated(MemoryFields, **values)


def _score(score: Any) -> dict[str, Any]:
    """An ImportanceScore, with ``score`` (the importance in use) first as the seed names it."""
    return {"score": score.importance, **to_jsonable(score)}
