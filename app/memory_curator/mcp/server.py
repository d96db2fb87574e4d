"""Building and running the MCP server (stdio, or streamable HTTP on loopback with a bearer token)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn
from mcp.server.mcpserver import MCPServer

from memory_curator import __version__
from memory_curator.mcp import tools
from memory_curator.server.bearer import RequireBearer
from memory_curator.server.worker import ServiceWorker

INSTRUCTIONS = (
    "Long-term memory curated by the user. Search before answering questions about past decisions and context "
    "(memory_search); store durable facts, decisions and summaries (memory_store), one idea per memory, with a "
    "short title and keywords. What you store waits in the user's review inbox until they approve it."
)


def build_server(worker: ServiceWorker, client: str = "mcp") -> MCPServer:
    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[None]:
        poller = asyncio.create_task(worker.poll_forever())
        try:
            yield None
        finally:
            poller.cancel()

    server = MCPServer(name="memory-curator", version=__version__, instructions=INSTRUCTIONS, lifespan=lifespan,
                       log_level="WARNING")
    tools.register(server, worker, client)
    return server


def serve(worker: ServiceWorker, *, http: bool = False, host: str = "127.0.0.1", port: int = 8765,
          client: str = "mcp", token: str | None = None) -> None:
    """Serve until the client disconnects (stdio) or the process is stopped (HTTP, which needs ``token``)."""
    server = build_server(worker, client)
    if not http:
        server.run("stdio")
        return
    if not token:
        raise ValueError("MCP over HTTP needs a bearer token")
    # The SDK's app keeps its DNS-rebinding protection on loopback; the token keeps out every other local
    # program (and web page) that can reach the port, as for the HTTP API.
    app = RequireBearer(server.streamable_http_app(host=host), token)
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
