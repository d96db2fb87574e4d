"""Building and running the MCP server (stdio, or streamable HTTP on loopback with a bearer token)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent

from memory_curator import __version__
from memory_curator.core.contract.errors import parse
from memory_curator.core.contract.operations import by_mcp_tool
from memory_curator.core.errors import ValidationError
from memory_curator.mcp import tools
from memory_curator.serving import listen
from memory_curator.serving.bearer import RequireBearer
from memory_curator.serving.guards import Guard
from memory_curator.serving.worker import ServiceWorker

INSTRUCTIONS = (
    "Long-term memory curated by the user. Search before answering questions about past decisions and context "
    "(memory_search); store durable facts, decisions and summaries (memory_store), one idea per memory, with a "
    "short title and keywords. What you store waits in the user's review inbox until they approve it. Errors "
    "start with their code (VALIDATION_ERROR, NOT_FOUND, FORBIDDEN...) and say what to change."
)


class ContractServer(MCPServer):
    """Checks a tool's arguments against the contract before the SDK does, and answers every tool error with
    its code first: the SDK's own text ("Error executing tool ...: 2 validation errors ...") never reaches the
    client."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            try:
                op = by_mcp_tool(name)
            except KeyError:
                op = None
            if op is not None:
                parse(op.input, arguments)
            return await super().call_tool(name, arguments, context)
        except ValidationError as exc:
            return _failed(tools.error_text(exc))
        except ToolError as exc:
            text = str(exc)
            prefix = f"Error executing tool {name}: "
            return _failed(text[len(prefix):] if text.startswith(prefix) else f"NOT_FOUND: {text}")


def _failed(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def build_server(worker: ServiceWorker, client: str = "mcp", *, require_user: bool = False) -> MCPServer:
    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[None]:
        poller = asyncio.create_task(worker.poll_forever())
        try:
            yield None
        finally:
            poller.cancel()

    server = ContractServer(name="memory-curator", version=__version__, instructions=INSTRUCTIONS,
                            lifespan=lifespan, log_level="WARNING")
    tools.register(server, worker, client, require_user)
    return server


def serve(worker: ServiceWorker, *, sock: socket.socket | None = None, host: str = "127.0.0.1", client: str = "mcp",
          token: str | None = None, allowed_hosts: Collection[str] = (), require_user: bool = False) -> None:
    """Serve until the client disconnects (stdio) or the process is stopped (HTTP on ``sock``, bound by
    serving.listen.bind before the vault opened, at the address ``host``; it needs ``token``)."""
    server = build_server(worker, client, require_user=require_user)
    if sock is None:
        server.run("stdio")
        return
    if not token:
        raise ValueError("MCP over HTTP needs a bearer token")
    # The Host allow-list and the token keep out web pages and every other local program that can reach the port,
    # as for the HTTP API; the body limit is counted while the body arrives.
    app = Guard(RequireBearer(server.streamable_http_app(host=host), token), allowed_hosts=allowed_hosts)
    listen.run(app, sock)
