"""Random requests to every operation of both remote faces (#12: the fuzz suite's HTTP and MCP part).

HTTP: every route of the contract (``core/contract/operations.py``) with random path segments, query strings and
JSON bodies, against the real server under uvicorn: never a 500, every refusal JSON with an ``error_code``.
MCP: every tool with random arguments (the tool's own fields, unknown ones, values of every JSON type), through
the SDK's client: either a result or an error whose text starts with its code (``VALIDATION_ERROR: ...``).
Afterwards the vault opens and agrees with its files (the requests that succeeded wrote only what they said).
"""

from __future__ import annotations

import asyncio
import json
import re
import urllib.parse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from memory_curator.core.config import MemoryConfig
from memory_curator.core.contract.operations import OPERATIONS
from memory_curator.core.service import MemoryService
from memory_curator.mcp.server import build_server
from memory_curator.serving.worker import ServiceWorker

# As tests/conftest.py's (a bare `from conftest import` finds tests/cli/conftest.py when both folders run).
CLOSED_OLLAMA = MemoryConfig(ollama_host="http://127.0.0.1:9", ollama_timeout_s=2.0)
ROUTES = [(op.http.method, op.http.path) for op in OPERATIONS if op.http is not None]
TOOLS = [op.mcp for op in OPERATIONS if op.mcp is not None]
CODED = re.compile(r"^[A-Z][A-Z_]+: \S")
FIELDS = sorted({name for op in OPERATIONS for name in op.input.model_fields})

# Text a client may send: control characters, lone surrogates (as JSON escapes), right-to-left marks, paths.
texts = st.one_of(
    st.text(max_size=40), st.text(st.characters(codec="utf-8"), max_size=10),
    st.sampled_from(["", " ", "\x00", "\ud800", "a\udfffb", "../../etc/passwd", "/tmp/x", "con", "\u202e",
                     "x" * 70_000, "0001-01-01T00:00:00+14:00", "2025-13-45", "NaN", "-1", "1e309", "{}", "[]"]),
)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=2**63, max_value=2**80),
                    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([1e308, -0.0, 5e-324]), texts)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.one_of(st.sampled_from(FIELDS), st.text(max_size=8)), inner, max_size=4), max_leaves=12)
bodies = st.one_of(
    st.dictionaries(st.one_of(st.sampled_from(FIELDS), st.text(max_size=10)), json_values, max_size=6),
    json_values,
)


# In a URL: what httpx will send (it refuses components past 65,536 characters, and lone surrogates).
url_texts = texts.filter(lambda s: len(s) < 2000 and "\ud800" not in s and "\udfff" not in s)


def _path(template: str, segments: list[str]) -> str:
    out = template
    for segment in segments:
        out = re.sub(r"\{[a-z_]+\}", urllib.parse.quote(segment, safe=""), out, count=1)
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(route=st.sampled_from(ROUTES), segments=st.lists(url_texts, min_size=2, max_size=2),
       query=st.dictionaries(st.sampled_from(FIELDS), url_texts, max_size=3), body=bodies,
       as_text=st.booleans())
def test_random_requests_to_every_route_never_answer_500(api, route, segments, query, body, as_text):
    method, template = route
    raw = json.dumps(body).encode() if not as_text else json.dumps(body)[: len(json.dumps(body)) // 2].encode()
    with api.client() as c:
        r = c.request(method, _path(template, segments), params=query,
                      content=raw if method in ("POST", "PUT", "PATCH") else None,
                      headers={"Content-Type": "application/json"})
        assert r.status_code < 500, (method, template, body, r.text[:500])
        if r.status_code >= 400:
            assert r.json()["error_code"], r.text[:500]
        assert c.get("/health").status_code == 200  # and it goes on serving


@pytest.fixture(scope="module")
def mcp_worker(tmp_path_factory):
    vault = tmp_path_factory.mktemp("mcp-fuzz") / "vault"
    w = ServiceWorker(lambda: MemoryService.open(vault, embedder="none", config=CLOSED_OLLAMA))
    yield w, vault
    w.close()


def _call(worker: ServiceWorker, calls: list[tuple[str, dict]]) -> list[tuple[bool, str, object]]:
    async def session():
        out = []
        async with Client(build_server(worker, client="fuzz")) as c:
            for name, args in calls:
                result = await c.call_tool(name, args)
                text = result.content[0].text if result.content else ""
                out.append((result.is_error, text, result.structured_content))
        return out

    return asyncio.run(session())


tool_calls = st.lists(st.tuples(st.sampled_from([*TOOLS, "memory_nothing"]),
                                st.dictionaries(st.one_of(st.sampled_from(FIELDS), st.text(max_size=8)), json_values,
                                                max_size=5)), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(calls=tool_calls)
def test_random_tool_arguments_answer_a_result_or_an_error_with_its_code(mcp_worker, calls):
    worker, _ = mcp_worker
    for (name, args), (is_error, text, structured) in zip(calls, _call(worker, calls), strict=True):
        if is_error:
            assert CODED.match(text), (name, args, text[:500])
            assert "Traceback" not in text and "INTERNAL" not in text, (name, args, text[:500])
        else:
            assert isinstance(structured, dict), (name, args, text[:500])


def test_after_the_fuzz_the_vault_agrees_with_its_files(mcp_worker):
    worker, vault = mcp_worker
    _call(worker, [("memory_store", {"content": "a last memory after the fuzz"})])
    worker.close()
    with MemoryService.open(vault, embedder="none") as svc:
        listed = {m.id for m in svc.list_memories(limit=10_000)} | {m.id for m in svc.inbox.items()}
        svc.rebuild_index(embed=False)
        assert {m.id for m in svc.list_memories(limit=10_000)} | {m.id for m in svc.inbox.items()} == listed
        assert svc.problems() == []
