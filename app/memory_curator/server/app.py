"""The local HTTP API: a Starlette app over the engine thread.

Every route but the OpenAPI schema needs ``Authorization: Bearer <token>``. Errors are JSON:
``{"status": "error", "error_code": "VALIDATION_ERROR", "message": "...", "details": [...]}`` with 400 for bad
input, 401 without a valid token, 403 for a memory owned by another ``user_id``, 404 for an unknown id and 500
for storage, embedding or internal failures.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from pydantic import BaseModel
from pydantic import ValidationError as PydanticError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from memory_curator import __version__
from memory_curator.core.errors import CuratorError, MemoryNotFoundError, ValidationError
from memory_curator.core.service import MemoryService
from memory_curator.server import openapi, operations
from memory_curator.server.bearer import RequireBearer
from memory_curator.server.operations import ApiError
from memory_curator.server.responses import error_response
from memory_curator.server.schemas import SearchRequest, StoreRequest, engine_fields, memory_dict
from memory_curator.server.worker import ServiceWorker

log = logging.getLogger(__name__)
PUBLIC_PATHS = {"/openapi.json"}
MAX_BODY_BYTES = 1024 * 1024
async def _body(request: Request, model: type[BaseModel]) -> Any:
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise ApiError("VALIDATION_ERROR", f"The request body is larger than {MAX_BODY_BYTES // 1024} KiB.")
    try:
        data = json.loads(raw or b"null")
    except ValueError:
        raise ApiError("VALIDATION_ERROR", "The request body is not valid JSON.") from None
    try:
        return model.model_validate(data)
    except PydanticError as exc:
        details = [{"field": ".".join(str(p) for p in e["loc"]), "message": e["msg"]} for e in exc.errors()]
        raise ApiError("VALIDATION_ERROR", "The request is not valid: see details.", details) from None


def build_app(worker: ServiceWorker, token: str, *, client: str = "http", poll: bool = True) -> Starlette:
    def route(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        async def wrapped(request: Request) -> Response:
            try:
                return await handler(request)
            except ApiError as exc:
                return error_response(exc.code, str(exc), exc.details)
            except ValidationError as exc:  # the engine's own checks: always a 400, the finer code in details
                detail = {"field": exc.field, "code": exc.code, "message": str(exc)}
                return error_response("VALIDATION_ERROR", str(exc), [detail])
            except CuratorError as exc:
                return error_response(getattr(exc, "code", "INTERNAL_ERROR"), str(exc))
            except Exception:  # a bug of ours: logged with its traceback, the server keeps serving
                log.exception("request failed: %s %s", request.method, request.url.path)
                return error_response("INTERNAL_ERROR", "Internal error; the server log has the details.")

        return wrapped

    @route
    async def health(request: Request) -> Response:
        return JSONResponse(await worker.call(operations.health))

    @route
    async def store(request: Request) -> Response:
        req: StoreRequest = await _body(request, StoreRequest)
        item = await worker.call(lambda svc: svc.save(**engine_fields(req, client, req.user_id)))
        return JSONResponse({"status": "success", "memory_id": item.id, "memory": memory_dict(item)}, status_code=201)

    @route
    async def get(request: Request) -> Response:
        memory_id = request.path_params["memory_id"]
        item = await worker.call(lambda svc: svc.get(memory_id))
        if item is None:
            raise MemoryNotFoundError(memory_id)
        return JSONResponse(memory_dict(item))

    @route
    async def delete(request: Request) -> Response:
        memory_id = request.path_params["memory_id"]
        user_id = request.query_params.get("user_id")
        return JSONResponse(await worker.call(operations.delete, memory_id, user_id))

    @route
    async def search(request: Request) -> Response:
        req: SearchRequest = await _body(request, SearchRequest)
        return JSONResponse(await worker.call(operations.search, req))

    @route
    async def clear_expired(request: Request) -> Response:
        n = await worker.call(MemoryService.clear_expired)
        return JSONResponse({"status": "success", "cleared": n})

    async def schema(request: Request) -> Response:
        return JSONResponse(openapi.document(__version__))

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        poller = asyncio.create_task(worker.poll_forever()) if poll else None
        try:
            yield
        finally:
            if poller is not None:
                poller.cancel()

    routes = [
        Route("/health", health, methods=["GET"]),
        Route("/openapi.json", schema, methods=["GET"]),
        Route("/v1/memories", store, methods=["POST"]),
        Route("/v1/memories/clear-expired", clear_expired, methods=["POST"]),
        Route("/v1/memories/{memory_id}", get, methods=["GET"]),
        Route("/v1/memories/{memory_id}", delete, methods=["DELETE"]),
        Route("/v1/search", search, methods=["POST"]),
    ]
    return Starlette(routes=routes, middleware=[Middleware(RequireBearer, token=token, public_paths=PUBLIC_PATHS)], lifespan=lifespan)
