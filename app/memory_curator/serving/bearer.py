"""The bearer token on every request but a few public paths, for the HTTP API and MCP over HTTP alike.

A plain ASGI middleware rather than Starlette's ``BaseHTTPMiddleware``, which buffers what it passes on:
MCP streams its answers as server-sent events.
"""

from __future__ import annotations

from collections.abc import Collection

from starlette.types import ASGIApp, Receive, Scope, Send

from memory_curator.serving.auth import bearer_ok
from memory_curator.serving.responses import error_response

DENIED = ("Missing or wrong bearer token: send 'Authorization: Bearer <token>' (see `memory-curator serve "
          "--show-token`).")


class RequireBearer:
    def __init__(self, app: ASGIApp, token: str, public_paths: Collection[str] = ()):
        self.app = app
        self._token = token
        self._public = frozenset(public_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in self._public:
            header = dict(scope["headers"]).get(b"authorization")
            if not bearer_ok(header.decode("latin-1") if header else None, self._token):
                await error_response("UNAUTHORIZED", DENIED)(scope, receive, send)
                return
        await self.app(scope, receive, send)
