"""Ownership on every read (#10 part 2): a memory stored with a user_id is visible over HTTP and MCP only to that
user (GET 403; search, list and session context leave it out); a caller without user_id sees only ownerless
memories; --require-user makes user_id mandatory; the Python API (the app, the CLI) sees every memory."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import time

import httpx
import pytest
from mcp import Client

from memory_curator.core.contract.operations import OPERATIONS
from memory_curator.core.service import MemoryService
from memory_curator.mcp.server import build_server
from memory_curator.serving.worker import ServiceWorker
from servers.conftest import running_api
from servers.shared_vault import free_port

OWNERS = {"u1": "alpha note of the first user", "u2": "alpha note of the second user", None: "alpha note of no one"}


def _store_three(post) -> dict[str | None, str]:
    ids = {}
    for owner, text in OWNERS.items():
        body = {"content": text, "session_id": "s1", "keywords": ["alpha"], **({"user_id": owner} if owner else {})}
        ids[owner] = post(body)
    return ids


def _expected(ids: dict, who: str | None) -> set[str]:
    return {ids[None]} | ({ids[who]} if who else set())


@pytest.mark.parametrize("require_user", [False, True])
def test_http_reads_show_a_user_only_their_own_and_ownerless_memories(vault_dir, config, require_user):
    with running_api(vault_dir, config, require_user=require_user) as api, api.client() as c:
        def post(body):
            r = c.post("/v1/memories", json=body if body.get("user_id") or not require_user else {**body, "user_id": "u3"})
            assert r.status_code == 201, r.text
            return r.json()["memory_id"]

        ids = _store_three(post)
        if require_user:  # the ownerless one was stored by u3 here: store it ownerless through the engine
            ids[None] = api.worker.run(lambda svc: svc.save("alpha note of no one", session_id="s1").id)
        callers = ["u1", "u2"] if require_user else ["u1", "u2", None]
        for who in callers:
            q = {"user_id": who} if who else {}
            want = _expected(ids, who)
            for owner, mid in ids.items():
                r = c.get(f"/v1/memories/{mid}", params=q)
                if mid in want:
                    assert r.status_code == 200, (who, owner, r.text)
                else:
                    assert r.status_code == 403 and r.json()["error_code"] == "FORBIDDEN", (who, owner, r.text)
                    assert "alpha" not in r.text  # nothing of the memory in the refusal
                    assert c.get(f"/v1/memories/{mid}/score", params=q).status_code == 403
                    assert c.patch(f"/v1/memories/{mid}", json={**q, "title": "taken"}).status_code == 403
                    assert c.delete(f"/v1/memories/{mid}", params=q).status_code == 403
            found = c.post("/v1/search", json={"query": "alpha", "search_mode": "keyword", "limit": 10, **q}).json()
            assert {h["memory"]["id"] for h in found["results"]} == want, who
            listed = c.get("/v1/memories", params=q).json()
            assert {m["id"] for m in listed["memories"]} == want, who
            session = c.get("/v1/sessions/s1", params=q).json()
            assert {m["id"] for m in session["memories"]} == want and session["count"] == len(want), who
        if require_user:
            for method, path, body in (("GET", f"/v1/memories/{ids[None]}", None), ("GET", "/v1/memories", None),
                                       ("GET", "/v1/sessions/s1", None), ("POST", "/v1/search", {"query": "alpha"}),
                                       ("POST", "/v1/memories", {"content": "x"})):
                r = c.request(method, path, json=body)
                assert r.status_code == 400, (path, r.text)
                assert r.json()["details"][0] == {"field": "user_id", "code": "MISSING_FIELD",
                                                  "message": r.json()["message"]}
            assert c.get("/health").status_code == 200  # no memory in it: open to every token holder
        # The vault's owner (the app, the CLI: the Python API) sees all three.
        everything = {r.memory.id for r in api.worker.run(lambda svc: svc.search("alpha", mode="keyword", limit=10))}
        assert set(ids.values()) <= everything and len(everything) == len(OWNERS) + require_user  # and u3's


@pytest.mark.parametrize("require_user", [False, True])
def test_mcp_reads_show_a_user_only_their_own_and_ownerless_memories(vault_dir, config, require_user):
    worker = ServiceWorker(lambda: MemoryService.open(vault_dir, embedder="none", config=config))
    ids = {owner: worker.run(lambda svc, o=owner, t=text: svc.save(
        t, session_id="s1", provenance={"client": "test", **({"user_id": o} if o else {})}).id)
        for owner, text in OWNERS.items()}

    async def session():
        async with Client(build_server(worker, require_user=require_user)) as c:
            async def call(tool, args):
                return await c.call_tool(tool, args)

            for who in (["u1", "u2"] if require_user else ["u1", "u2", None]):
                q = {"user_id": who} if who else {}
                want = _expected(ids, who)
                for mid in ids.values():
                    got = await call("memory_get", {"memory_id": mid, **q})
                    if mid in want:
                        assert not got.is_error, got.content
                    else:
                        assert got.is_error and got.content[0].text.startswith("FORBIDDEN: "), got.content
                found = await call("memory_search", {"query": "alpha", "search_mode": "keyword", "limit": 10, **q})
                assert {h["memory"]["id"] for h in found.structured_content["results"]} == want, who
                listed = await call("memory_list", q)
                assert {m["id"] for m in listed.structured_content["memories"]} == want, who
                ctx = await call("memory_session_context", {"session_id": "s1", **q})
                assert {m["id"] for m in ctx.structured_content["memories"]} == want, who
            if require_user:
                for tool, args in (("memory_search", {"query": "alpha"}), ("memory_list", {}),
                                   ("memory_get", {"memory_id": ids[None]}),
                                   ("memory_session_context", {"session_id": "s1"})):
                    r = await call(tool, args)
                    assert r.is_error and r.content[0].text.startswith("VALIDATION_ERROR: user_id is required"), tool
                    assert "user_id: MISSING_FIELD" in r.content[0].text

    try:
        asyncio.run(session())
    finally:
        worker.close()


def test_consolidating_by_query_takes_only_what_the_caller_sees(vault_dir, config):
    with running_api(vault_dir, config) as api, api.client() as c:
        ids = _store_three(lambda body: c.post("/v1/memories", json=body).json()["memory_id"])
        extra = c.post("/v1/memories", json={"content": "alpha more of the first user", "user_id": "u1"}).json()
        r = c.post("/v1/consolidate", json={"query": "alpha", "user_id": "u1", "preserve_originals": True})
        assert r.status_code == 201, r.text
        assert set(r.json()["source_ids"]) == {ids["u1"], ids[None], extra["memory_id"]}  # never u2's


# One request per remote operation: a new operation fails test_no_operation_returns_another_users_memory until it
# has its example here (and so is checked for leaks).
SECRET = "SECRETOFU2"


def _examples(secret: str, mine: str) -> dict[str, dict]:
    return {
        "store": {"content": "zebra note"}, "store_batch": {"items": [{"content": "zebra batch"}]},
        "get": {"memory_id": secret}, "update": {"memory_id": secret, "title": "taken"},
        "update_batch": {"updates": [{"id": secret, "title": "taken"}]}, "delete": {"memory_id": secret},
        "search": {"query": "zebra", "search_mode": "keyword", "limit": 100}, "list": {"limit": 100},
        "session_context": {"session_id": "s1"}, "get_score": {"memory_id": secret},
        "set_score": {"memory_id": secret, "score": 0.5}, "consolidate": {"query": "zebra"},
        "clear_expired": {}, "health": {}, "seed_store": {"text": "zebra seed"},
        "seed_search": {"query": "zebra", "search_mode": "keyword", "min_score": 0.0},
        "store_direct": {"content": "zebra direct"}, "entities": {"limit": 500}, "entity": {"name": "Gandros"},
        "links": {"memory_id": mine}, "graph_query": {"query": "Gandros zebra"},
    }


def _http_request(op, values: dict) -> tuple[str, str, dict]:
    path, rest = op.http.path, dict(values)
    for name in re.findall(r"{(\w+)}", path):
        path = path.replace("{" + name + "}", str(rest.pop(name)))
    if op.http.method in ("GET", "DELETE"):
        return op.http.method, path, {"params": rest}
    return op.http.method, path, {"json": rest}


@pytest.mark.parametrize("who", ["u1", None])
def test_no_operation_returns_another_users_memory(vault_dir, config, who):
    """Every HTTP route and MCP tool of the contract, as u1 and as a caller without user_id: u2's memory (its
    text, its id outside a refusal of it) appears in no answer."""
    with running_api(vault_dir, config) as api, api.client() as c:
        secret = c.post("/v1/memories", json={"content": f"{SECRET} zebra Gandros", "session_id": "s1", "user_id": "u2",
                                               "keywords": ["zebra"], "actors": ["Gandros"]}).json()["memory_id"]
        mine = c.post("/v1/memories", json={"content": "visible zebra Gandros", "session_id": "s1", "keywords": ["zebra"],
                                             "actors": ["Gandros"], **({"user_id": who} if who else {})}).json()["memory_id"]
        c.post("/v1/memories", json={"content": "another zebra Gandros", "session_id": "s1"})
        examples = _examples(secret, mine)
        remote = [op for op in OPERATIONS if op.http or op.mcp]
        assert sorted(op.name for op in remote if op.name not in examples) == []
        by_id = {"get", "update", "update_batch", "delete", "get_score", "set_score"}
        for op in remote:
            values = dict(examples[op.name])
            if "user_id" in op.input.model_fields and (who or op.name == "store_direct"):
                values["user_id"] = who or "u1"
            if op.http:
                method, path, kw = _http_request(op, values)
                r = c.request(method, path, **kw)
                assert r.status_code < 500, (op.name, r.text)
                assert SECRET not in r.text, (op.name, r.text)
                assert op.name in by_id or secret not in r.text, (op.name, r.text)
                if op.name in by_id:
                    assert r.status_code == 403, (op.name, r.text)
                elif r.status_code < 300:
                    op.result.model_validate(r.json())  # the answer has the contract's result shape

        async def over_mcp():
            async with Client(build_server(api.worker)) as m:
                for op in remote:
                    if op.mcp:
                        values = dict(examples[op.name], **({"user_id": who} if who and "user_id" in
                                                            op.input.model_fields else {}))
                        got = await m.call_tool(op.mcp, values)
                        text = json.dumps(got.structured_content) if not got.is_error else got.content[0].text
                        assert SECRET not in text, (op.mcp, text)
                        assert op.name in by_id or secret not in text, (op.mcp, text)
                        if op.name in by_id:
                            assert got.is_error and text.startswith("FORBIDDEN: "), (op.mcp, text)
                        elif not got.is_error:
                            op.result.model_validate(got.structured_content)

        asyncio.run(over_mcp())
        assert api.worker.run(lambda svc: svc.get(secret, record_access=False)).title != "taken"  # nothing changed


def test_serve_require_user_from_the_command_line(vault_dir, tmp_path):
    """`memory-curator serve --require-user`, a real process: a request without user_id is a 400 with its code."""
    port = free_port()
    token_file = tmp_path / "api-token"
    env = {**os.environ, "OLLAMA_HOST": "http://127.0.0.1:9", "MEMORY_CURATOR_TOKEN_FILE": str(token_file)}
    proc = subprocess.Popen([sys.executable, "-m", "memory_curator.cli.main", "--vault", str(vault_dir),
                             "--embedder", "none", "serve", "--require-user", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP server did not start"
                time.sleep(0.1)
        auth = {"Authorization": f"Bearer {token_file.read_text().strip()}"}
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=auth, timeout=30) as c:
            refused = c.post("/v1/search", json={"query": "x"})
            assert refused.status_code == 400 and refused.json()["details"][0]["code"] == "MISSING_FIELD"
            assert c.post("/v1/memories", json={"content": "mine", "user_id": "u1"}).status_code == 201
            assert c.get("/v1/memories", params={"user_id": "u1"}).json()["count"] == 1
            assert c.get("/v1/memories", params={"user_id": "u2"}).json()["count"] == 0
    finally:
        proc.terminate()
        proc.wait(timeout=30)
