"""An MCP session with `memory-curator mcp` as a real subprocess over stdio, for the seed tests."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters


def run(vault_dir: Path, scenario: Callable[[Client], Awaitable[None]], *, embedder: str = "none",
        ollama_host: str = "http://127.0.0.1:9") -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memory_curator.cli.main", "--vault", str(vault_dir), "--embedder", embedder, "mcp"],
        env={**os.environ, "OLLAMA_HOST": ollama_host},
    )

    async def session() -> None:
        async with Client(params) as client:
            await scenario(client)

    asyncio.run(session())


async def ok(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, (tool, result.content)
    return result.structured_content


async def error(client: Client, tool: str, args: dict[str, Any]) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, (tool, result.structured_content)
    return result.content[0].text
