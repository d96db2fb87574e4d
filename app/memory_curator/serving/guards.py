"""What every request meets before the app, for the HTTP API and MCP over HTTP alike: the Host allow-list
(a web page that rebinds its DNS name to 127.0.0.1 still sends its own name) and the body limit, counted while
the body arrives, so a 100 MB post is refused after the first MiB instead of read whole."""

from __future__ import annotations

from collections.abc import Collection

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memory_curator.serving.responses import error_response

MAX_BODY_BYTES = 1024 * 1024
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})


def host_name(header: str) -> str:
    """``Host`` without its port: "127.0.0.1:8766" -> "127.0.0.1", "[::1]:80" -> "::1"."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    return header.rpartition(":")[0] if header.count(":") == 1 else header


class Guard:
    """The Host allow-list (loopback names, and the address the server was told to bind) and the body limit."""

    def __init__(self, app: ASGIApp, *, allowed_hosts: Collection[str] = (), max_body: int = MAX_BODY_BYTES):
        self.app = app
        self._hosts = LOOPBACK_NAMES | {host_name(h) for h in allowed_hosts}
        self._max = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        host = host_name(headers.get(b"host", b"").decode("latin-1"))
        if host not in self._hosts:
            await error_response("INVALID_HOST", f"Host {host!r} is not served: use http://127.0.0.1 or "
                                 "http://localhost (or start the server with --host for another name).")(
                scope, receive, send)
            return
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self._max):
            await self._too_large(scope, receive, send)
            return
        body = bytearray()
        messages: list[Message] = []
        more = scope.get("method") not in ("GET", "HEAD", "DELETE", "OPTIONS") or length is not None
        while more:  # a chunked body: counted as it arrives, refused at the first byte over the limit
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if len(body) > self._max:
                await self._too_large(scope, receive, send)
                return
            more = message.get("more_body", False)

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        await error_response("PAYLOAD_TOO_LARGE", f"The request body is larger than {self._max // 1024} KiB: "
                             "store large texts as several memories or import them as documents.")(
            scope, receive, send)
