"""Every operation of the contract (core/contract/) on every face: Python, CLI, MCP, HTTP.

A field added to an operation's input model appears in the MCP tool schema and the OpenAPI document by itself
(checked here against the running servers' own descriptions); the Python API and the CLI are written by hand,
so this test fails until they take it under the same name (or the CLI's declared flag, cli/registry.py)."""

from __future__ import annotations

import argparse
import asyncio
import inspect
import typing
from typing import Any

import pytest
from mcp import Client
from pydantic import BaseModel, Field, create_model

from memory_curator.cli.main import build_parser
from memory_curator.cli.registry import CONTRACT_FLAGS
from memory_curator.core import direct
from memory_curator.core.contract import inputs
from memory_curator.core.contract.errors import parse
from memory_curator.core.contract.operations import OPERATIONS, Http, Operation
from memory_curator.core.errors import ValidationError
from memory_curator.core.graph.graph import EntityGraph
from memory_curator.core.graph.labelling import Labelling
from memory_curator.core.index.listing import ORDERS
from memory_curator.core.lifecycle.fields import split
from memory_curator.core.model import MEMORY_TYPES, SEARCH_MODES, SORT_KEYS
from memory_curator.core.service import MemoryService
from memory_curator.core.validation import BATCH_MODES
from memory_curator.mcp.server import build_server
from memory_curator.server.app import build_app
from memory_curator.server.openapi import document, path_fields
from memory_curator.serving.calls import CALLS
from memory_curator.serving.graph_calls import CALLS as GRAPH_CALLS
from memory_curator.serving.worker import ServiceWorker


def engine_fields(op: Operation) -> list[str]:
    """The fields the Python API and the CLI take: all but the remote faces' own (user_id)."""
    return [f for f in op.input.model_fields if f not in op.face_only]


# -- Python ------------------------------------------------------------------------------------------------


def engine_accepts(name: str) -> bool:
    """Whether the engine's optional fields (``save(**fields)``) take ``name``: it refuses others as UNKNOWN_FIELD."""
    try:
        split({name: None})
    except ValidationError as exc:
        return exc.code != "UNKNOWN_FIELD"
    return True


# Methods that take their fields as **values, and how the engine says which names it reads.
KWARGS = {"store_direct": lambda name: name in direct.FIELDS}


def python_gaps(op: Operation) -> list[str]:
    if op.python is None:
        return [f"{op.name}: no Python method"]
    owner, _, name = op.python.rpartition(".")
    method = getattr({"": MemoryService, "graph": EntityGraph, "graph.labels": Labelling}[owner], name, None)
    if method is None:
        return [f"{op.name}: MemoryService has no {op.python}"]
    params = inspect.signature(method).parameters
    open_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    gaps = []
    for field in engine_fields(op):
        name = op.renames.get(field, field)
        # save/update take optional fields as **fields: those the engine accepts by name (lifecycle/fields.py)
        if name not in params and not (open_kwargs and KWARGS.get(op.python, engine_accepts)(name)):
            gaps.append(f"{op.name}: MemoryService.{op.python} has no parameter {name!r}")
    return gaps


def test_every_operation_is_in_the_python_api():
    assert [g for op in OPERATIONS if op.name != "health" for g in python_gaps(op)] == []


# -- CLI ---------------------------------------------------------------------------------------------------


def cli_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def cli_gaps(op: Operation, parsers: dict[str, argparse.ArgumentParser]) -> list[str]:
    if op.cli is None:
        return []
    parser = parsers.get(op.cli)
    if parser is None:
        return [f"{op.name}: no CLI command {op.cli!r}"]
    names = set()
    for action in parser._actions:
        names.update(action.option_strings)
        if not action.option_strings:
            names.add(action.dest)
    flags = CONTRACT_FLAGS.get(op.cli, {})
    gaps = []
    for field in engine_fields(op):
        flag = flags.get(field, "--" + field.replace("_", "-"))
        if flag not in names:
            gaps.append(f"{op.name}: `memory-curator {op.cli}` has no {flag} for {field!r}")
    return gaps


