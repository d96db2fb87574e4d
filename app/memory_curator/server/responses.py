"""The servers' JSON errors: ``{"status": "error", "error_code": ..., "message": ..., "details": ...}``."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

_STATUS = {"VALIDATION_ERROR": 400, "NOT_FOUND": 404, "FORBIDDEN": 403, "UNAUTHORIZED": 401, "INDEX_BUSY": 503}


def error_response(code: str, message: str, details: Any = None) -> JSONResponse:
    body: dict[str, Any] = {"status": "error", "error_code": code, "message": message}
    if details is not None:
        body["details"] = details
    headers = {"WWW-Authenticate": "Bearer"} if code == "UNAUTHORIZED" else None
    return JSONResponse(body, status_code=_STATUS.get(code, 500), headers=headers)
