"""The MCP tools, one per contract operation that names a tool, with schemas derived from its input model.

Each tool's parameters are the model's fields (names, types, defaults, limits and descriptions); the call is
the operation's call (serving/calls.py) on the engine thread. Arguments are checked against the contract first
(ContractServer.call_tool), so an unknown or bad argument is an error starting with its code that says what to
change, never the SDK's pydantic text. A bug becomes an INTERNAL_ERROR tool error, logged here with its
traceback, and never stops the server.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, TypeAdapter, WithJsonSchema

from memory_curator.core.contract.errors import parse
from memory_curator.core.contract.operations import OPERATIONS, Operation
from memory_curator.core.errors import CuratorError, ValidationError
from memory_curator.serving import calls
from memory_curator.serving.worker import ServiceWorker

log = logging.getLogger(__name__)


def error_text(exc: CuratorError) -> str:
    """A tool error: its code first, then what to change (and each field's finer code for a bad argument)."""
    code = getattr(exc, "code", "INTERNAL_ERROR")
    if isinstance(exc, ValidationError):
        fields = exc.details or [{"field": exc.field or "request", "code": exc.code}]
        finer = ", ".join(f"{d['field']}: {d['code']}" for d in fields)
        return f"VALIDATION_ERROR: {exc} [{finer}]"
    return f"{code}: {exc}"


def signature(op: Operation) -> inspect.Signature:
    """The tool function's parameters: the input model's fields, so the SDK publishes the model's schema."""
    params = []
    lenient = getattr(op.input, "CHECKED_ITEM_BY_ITEM", ())
    for name, field in op.input.model_fields.items():
        annotation = Annotated[(field.annotation, *field.metadata, Field(description=field.description))]
        if name in lenient:  # the contract checks each item (skip mode reports one by index): the SDK must not
            # refuse the call for one bad item, so it checks only that this is a list; the schema stays the model's
            schema = _inlined(TypeAdapter(annotation).json_schema())
            annotation = Annotated[list[dict[str, Any]], WithJsonSchema(schema), Field(description=field.description)]
        default = inspect.Parameter.empty if field.is_required() else field.get_default(call_default_factory=True)
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
    return inspect.Signature(params, return_annotation=dict[str, Any])


def _inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema with its ``$defs`` put in place of their ``$ref`` (it becomes one property's schema, where
    a reference to the document's root would not resolve)."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            if ref.startswith("#/$defs/"):
                return walk(defs[ref.removeprefix("#/$defs/")])
            return {k: walk(v) for k, v in node.items()}
        return [walk(v) for v in node] if isinstance(node, list) else node

    return walk(schema)


def tool_function(op: Operation, worker: ServiceWorker, client: str,
                  require_user: bool = False) -> Callable[..., Awaitable[dict[str, Any]]]:
    async def call(**arguments: Any) -> dict[str, Any]:
        try:
            inp = parse(op.input, arguments)
            caller = calls.Caller(client, getattr(inp, "user_id", None), require_user)
            return await worker.call(calls.run, op.name, inp, caller)
        except CuratorError as exc:
            raise ToolError(error_text(exc)) from exc
        except Exception as exc:  # a bug of ours: log it, answer with an error, keep serving
            log.exception("memory tool %s failed", op.mcp)
            raise ToolError(f"INTERNAL_ERROR: {type(exc).__name__}: the server log has the details.") from exc

    call.__name__ = op.mcp or op.name
    call.__signature__ = signature(op)  # type: ignore[attr-defined]
    return call


def register(mcp: MCPServer, worker: ServiceWorker, client: str = "mcp", require_user: bool = False) -> None:
    """Add the memory tools to ``mcp``; ``client`` is recorded as the provenance of stored memories;
    ``require_user``: every tool but memory_health needs a ``user_id``."""
    for op in OPERATIONS:
        if op.mcp:
            mcp.add_tool(tool_function(op, worker, client, require_user), name=op.mcp, description=op.summary)
