"""The servers' JSON errors: ``{"status": "error", "error_code": ..., "message": ..., "details": ...}``."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

from memory_curator.core.contract.errors import HTTP_STATUS


def error_response(code: str, message: str, details: Any = None) -> JSONResponse:
    body: dict[str, Any] = {"status": "error", "error_code": code, "message": message}
    if details is not None:
        body["details"] = details
    headers = {"WWW-Authenticate": "Bearer"} if code == "UNAUTHORIZED" else None
    return JSONResponse(body, status_code=HTTP_STATUS.get(code, 500), headers=headers)
