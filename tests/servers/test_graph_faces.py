"""Entities, links and seed 002's graph query on every face (issue 11 item 6): HTTP, MCP and the CLI answer the
same JSON from the same contract, and a caller counts and reaches only the memories they may see."""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp import Client

from memory_curator.cli.main import main
from memory_curator.core.contract.errors import parse
from memory_curator.core.contract.operations import operation
from memory_curator.core.errors import CuratorError
from memory_curator.mcp.server import build_server
from memory_curator.serving import calls
from servers.conftest import running_api

NOTES = [
    ("The wizard Gandros owes us a favour after we rescued him from the tower.", ["Gandros"], None),
    ("Gandros lives in the Silver Tower near Eldham.", ["Gandros"], None),
    ("The innkeeper Mirela knows about the debt [[The wizard owes us]].", ["Mirela"], None),
    ("Private: Gandros asked me alone to keep his secret.", ["Gandros"], "u2"),
]


def _fill(c) -> list[str]:
    ids = []
    for text, actors, owner in NOTES:
        body = {"content": text, "actors": actors, "title": text[:30], **({"user_id": owner} if owner else {})}
        r = c.post("/v1/memories", json=body)
        assert r.status_code == 201, r.text
        ids.append(r.json()["memory_id"])
    return ids


def test_entities_links_and_graph_query_over_http_mcp_and_cli(vault_dir, config, capsys):
    with running_api(vault_dir, config) as api, api.client() as c:
        ids = _fill(c)
        listed = c.get("/v1/entities").json()
        gandros = next(e for e in listed["entities"] if e["name"] == "Gandros")
        assert gandros["count"] == 2  # the two ownerless memories: u2's is not counted for this caller
        as_u2 = next(e for e in c.get("/v1/entities", params={"user_id": "u2"}).json()["entities"]
                     if e["name"] == "Gandros")
        assert as_u2["count"] == 3
        one = c.get("/v1/entities/gandros").json()  # case does not matter
        assert one["entity"]["name"] == "Gandros" and {m["id"] for m in one["memories"]} == set(ids[:2])
        missing = c.get("/v1/entities/Nobody")
        assert missing.status_code == 404 and missing.json()["error_code"] == "NOT_FOUND"
        links = c.get(f"/v1/memories/{ids[0]}/links").json()
        assert {"name": "Gandros", "source": "actor"} in links["entities"]
        linked = {lk["target"] if lk["source"] == ids[0] else lk["source"] for lk in links["links"]}
        assert ids[1] in linked and ids[3] not in linked  # u2's memory shares Gandros but is not this caller's
        assert c.get(f"/v1/memories/{ids[3]}/links").status_code == 403
        answer = c.post("/v1/graph/query", json={"query": "what does Gandros owe us"}).json()
        assert answer["query"] == "what does Gandros owe us" and "Gandros" in answer["entities"]
        found = [h["memory"]["id"] for h in answer["results"]]
        assert set(ids[:2]) <= set(found) and ids[3] not in found and all(h["why"] for h in answer["results"])
        mine = c.post("/v1/graph/query", json={"query": "Gandros", "user_id": "u2"}).json()
        assert ids[3] in [h["memory"]["id"] for h in mine["results"]]
        bad = c.post("/v1/graph/query", json={"query": ""})
        assert bad.status_code == 400 and bad.json()["details"][0]["code"] == "TOO_SHORT"

        async def over_mcp():
            async with Client(build_server(api.worker)) as m:
                got = await m.call_tool("memory_entities", {"query": "gand"})
                assert [e["name"] for e in got.structured_content["entities"]] == ["Gandros"]
                got = await m.call_tool("memory_graph_query", {"query": "what does Gandros owe us"})
                assert got.structured_content == answer  # the same answer as over HTTP
                got = await m.call_tool("memory_links", {"memory_id": ids[0]})
                assert got.structured_content == links
                got = await m.call_tool("memory_entity", {"name": "Nobody"})
                assert got.is_error and got.content[0].text.startswith("NOT_FOUND: ")

        asyncio.run(over_mcp())
    # The CLI, run by the vault's owner, sees every memory: u2's too.
    capsys.readouterr()
    assert main(["--vault", str(vault_dir), "--embedder", "none", "entity", "Gandros", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["entity"]["count"] == 3 and {m["id"] for m in out["memories"]} == {ids[0], ids[1], ids[3]}
    assert main(["--vault", str(vault_dir), "--embedder", "none", "graph-query", "Gandros", "--json"]) == 0
    assert ids[3] in [h["memory"]["id"] for h in json.loads(capsys.readouterr().out)["results"]]
    assert main(["--vault", str(vault_dir), "--embedder", "none", "entities", "--json"]) == 0
    assert {"Gandros", "Mirela"} <= {e["name"] for e in json.loads(capsys.readouterr().out)["entities"]}
    assert main(["--vault", str(vault_dir), "--embedder", "none", "links", ids[3], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["memory_id"] == ids[3]


def test_entity_corrections_are_the_vault_owners_through_the_cli(vault_dir, config, capsys):
    with running_api(vault_dir, config) as api, api.client() as c:
        ids = _fill(c)
        with pytest.raises(CuratorError) as refused:  # never a remote caller's: entities.yaml is everyone's
            api.worker.run(lambda svc: calls.run(svc, "entity_merge", parse(
                operation("entity_merge").input, {"names": ["Mirela"], "into": "Gandros"}), calls.Caller("http")))
        assert refused.value.code == "FORBIDDEN"
        assert c.get("/openapi.json").json()["paths"].keys().isdisjoint({"/v1/entities/merge"})

    def cli(*args: str) -> dict:
        capsys.readouterr()
        assert main(["--vault", str(vault_dir), "--embedder", "none", *args, "--json"]) == 0, args
        return json.loads(capsys.readouterr().out)

    merged = cli("entity-merge", "Mirela", "--into", "Gandros")["entity"]
    assert merged["name"] == "Gandros" and "Mirela" in merged["aliases"] and merged["count"] == 4
    assert cli("entity-rename", "Gandros", "Gandros the Grey")["entity"]["name"] == "Gandros the Grey"
    assert cli("entity-hide", "Eldham")["status"] == "success"
    assert "Eldham" not in {e["name"] for e in cli("entities")["entities"]}
    assert cli("entity-hide", "Eldham", "--undo")["entity"]["name"] == "Eldham"
    cli("link", ids[1], ids[2])
    assert {"source": ids[1], "target": ids[2], "kind": "link", "via": []} in cli("links", ids[1])["links"]
    cli("link", ids[1], ids[2], "--remove")
    assert ids[2] not in {lk["target"] for lk in cli("links", ids[1])["links"] if lk["kind"] == "link"}
    assert (vault_dir / "entities.yaml").exists() or list(vault_dir.rglob("entities.yaml"))


def test_labelling_again_is_the_vault_owners_through_the_cli(vault_dir, config, capsys):
    with running_api(vault_dir, config) as api, api.client() as c:
        ids = _fill(c)
        with pytest.raises(CuratorError) as refused:  # it rewrites every user's files
            api.worker.run(lambda svc: calls.run(svc, "classify", parse(operation("classify").input, {}),
                                                 calls.Caller("http")))
        assert refused.value.code == "FORBIDDEN"
        api.worker.run(lambda svc: svc.graph.labels.set_label_set({"debt": ["owes", "debt", "favour"]}))
        api.worker.run(lambda svc: svc.graph.labels.set(ids[2], {"npc_relationship": 0.9}))

    def cli(*args: str, code: int = 0) -> dict:
        capsys.readouterr()
        assert main(["--vault", str(vault_dir), "--embedder", "none", *args, "--json"]) == code, args
        return json.loads(capsys.readouterr().out)

    assert cli("classify", ids[0]) == {"status": "success", "changed": 1, "done": 1, "total": 1, "cancelled": False}
    assert cli("classify", ids[0], "no-such-memory", code=1)["error"]["code"] == "NOT_FOUND"
    run = cli("classify")
    assert (run["done"], run["total"], run["cancelled"]) == (4, 4, False) and run["changed"] >= 1
    labels = {mid: cli("get", mid)["extra"].get("labels", {}) for mid in ids}
    assert "debt" in labels[ids[0]] and labels[ids[2]] == {"npc_relationship": 0.9}  # the person's are kept
    assert cli("classify")["changed"] == 0