def test_every_operation_field_has_its_cli_flag():
    parsers = cli_parsers()
    assert [g for op in OPERATIONS for g in cli_gaps(op, parsers)] == []
    stale = [(cmd, field) for cmd, fields in CONTRACT_FLAGS.items() for field in fields
             if not any(op.cli == cmd and field in op.input.model_fields for op in OPERATIONS)]
    assert stale == []  # a declared flag for a field the contract no longer has


# -- MCP ---------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    vault = tmp_path_factory.mktemp("vault")
    w = ServiceWorker(lambda: MemoryService.open(vault, embedder="none"))
    yield w
    w.close()


def mcp_tools(worker) -> dict[str, Any]:
    async def listed():
        async with Client(build_server(worker)) as c:
            return {t.name: t for t in (await c.list_tools()).tools}

    return asyncio.run(listed())


def mcp_gaps(op: Operation, tools: dict[str, Any]) -> list[str]:
    if op.mcp is None:
        return []
    tool = tools.get(op.mcp)
    if tool is None:
        return [f"{op.name}: no MCP tool {op.mcp}"]
    props = set(tool.input_schema.get("properties", {}))
    want = set(op.input.model_fields)
    gaps = [f"{op.name}: MCP {op.mcp} lacks {f!r}" for f in sorted(want - props)]
    gaps += [f"{op.name}: MCP {op.mcp} has {f!r}, not in the contract" for f in sorted(props - want)]
    required = {n for n, f in op.input.model_fields.items() if f.is_required()}
    if set(tool.input_schema.get("required", [])) != required:
        gaps.append(f"{op.name}: MCP {op.mcp} requires {tool.input_schema.get('required')}, the contract {required}")
    return gaps


def test_every_operation_is_an_mcp_tool_with_the_contract_fields(worker):
    tools = mcp_tools(worker)
    assert [g for op in OPERATIONS for g in mcp_gaps(op, tools)] == []
    assert set(tools) == {op.mcp for op in OPERATIONS if op.mcp}
    search = tools["memory_search"].input_schema["properties"]
    assert search["limit"]["maximum"] == 100 and search["min_salience"]["maximum"] == 1.0  # limits carried over


# -- HTTP --------------------------------------------------------------------------------------------------


