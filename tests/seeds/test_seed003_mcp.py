"""Seed 003 (memo service: raw text with a TTL, summary embedded) over MCP: memory_store takes summary and
raw_ttl and says whether the summary was embedded and how many chunks were stored; search echoes the query;
once the raw text expires the memory says raw: null and its summary is still found; memory_clear_expired drops
what expired; a memory without a summary expires whole."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

from seeds.mcp_session import ok, run

RAW = ("Full transcript of the planning call. " * 60) + "We argued about zebras and tapirs."
SUMMARY = "Decided to ship the budget tool in March."


def test_two_tiers_over_mcp(vault_dir, ollama_server):
    async def scenario(c):
        props = {t.name: t for t in (await c.list_tools()).tools}["memory_store"].input_schema["properties"]
        assert "summary" in props and "raw_ttl" in props
        with_summary = await ok(c, "memory_store", {"content": RAW, "summary": SUMMARY, "raw_ttl": 10,
                                                    "session_id": "sess-1", "keywords": ["budget"]})
        assert with_summary["used_summary"] is True and with_summary["chunk_count"] in (0, 1)  # 0: still embedding
        assert with_summary["memory"]["raw"] == RAW and with_summary["memory"]["raw_expires_at"]
        plain = await ok(c, "memory_store", {"content": RAW, "session_id": "sess-1"})
        assert plain["used_summary"] is False
        assert (await _embedded(c, with_summary["memory_id"]))["chunk_count"] == 1  # the short summary: one chunk
        assert (await _embedded(c, plain["memory_id"]))["chunk_count"] >= 1
        whole = await ok(c, "memory_store", {"content": "A note that goes away whole.", "raw_ttl": 1})
        assert whole["memory"]["expires_at"] and "raw_expires_at" not in whole["memory"]
        sid = with_summary["memory_id"]
        until = datetime.fromisoformat(with_summary["memory"]["raw_expires_at"].replace("Z", "+00:00"))
        await asyncio.sleep(max(0.0, (until - datetime.now(timezone.utc)).total_seconds()) + 1.0)  # past both TTLs
        found = await ok(c, "memory_search", {"query": "when do we ship the budget tool", "search_mode": "semantic",
                                              "limit": 5})
        assert found["query"] == "when do we ship the budget tool"
        hit = next(h for h in found["results"] if h["memory"]["id"] == sid)
        assert hit["memory"]["raw"] is None and hit["memory"]["summary"] == SUMMARY
        assert whole["memory_id"] not in [h["memory"]["id"] for h in found["results"]]  # expired whole: hidden
        cleared = await ok(c, "memory_clear_expired", {})
        assert cleared["cleared"] == 2  # one raw text dropped, one memory to the trash
        after = await ok(c, "memory_get", {"memory_id": sid})
        assert after["raw"] is None and after["content"] == SUMMARY and "zebras" not in after["content"]
        keyword = await ok(c, "memory_search", {"query": "zebras tapirs", "search_mode": "keyword"})
        assert [h["memory"]["id"] for h in keyword["results"]] == [plain["memory_id"]]  # the raw is gone from sid
        assert (await ok(c, "memory_search", {"query": "budget tool March", "search_mode": "keyword"}))[
            "results"][0]["memory"]["id"] == sid

    run(vault_dir, scenario, embedder="ollama", ollama_host=ollama_server.url)


async def _embedded(c, memory_id: str) -> dict:
    """The memory once the server's background embedding has stored its vectors (bounded for a loaded machine)."""
    for _ in range(600):
        memory = await ok(c, "memory_get", {"memory_id": memory_id})
        if memory["chunk_count"]:
            return memory
        await asyncio.sleep(0.2)
    raise AssertionError(f"{memory_id} was not embedded")
