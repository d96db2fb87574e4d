"""The list operation pages by cursor on HTTP and MCP (core/contract/cursors.py), as the Python API pages with
``after=``; and search warnings come with their codes (``notices``) beside the plain ``warnings``."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from memory_curator.core.contract import cursors
from memory_curator.core.contract.types import OrderBy
from memory_curator.core.service import MemoryService

ORDERS = list(OrderBy.__args__)


def seed(vault_dir, config, n: int = 23) -> None:
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        for k in range(n):
            item = svc.save(f"memory number {k}", title=f"Title {k % 5}", category=("context", "decisions")[k % 2],
                            session_id=f"s{k % 3}" if k % 4 else None, salience=(k % 7) / 7)
            for _ in range(k % 3):
                svc.get(item.id)  # access counts differ


def pages(fetch, order_by: str, limit: int) -> list[list[str]]:
    """Every page's ids, following next_cursor until it is null."""
    out, cursor = [], None
    while True:
        body = fetch({"order_by": order_by, "limit": limit, **({"cursor": cursor} if cursor else {})})
        out.append([m["id"] for m in body["memories"]])
        assert body["count"] == len(body["memories"])
        cursor = body["next_cursor"]
        if cursor is None:
            return out
        assert len(out) < 100


def test_http_pages_by_cursor_in_every_order(api, vault_dir, config):
    seed(vault_dir, config)
    with api.client() as c:
        def fetch(params):
            r = c.get("/v1/memories", params=params)
            assert r.status_code == 200, r.text
            return r.json()

        for order in ORDERS:
            whole = [m["id"] for m in fetch({"order_by": order, "limit": 100})["memories"]]
            got = pages(fetch, order, 5)
            assert [i for p in got for i in p] == whole, order
            assert [len(p) for p in got] == [5, 5, 5, 5, 3]  # no empty page after the last: null at once


def test_a_cursor_skips_and_repeats_nothing_when_memories_change_between_pages(api, vault_dir, config):
    seed(vault_dir, config, 12)
    with api.client() as c:
        first = c.get("/v1/memories", params={"limit": 5}).json()
        before = [m["id"] for m in c.get("/v1/memories", params={"limit": 100}).json()["memories"]]
        for k in range(2):  # to the top (newest change): an offset's page would shift by one
            c.post("/v1/memories", json={"content": f"saved between two pages {k}"})
        c.delete(f"/v1/memories/{first['memories'][-1]['id']}")  # the cursor's own memory goes
        second = c.get("/v1/memories", params={"limit": 100, "cursor": first["next_cursor"]}).json()
        assert [m["id"] for m in second["memories"]] == before[5:]
        by_offset = c.get("/v1/memories", params={"limit": 100, "offset": 5}).json()
        assert [m["id"] for m in by_offset["memories"]] != before[5:]  # what the cursor is for


@pytest.mark.parametrize("params, why", [
    ({"cursor": "not a cursor!"}, "does not decode"),
    ({"cursor": base64.urlsafe_b64encode(b'{"v":2,"o":"updated","n":1}').decode()}, "unknown form"),
    ({"cursor": base64.urlsafe_b64encode(b'{"v":1,"o":"salience","k":"x","r":1}').decode(),
      "order_by": "salience"}, "unknown form"),
    ({"cursor": cursors.encode(cursors.Cursor("title", "A", 3)), "order_by": "updated"}, "order_by 'title'"),
    ({"cursor": cursors.encode(cursors.Cursor("updated", offset=5)), "offset": 5}, "instead of offset"),
])
def test_a_bad_cursor_is_a_400_with_its_code(api, params, why):
    with api.client() as c:
        r = c.get("/v1/memories", params=params)
    assert r.status_code == 400 and r.json()["error_code"] == "VALIDATION_ERROR"
    detail = r.json()["details"][0]
    assert detail["field"] == "cursor" and detail["code"] == "INVALID_CURSOR" and why in detail["message"]


def test_http_search_warnings_carry_their_codes(api, vault_dir, config):
    seed(vault_dir, config, 3)
    with api.client() as c:
        body = c.post("/v1/search", json={"query": "memory", "search_mode": "semantic"}).json()
    assert body["warnings"] and all(isinstance(w, str) for w in body["warnings"])  # as before
    assert body["notices"] == [{"code": "SEMANTIC_UNAVAILABLE", "message": w} for w in body["warnings"]]


def test_mcp_subprocess_pages_by_cursor_and_codes_warnings(vault_dir, config, stdio_mcp):
    seed(vault_dir, config, 9)

    async def session():
        async with Client(stdio_mcp) as c:
            schema = {t.name: t for t in (await c.list_tools()).tools}["memory_list"].input_schema
            assert "cursor" in schema["properties"]
            results = {}

            async def fetch(args):
                result = await c.call_tool("memory_list", args)
                assert not result.is_error, result.content
                return result.structured_content

            for order in ("title", "access_count"):
                whole = [m["id"] for m in (await fetch({"order_by": order, "limit": 100}))["memories"]]
                got, cursor = [], None
                while True:
                    body = await fetch({"order_by": order, "limit": 4, **({"cursor": cursor} if cursor else {})})
                    got += [m["id"] for m in body["memories"]]
                    if (cursor := body["next_cursor"]) is None:
                        break
                results[order] = (got, whole)
            bad = await c.call_tool("memory_list", {"cursor": "%%%"})
            search = (await c.call_tool("memory_search", {"query": "memory", "search_mode": "semantic"}))
            return results, bad, search.structured_content

    results, bad, search = asyncio.run(session())
    for got, whole in results.values():
        assert got == whole and len(whole) == 9
    assert bad.is_error and bad.content[0].text.startswith("VALIDATION_ERROR") and "INVALID_CURSOR" in str(
        bad.content[0].text + json.dumps(bad.structured_content or {}))
    assert search["notices"] and search["notices"][0]["code"] == "SEMANTIC_UNAVAILABLE"
    assert [n["message"] for n in search["notices"]] == search["warnings"]


keys = st.one_of(st.text(max_size=60), st.floats(allow_nan=False, allow_infinity=False))


@given(order=st.sampled_from(ORDERS), key=keys, row=st.integers(1, 2**63 - 1),
       offset=st.integers(0, cursors.MAX_OFFSET), keyed=st.booleans())
def test_a_cursor_decodes_to_what_was_encoded(order, key, row, offset, keyed):
    numeric = order == "salience"
    if keyed and isinstance(key, float) != numeric:
        key = float(len(key)) if numeric else str(key)
    made = cursors.Cursor(order, key, row) if keyed else cursors.Cursor(order, offset=offset)
    assert cursors.decode(cursors.encode(made)) == made


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cursor=st.one_of(
    st.text(max_size=80),
    st.binary(max_size=60).map(lambda b: base64.urlsafe_b64encode(b).decode()),
    st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
                 lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                     st.sampled_from(["v", "o", "k", "r", "n", "x"]), inner, max_size=5), max_leaves=8)
    .map(lambda v: base64.urlsafe_b64encode(json.dumps(v).encode()).decode().rstrip("=")),
))
def test_any_cursor_is_a_page_or_a_400_never_a_500(api, cursor):
    with api.client() as c:
        r = c.get("/v1/memories", params={"cursor": cursor})
    assert r.status_code in (200, 400), r.text
    if r.status_code == 400:
        assert r.json()["details"][0]["code"] in ("INVALID_CURSOR", "INVALID_TEXT", "TOO_LONG")
