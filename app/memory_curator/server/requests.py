"""A request as an operation's input: path parameters, then the query string (GET, DELETE) or the JSON body.

Every refusal is the engine's ValidationError with a code, answered as a 400: a body that is not JSON
(``INVALID_JSON``), nested deeper than Python's parser goes (``TOO_DEEP``), or not the operation's fields.
"""

from __future__ import annotations

import json
import typing
from typing import Any

from pydantic import BaseModel
from starlette.requests import Request

from memory_curator.core.contract.errors import parse
from memory_curator.core.contract.operations import Operation
from memory_curator.core.errors import ValidationError

QUERY_METHODS = ("GET", "DELETE")


def _is_list(annotation: Any) -> bool:
    if typing.get_origin(annotation) is list:
        return True
    return any(_is_list(a) for a in typing.get_args(annotation))


def query_values(model: type[BaseModel], request: Request, skip: set[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    params = request.query_params
    for key in params:
        if key in skip:
            continue
        field = model.model_fields.get(key)
        out[key] = params.getlist(key) if field is not None and _is_list(field.annotation) else params[key]
    return out


def _refused(code: str, message: str) -> ValidationError:
    return ValidationError(message, field="request", code=code,
                           details=[{"field": "request", "code": code, "message": message}])


def body_values(raw: bytes) -> Any:
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except RecursionError:
        raise _refused("TOO_DEEP", "The JSON body is nested too deeply: send the operation's flat fields.") from None
    except ValueError:
        raise _refused("INVALID_JSON", "The request body is not valid JSON (UTF-8).") from None


async def operation_input(op: Operation, request: Request) -> BaseModel:
    path = dict(request.path_params)
    if request.method in QUERY_METHODS:
        data: Any = query_values(op.input, request, set(path))
    else:
        data = body_values(await request.body())
        if isinstance(data, dict):
            clash = sorted(set(data) & set(path))
            if clash:
                raise _refused("UNKNOWN_FIELD", f"{', '.join(clash)} is given in the path; leave it out of the body.")
    if isinstance(data, dict):
        data = {**data, **path}
    try:
        return parse(op.input, data)
    except RecursionError:  # a list or mapping nested hundreds deep: pydantic's own guard
        raise _refused("TOO_DEEP", "The request is nested too deeply: send the operation's flat fields.") from None
