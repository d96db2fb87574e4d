"""Running the HTTP API with uvicorn (loopback by default)."""

from __future__ import annotations

import socket

from memory_curator.server.app import build_app
from memory_curator.serving import listen
from memory_curator.serving.worker import ServiceWorker


def serve_http(worker: ServiceWorker, token: str, sock: socket.socket, *, host: str = "127.0.0.1",
               require_user: bool = False) -> None:
    """Serve on ``sock`` (serving.listen.bind: bound before the vault opened), the address ``host``."""
    app = build_app(worker, token, allowed_hosts=(host,), require_user=require_user)  # loopback names always; the bound address too
    listen.run(app, sock)
