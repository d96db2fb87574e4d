"""Real servers for tests: the HTTP API under uvicorn on a free loopback port, the engine on its own thread."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx
import pytest
import uvicorn
from mcp import StdioServerParameters

from memory_curator.core.service import MemoryService
from memory_curator.server.app import build_app
from memory_curator.serving.worker import ServiceWorker

TOKEN = "t" * 43


@dataclass
class RunningApi:
    url: str
    token: str
    worker: ServiceWorker

    def client(self, token: str | None = TOKEN) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)


def free_loopback_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


@contextmanager
def running_api(vault_dir, config, **app_options) -> Iterator[RunningApi]:
    """The HTTP API on a free loopback port; ``app_options`` go to build_app (require_user=True...)."""
    worker = ServiceWorker(lambda: MemoryService.open(vault_dir, embedder="none", config=config))
    sock = free_loopback_socket()
    server = uvicorn.Server(uvicorn.Config(build_app(worker, TOKEN, **app_options), log_level="warning",
                                           lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the HTTP server did not start"
        time.sleep(0.02)
    try:
        yield RunningApi(f"http://127.0.0.1:{sock.getsockname()[1]}", TOKEN, worker)
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        sock.close()
        worker.close()


@pytest.fixture
def api(vault_dir, config) -> Iterator[RunningApi]:
    with running_api(vault_dir, config) as running:
        yield running


@pytest.fixture
def stdio_mcp(vault_dir) -> StdioServerParameters:
    """`memory-curator mcp` on the vault, as an MCP client starts it (a subprocess over stdio)."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "memory_curator.cli.main", "--vault", str(vault_dir), "--embedder", "none", "mcp"],
        env={**os.environ, "OLLAMA_HOST": "http://127.0.0.1:9"},
    )
