"""The OpenAPI 3.1 description of the HTTP API, built from the contract's operations and models."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from pydantic import BaseModel

from memory_curator.core.contract.errors import ERROR_CODES, HTTP_STATUS
from memory_curator.core.contract.operations import OPERATIONS, Operation
from memory_curator.server.requests import QUERY_METHODS

_REF = "#/components/schemas/{model}"
_STATUS_TEXT = {400: "Invalid request: error_code VALIDATION_ERROR, a finer code per field in details",
                401: "Missing or wrong bearer token", 403: "The memory belongs to another user_id",
                404: "No memory with this id",
                409: "The memory's file is in a sync conflict (SYNC_CONFLICT): resolve it first", 413: "The body is larger than 1 MiB",
                421: "The Host header is not a loopback name", 500: "Storage, embedding or internal error",
                503: "Another program holds the index; try again"}


def _json(ref: str) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": {"$ref": _REF.format(model=ref)}}}}


def path_fields(op: Operation) -> list[str]:
    return re.findall(r"{(\w+)}", op.http.path) if op.http else []


def _schema(model: type[BaseModel], schemas: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    schema = model.model_json_schema(ref_template=_REF)
    schemas.update(schema.pop("$defs", {}))
    schemas[name or model.__name__] = schema
    return schema


def _errors(op: Operation) -> dict[str, Any]:
    statuses = sorted({HTTP_STATUS[c] for c in (*op.errors, "UNAUTHORIZED", "PAYLOAD_TOO_LARGE", "INVALID_HOST")})
    return {str(s): {"description": _STATUS_TEXT[s], **_json("Error")} for s in statuses}


def _operation(op: Operation, schemas: dict[str, Any]) -> dict[str, Any]:
    assert op.http is not None
    in_path = path_fields(op)
    out: dict[str, Any] = {"operationId": op.name, "summary": op.summary,
                           "responses": {str(op.http.status): {"description": op.result.__doc__ or op.name,
                                                               **_json(op.result.__name__)}, **_errors(op)}}
    _schema(op.result, schemas)
    schema = op.input.model_json_schema(ref_template=_REF)
    schemas.update(schema.pop("$defs", {}))
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    params = [{"name": f, "in": "path", "required": True, "schema": props[f]} for f in in_path]
    rest = {k: v for k, v in props.items() if k not in in_path}
    if op.http.method in QUERY_METHODS:
        params += [{"name": k, "in": "query", "required": k in required, "schema": v} for k, v in rest.items()]
    elif rest:
        body = {**schema, "properties": rest, "required": sorted(required - set(in_path))}
        if not body["required"]:
            body.pop("required")
        name = f"{op.input.__name__}Request"
        schemas[name] = body
        out["requestBody"] = {"required": bool(required - set(in_path)), **_json(name)}
    if params:
        out["parameters"] = params
    return out


@cache
def document(version: str) -> dict[str, Any]:
    schemas: dict[str, Any] = {
        "Error": {
            "type": "object",
            "required": ["status", "error_code", "message"],
            "properties": {"status": {"const": "error"}, "error_code": {"enum": list(ERROR_CODES)},
                           "message": {"type": "string"}, "details": {"type": "array"}},
        },
    }
    paths: dict[str, Any] = {"/openapi.json": {"get": {"summary": "This document", "security": [],
                                                       "responses": {"200": {"description": "OpenAPI document"}}}}}
    for op in OPERATIONS:
        if op.http is not None:
            paths.setdefault(op.http.path, {})[op.http.method.lower()] = _operation(op, schemas)
    return {
        "openapi": "3.1.0",
        "info": {"title": "Memory Curator local API", "version": version,
                 "description": "Store, search, get and delete memories in a local vault. Loopback only."},
        "components": {"schemas": schemas, "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "security": [{"bearer": []}],
        "paths": paths,
    }
