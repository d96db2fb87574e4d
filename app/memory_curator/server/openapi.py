"""The OpenAPI 3.1 description of the HTTP API, built from the same pydantic models that validate requests."""

from __future__ import annotations

from functools import cache
from typing import Any

from memory_curator.server.schemas import SearchRequest, StoreRequest

_REF = "#/components/schemas/{model}"
ERROR_CODES = ["VALIDATION_ERROR", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "EMBEDDING_ERROR", "STORAGE_ERROR",
               "INDEX_ERROR", "INDEX_BUSY", "INTERNAL_ERROR"]


def _json(ref: str) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}}}


def _errors(*statuses: int) -> dict[str, Any]:
    text = {400: "Invalid request (VALIDATION_ERROR)", 401: "Missing or wrong bearer token",
            403: "The memory belongs to another user_id", 404: "No memory with this id",
            500: "Storage, embedding or internal error"}
    return {str(s): {"description": text[s], **_json("Error")} for s in (401, *statuses, 500)}


def _ok(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {"type": "object"}}}}


MEMORY_ID = {"name": "memory_id", "in": "path", "required": True, "schema": {"type": "string"}}


@cache
def document(version: str) -> dict[str, Any]:
    schemas: dict[str, Any] = {
        "Error": {
            "type": "object",
            "required": ["status", "error_code", "message"],
            "properties": {"status": {"const": "error"}, "error_code": {"enum": ERROR_CODES},
                           "message": {"type": "string"}, "details": {"type": "array"}},
        },
    }
    for model in (StoreRequest, SearchRequest):
        schema = model.model_json_schema(ref_template=_REF)
        schemas.update(schema.pop("$defs", {}))
        schemas[model.__name__] = schema
    return {
        "openapi": "3.1.0",
        "info": {"title": "Memory Curator local API", "version": version,
                 "description": "Store, search, get and delete memories in a local vault. Loopback only."},
        "components": {"schemas": schemas,
                       "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "security": [{"bearer": []}],
        "paths": {
            "/health": {"get": {"summary": "Status, embedder reachability, index statistics",
                                "responses": {"200": _ok("Health"), **_errors()}}},
            "/v1/memories": {"post": {"summary": "Store a memory (lands in the review inbox)",
                                      "requestBody": {"required": True, **_json("StoreRequest")},
                                      "responses": {"201": _ok("Stored: memory_id and memory"), **_errors(400)}}},
            "/v1/memories/{memory_id}": {
                "get": {"summary": "Get a memory", "parameters": [MEMORY_ID],
                        "responses": {"200": _ok("The memory"), **_errors(404)}},
                "delete": {"summary": "Delete a memory (to the vault's trash); idempotent",
                           "parameters": [MEMORY_ID, {"name": "user_id", "in": "query", "schema": {"type": "string"}}],
                           "responses": {"200": _ok("deleted: true, or false when already deleted"),
                                         **_errors(403, 404)}},
            },
            "/v1/search": {"post": {"summary": "Search (keyword, semantic or hybrid, with filters)",
                                    "requestBody": {"required": True, **_json("SearchRequest")},
                                    "responses": {"200": _ok("results and warnings"), **_errors(400)}}},
            "/v1/memories/clear-expired": {"post": {"summary": "Move memories past their expires_at to the trash",
                                                    "responses": {"200": _ok("cleared: how many"), **_errors()}}},
            "/openapi.json": {"get": {"summary": "This document", "security": [],
                                      "responses": {"200": _ok("OpenAPI document")}}},
        },
    }
