"""Classification labels as a search and list filter on every face: HTTP, MCP and the CLI (issue 11 item 3)."""

from __future__ import annotations

import asyncio
import json

from mcp import Client

from memory_curator.cli.main import main
from memory_curator.mcp.server import build_server
from servers.conftest import running_api

DEBT = "The wizard owes us a favour: a debt he promised to repay after the tower."
MILK = "Buy milk and bread on the way home from the wizard."


def test_the_label_filter_on_search_and_list_over_http_mcp_and_cli(vault_dir, config, capsys):
    with running_api(vault_dir, config) as api, api.client() as c:
        ids = [c.post("/v1/memories", json={"content": text, "title": text[:20]}).json()["memory_id"]
               for text in (DEBT, MILK)]
        assert "favor_owed" in c.get(f"/v1/memories/{ids[0]}").json()["labels"]
        body = {"query": "wizard", "search_mode": "keyword", "limit": 10}
        assert {h["memory"]["id"] for h in c.post("/v1/search", json=body).json()["results"]} == set(ids)
        only = c.post("/v1/search", json={**body, "label": "favor_owed"}).json()
        assert [h["memory"]["id"] for h in only["results"]] == [ids[0]]
        listed = c.get("/v1/memories", params={"label": "favor_owed"}).json()
        assert [m["id"] for m in listed["memories"]] == [ids[0]]
        bad = c.post("/v1/search", json={**body, "label": "Not A Label!"})
        assert bad.status_code == 400 and bad.json()["details"][0]["field"] == "label"

        async def over_mcp():
            async with Client(build_server(api.worker)) as m:
                got = await m.call_tool("memory_search", {**body, "label": "favor_owed"})
                assert [h["memory"]["id"] for h in got.structured_content["results"]] == [ids[0]]
                got = await m.call_tool("memory_search", {**body, "label": "location"})
                assert [h["memory"]["id"] for h in got.structured_content["results"]] == [ids[0]]
                got = await m.call_tool("memory_search", {**body, "label": "event"})
                assert got.structured_content["results"] == []

        asyncio.run(over_mcp())
    capsys.readouterr()
    cli = ["--vault", str(vault_dir), "--embedder", "none"]
    assert main([*cli, "search", "wizard", "--mode", "keyword", "--label", "favor_owed", "--json"]) == 0
    assert [h["memory"]["id"] for h in json.loads(capsys.readouterr().out)["results"]] == [ids[0]]
    assert main([*cli, "list", "--label", "favor_owed", "--json"]) == 0
    assert [m["id"] for m in json.loads(capsys.readouterr().out)] == [ids[0]]