def http_fields(op: Operation, doc: dict[str, Any]) -> set[str] | None:
    assert op.http is not None
    entry = doc["paths"].get(op.http.path, {}).get(op.http.method.lower())
    if entry is None:
        return None
    names = {p["name"] for p in entry.get("parameters", [])}
    body = entry.get("requestBody")
    if body:
        ref = body["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
        names |= set(doc["components"]["schemas"][ref].get("properties", {}))
    return names


def http_gaps(op: Operation, doc: dict[str, Any]) -> list[str]:
    if op.http is None:
        return []
    names = http_fields(op, doc)
    if names is None:
        return [f"{op.name}: no route {op.http.method} {op.http.path}"]
    want = set(op.input.model_fields)
    gaps = [f"{op.name}: HTTP lacks {f!r}" for f in sorted(want - names)]
    return gaps + [f"{op.name}: HTTP has {f!r}, not in the contract" for f in sorted(names - want)]


def test_every_operation_is_a_route_with_the_contract_fields(worker):
    doc = document("test")
    assert [g for op in OPERATIONS for g in http_gaps(op, doc)] == []
    app = build_app(worker, "t" * 43, poll=False)
    served = {(m, r.path) for r in app.routes for m in (getattr(r, "methods", None) or ())}
    for op in OPERATIONS:
        if op.http:
            assert (op.http.method, op.http.path) in served, op.name
            assert set(path_fields(op)) <= set(op.input.model_fields), op.name


def test_every_operation_has_a_call_and_every_call_an_operation():
    assert set(CALLS) | set(GRAPH_CALLS) == {op.name for op in OPERATIONS}
    assert len({op.mcp for op in OPERATIONS if op.mcp}) == len([op for op in OPERATIONS if op.mcp])


def test_choices_are_the_engines():
    def choices(model: type[BaseModel], field: str) -> set[str]:
        ann = model.model_fields[field].annotation
        return {a for arg in typing.get_args(ann) or (ann,) for a in typing.get_args(arg) or (arg,)
                if isinstance(a, str)}

    assert choices(inputs.Search, "search_mode") == set(SEARCH_MODES)
    assert choices(inputs.Search, "sort_by") == set(SORT_KEYS)
    assert choices(inputs.Search, "memory_type") == set(MEMORY_TYPES)
    assert choices(inputs.ListMemories, "order_by") == set(ORDERS)
    assert choices(inputs.StoreBatch, "mode") == set(BATCH_MODES)


# -- the checks can fail ---------------------------------------------------------------------------------


def test_a_field_missing_on_a_face_fails_the_checks(worker):
    """A field added to the contract and to no face: every face's check names it."""
    grown = create_model("GrownSearch", __base__=inputs.Search, colour=(str | None, Field(None)))
    op = Operation("search", "x", grown, OPERATIONS[0].result, python="search", renames={"search_mode": "mode"},
                   mcp="memory_search", http=Http("POST", "/v1/search"), cli="search")
    assert python_gaps(op) == ["search: MemoryService.search has no parameter 'colour'"]
    assert cli_gaps(op, cli_parsers()) == ["search: `memory-curator search` has no --colour for 'colour'"]
    assert mcp_gaps(op, mcp_tools(worker)) == ["search: MCP memory_search lacks 'colour'"]
    assert http_gaps(op, document("test")) == ["search: HTTP lacks 'colour'"]
    renamed = Operation("search", "x", inputs.Search, OPERATIONS[0].result, python="search", cli="search")
    assert python_gaps(renamed) == ["search: MemoryService.search has no parameter 'search_mode'"]


# -- one validation for every face (#18 item 10) -----------------------------------------------------------

BAD = [({"content": "a\ud800b"}, "INVALID_TEXT"), ({"content": "x", "title": "t\udfff"}, "INVALID_TEXT"),
       ({"content": "x", "keywords": ["k\ud800"]}, "INVALID_TEXT"), ({"content": "x", "category": 5}, "WRONG_TYPE"),
       ({"content": "x", "category": ["a"]}, "WRONG_TYPE"),
       ({"content": "x", "expires_at": "0001-01-01T00:00:00+14:00"}, "INVALID_DATETIME"),
       ({"content": "x", "location": "\ud800"}, "INVALID_TEXT"), ({"content": "x", "category": "Bad Cat"},
                                                                   "INVALID_CATEGORY")]


@pytest.mark.parametrize("values, code", BAD)
def test_the_python_api_refuses_what_the_servers_refuse(tmp_path, values, code):
    with MemoryService.open(tmp_path / "v", embedder="none") as svc:
        with pytest.raises(ValidationError) as err:
            svc.save(**values)
        assert err.value.code == code
        batch = svc.save_batch([values, {"content": "fine"}], mode="skip")
        assert batch.success_count == 1 and batch.errors[0]["index"] == 0
        assert svc.count() == 1
    with pytest.raises(ValidationError) as err:
        parse(inputs.Store, values)  # what HTTP and MCP check first: the same code
    assert err.value.code == code
    assert "{" not in str(err.value)  # a message template's placeholder never reaches the user ('got {value!r}')


def test_the_cli_refuses_text_that_is_not_utf8(tmp_path, capsys):
    """Bytes that are not UTF-8 in argv reach Python as lone surrogates: exit 2 with the code, nothing written."""
    from memory_curator.cli.main import main  # noqa: PLC0415

    vault = tmp_path / "v"
    for args in (["add", "a\udcffb"], ["add", "x", "-t", "\udcff"], ["add", "x", "-k", "a,\udcfe"],
                 ["add", "x", "--expires-at", "0001-01-01T00:00:00+14:00"]):
        capsys.readouterr()
        assert main(["--vault", str(vault), "--embedder", "none", *args, "--json"]) == 2, args
        assert capsys.readouterr().out.count('"code": "INVALID_') == 1, args
    assert not list(vault.rglob("*.md"))
