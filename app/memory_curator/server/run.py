"""Running the HTTP API with uvicorn (loopback by default)."""

from __future__ import annotations

import uvicorn

from memory_curator.server.app import build_app
from memory_curator.serving.worker import ServiceWorker


def serve_http(worker: ServiceWorker, token: str, *, host: str = "127.0.0.1", port: int = 8766,
               require_user: bool = False) -> None:
    app = build_app(worker, token, allowed_hosts=(host,), require_user=require_user)  # loopback names always; the bound address too
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
