"""The local HTTP API: a Starlette app over the engine thread, one route per contract operation.

Every route but the OpenAPI schema needs ``Authorization: Bearer <token>``; every request needs a loopback
``Host`` and a body of at most 1 MiB (serving/guards.py). Errors are JSON: ``{"status": "error", "error_code":
"VALIDATION_ERROR", "message": "...", "details": [{"field", "code", "message"}]}`` with 400 for bad input, 401
without a valid token, 403 for a memory owned by another ``user_id``, 404 for an unknown id, 413 for a body
over the limit, 421 for another Host, 503 while another program holds the index, and 500 for storage,
embedding or internal failures.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from memory_curator import __version__
from memory_curator.core.contract.operations import OPERATIONS, Operation
from memory_curator.core.errors import CuratorError, ValidationError
from memory_curator.server import openapi
from memory_curator.server.requests import operation_input
from memory_curator.serving import calls
from memory_curator.serving.bearer import RequireBearer
from memory_curator.serving.guards import Guard
from memory_curator.serving.responses import error_response
from memory_curator.serving.worker import ServiceWorker

log = logging.getLogger(__name__)
PUBLIC_PATHS = {"/openapi.json"}
Handler = Callable[[Request], Awaitable[Response]]


def answers(handler: Handler) -> Handler:
    """Every failure as the JSON error of its code; a bug of ours is logged and the server keeps serving."""

    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except ValidationError as exc:  # the contract's and the engine's checks: 400, the finer codes in details
            details = exc.details or [{"field": exc.field, "code": exc.code, "message": str(exc)}]
            return error_response("VALIDATION_ERROR", str(exc), details)
        except CuratorError as exc:
            return error_response(getattr(exc, "code", "INTERNAL_ERROR"), str(exc))
        except Exception:
            log.exception("request failed: %s %s", request.method, request.url.path)
            return error_response("INTERNAL_ERROR", "Internal error; the server log has the details.")

    return wrapped


def build_app(worker: ServiceWorker, token: str, *, client: str = "http", poll: bool = True,
              allowed_hosts: Collection[str] = (), require_user: bool = False) -> Starlette:
    """``require_user``: every request but /health must carry a ``user_id`` (serving/calls.py)."""

    def route(op: Operation) -> Route:
        assert op.http is not None

        @answers
        async def handler(request: Request) -> Response:
            inp = await operation_input(op, request)
            caller = calls.Caller(client, getattr(inp, "user_id", None), require_user)
            result = await worker.call(calls.run, op.name, inp, caller)
            return JSONResponse(result, status_code=op.http.status)

        return Route(op.http.path, handler, methods=[op.http.method], name=op.name)

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

    # Fixed paths before templated ones: /v1/memories/batch is not a memory id.
    ops = sorted((op for op in OPERATIONS if op.http), key=lambda op: "{" in op.http.path)  # type: ignore[union-attr]
    routes = [Route("/openapi.json", schema, methods=["GET"]), *(route(op) for op in ops)]
    middleware = [Middleware(Guard, allowed_hosts=allowed_hosts),
                  Middleware(RequireBearer, token=token, public_paths=PUBLIC_PATHS)]
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan,
                     exception_handlers={404: _no_route, 405: _no_route})


async def _no_route(request: Request, exc: Exception) -> Response:
    known = sorted({f"{op.http.method} {op.http.path}" for op in OPERATIONS if op.http})
    return error_response("NOT_FOUND", f"No route {request.method} {request.url.path}: see /openapi.json.",
                          {"routes": known})
