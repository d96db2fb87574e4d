"""The MCP server through the SDK's own client: in process, and over stdio against `memory-curator mcp`."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time

import pytest
from mcp import Client

from memory_curator.core.service import MemoryService
from memory_curator.mcp.server import build_server
from memory_curator.serving.worker import ServiceWorker
from servers.shared_vault import free_port

TOOLS = {"memory_store", "memory_batch_store", "memory_batch_update", "memory_search", "memory_get",
         "memory_update", "memory_delete", "memory_get_score", "memory_set_score", "memory_consolidate",
         "memory_session_context", "memory_list", "memory_clear_expired", "memory_health", "memory_entities",
         "memory_entity", "memory_links", "memory_graph_query"}


@pytest.fixture
def worker(vault_dir, config):
    w = ServiceWorker(lambda: MemoryService.open(vault_dir, embedder="none", config=config))
    yield w
    w.close()


def _run(coro):
    return asyncio.run(coro)


async def _ok(client: Client, name: str, args: dict):
    result = await client.call_tool(name, args)
    assert not result.is_error, (name, result.content)
    return result.structured_content


async def _stored(client: Client, args: dict):
    """memory_store answers as POST /v1/memories does: status, memory_id and the memory."""
    result = await _ok(client, "memory_store", args)
    assert result["status"] == "success" and result["memory_id"] == result["memory"]["id"]
    return result["memory"]


async def _error(client: Client, name: str, args: dict) -> str:
    result = await client.call_tool(name, args)
    assert result.is_error, (name, result.structured_content)
    return result.content[0].text


def test_every_tool_over_an_in_process_session(worker):
    async def session():
        async with Client(build_server(worker, client="claude-desktop")) as c:
            listed = {t.name: t for t in (await c.list_tools()).tools}
            assert set(listed) == TOOLS
            assert listed["memory_search"].input_schema["properties"]["search_mode"]["enum"] == [
                "keyword", "semantic", "hybrid"]

            a = await _stored(c, {"content": "We chose SQLite with sqlite-vec for vectors.",
                                              "title": "Vector store", "category": "decisions",
                                              "keywords": ["sqlite"], "session_id": "s1"})
            assert a["source"] == "ai" and a["in_inbox"] and a["provenance"]["client"] == "claude-desktop"
            brief = await _stored(c, {"content": "Temporary note", "expires_at": "2020-01-01T00:00:00Z",
                                                  "scope": "session", "actors": ["user"]})
            assert brief["expires_at"] == "2020-01-01T00:00:00Z" and brief["actors"] == ["user"]
            assert (await _ok(c, "memory_delete", {"memory_id": brief["id"]}))["deleted"]
            batch = await _ok(c, "memory_batch_store", {"items": [
                {"content": "Backend in Python with FastAPI.", "session_id": "s1", "keywords": ["python"]},
                {"content": "Tests use real SQLite.", "session_id": "s1"}]})
            assert batch["success_count"] == 2 and batch["error_count"] == 0
            b, t = batch["created_ids"]

            hits = await _ok(c, "memory_search", {"query": "sqlite vectors", "search_mode": "keyword"})
            assert hits["results"][0]["memory"]["id"] == a["id"]
            hyb = await _ok(c, "memory_search", {"query": "python", "search_mode": "hybrid", "category": "context"})
            assert [h["memory"]["id"] for h in hyb["results"]] == [b] and not hyb["warnings"]  # keyword-only vault
            sem = await _ok(c, "memory_search", {"query": "python", "search_mode": "semantic", "category": "context"})
            assert [h["memory"]["id"] for h in sem["results"]] == [b] and sem["warnings"]  # no embedder: keyword

            assert (await _ok(c, "memory_get", {"memory_id": b}))["content"] == "Backend in Python with FastAPI."
            upd = await _ok(c, "memory_update", {"memory_id": b, "salience": 0.3, "keywords": ["python", "fastapi"]})
            assert upd["salience"] == 0.3 and upd["keywords"] == ["python", "fastapi"]
            bu = await _ok(c, "memory_batch_update", {"updates": [{"id": a["id"], "salience": 0.9},
                                                                  {"id": t, "title": "Testing"}]})
            assert bu["success_count"] == 2

            score = await _ok(c, "memory_get_score", {"memory_id": a["id"]})
            assert 0.0 <= score["score"] <= 1.0
            score = await _ok(c, "memory_set_score", {"memory_id": a["id"], "score": 0.95})
            assert score["score"] == 0.95

            ctx = await _ok(c, "memory_session_context", {"session_id": "s1"})
            assert ctx["count"] == 3 and ctx["tokens"] > 0

            merged = await _ok(c, "memory_consolidate", {"ids": [b, t], "title": "Stack"})
            assert merged

            assert (await _ok(c, "memory_delete", {"memory_id": t}))["deleted"] is True
            assert (await _ok(c, "memory_delete", {"memory_id": t}))["deleted"] is False

    _run(session())


def test_bad_input_comes_back_as_tool_errors(worker):
    async def session():
        async with Client(build_server(worker)) as c:
            assert "NOT_FOUND" in await _error(c, "memory_get", {"memory_id": "nope"})
            assert "content" in await _error(c, "memory_store", {"content": ""})
            assert "VALIDATION_ERROR" in await _error(c, "memory_store", {"content": "x", "category": "../up"})
            assert "search_mode" in await _error(c, "memory_search", {"query": "x", "search_mode": "fuzzy"})
            assert "salience" in await _error(c, "memory_update", {"memory_id": "x", "salience": 7})
            assert "100" in await _error(c, "memory_batch_store", {"items": [{"content": "x"}] * 101})
            assert await _error(c, "memory_consolidate", {})
            # The server is still fine after all that.
            assert (await _stored(c, {"content": "still works"}))["id"]

    _run(session())


def test_stdio_server_subprocess(vault_dir, stdio_mcp):
    async def session():
        async with Client(stdio_mcp) as c:
            assert {t.name for t in (await c.list_tools()).tools} == TOOLS
            stored = await _stored(c, {"content": "Stored over stdio", "keywords": ["stdio"]})
            hits = await _ok(c, "memory_search", {"query": "stdio", "search_mode": "keyword"})
            assert hits["results"][0]["memory"]["id"] == stored["id"]
            assert "NOT_FOUND" in await _error(c, "memory_get", {"memory_id": "missing"})

    _run(session())
    with MemoryService.open(vault_dir, embedder="none") as svc:
        assert [m.title for m in svc.inbox.items()] == ["Stored over stdio"]


def test_streamable_http_on_loopback_needs_the_token(vault_dir, tmp_path):
    import httpx
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    port = free_port()
    token_file = tmp_path / "api-token"
    proc = subprocess.Popen([sys.executable, "-m", "memory_curator.cli.main", "--vault", str(vault_dir),
                             "--embedder", "none", "mcp", "--http", "--port", str(port)],
                            env={**os.environ, "OLLAMA_HOST": "http://127.0.0.1:9", "MEMORY_CURATOR_TOKEN_FILE": str(token_file)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the MCP HTTP server did not start"
                time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        token = token_file.read_text().strip()
        hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        for headers in ({}, {"Authorization": "Bearer wrong-token"}):
            denied = httpx.post(url, json=hello, headers={"Accept": "application/json, text/event-stream", **headers})
            assert denied.status_code == 401 and denied.json()["error_code"] == "UNAUTHORIZED"
            assert denied.headers["www-authenticate"] == "Bearer"
        auth = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {token}"}
        rebound = httpx.post(url, json=hello, headers={**auth, "Host": "evil.example.com"})
        assert rebound.status_code == 421 and rebound.json()["error_code"] == "INVALID_HOST"
        huge = httpx.post(url, content=b"x" * (2 * 1024 * 1024), headers={**auth, "Content-Type": "application/json"})
        assert huge.status_code == 413 and huge.json()["error_code"] == "PAYLOAD_TOO_LARGE"

        async def session():
            http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
            async with http, Client(streamable_http_client(url, http_client=http)) as c:
                assert {t.name for t in (await c.list_tools()).tools} == TOOLS
                stored = await _stored(c, {"content": "Stored over streamable HTTP"})
                assert (await _ok(c, "memory_get", {"memory_id": stored["id"]}))["content"] == "Stored over streamable HTTP"

        _run(session())
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_every_tool_error_starts_with_its_code_and_says_what_to_change(worker):
    """#17 item 9: schema errors too; never the SDK's pydantic text."""
    cases = [
        ("memory_store", {"content": "x", "salience": 7}, "VALIDATION_ERROR", "salience must be at most 1"),
        ("memory_store", {"content": 5}, "VALIDATION_ERROR", "content has the wrong type"),
        ("memory_store", {}, "VALIDATION_ERROR", "content is required"),
        ("memory_store", {"content": "x", "colour": "red"}, "VALIDATION_ERROR", "colour is not a field"),
        ("memory_store", {"content": "a\ud800"}, "VALIDATION_ERROR", "INVALID_TEXT"),
        ("memory_store", {"content": "x", "scope": "Not A Scope"}, "VALIDATION_ERROR", "INVALID_SCOPE"),
        ("memory_search", {"query": "x", "search_mode": "fuzzy"}, "VALIDATION_ERROR", "'keyword', 'semantic'"),
        ("memory_search", {"query": "x", "limit": "many"}, "VALIDATION_ERROR", "limit"),
        ("memory_batch_store", {"items": [{"content": "x"}] * 101}, "VALIDATION_ERROR", "at most 100 items"),
        ("memory_consolidate", {}, "VALIDATION_ERROR", "request must give ids (2 to 50 memories) or a query"),
        ("memory_get", {"memory_id": "nope"}, "NOT_FOUND", "No memory with id 'nope'"),
        ("memory_get", {"id": "nope"}, "VALIDATION_ERROR", "memory_id is required"),
        ("memory_nothing", {}, "NOT_FOUND", "memory_nothing"),
    ]

    async def session():
        async with Client(build_server(worker)) as c:
            for tool, args, code, says in cases:
                text = await _error(c, tool, args)
                assert text.startswith(f"{code}: "), (tool, args, text)
                assert says in text, (tool, args, text)
                assert "pydantic" not in text and "Error executing tool" not in text, text

    _run(session())
