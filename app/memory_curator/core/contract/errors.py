"""Error codes, their HTTP statuses, and a request that does not fit an operation's model turned into the
engine's ValidationError: a code per field and a message that says what to change (never pydantic's own text).
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic import ValidationError as PydanticError

from memory_curator.core.errors import ValidationError

M = TypeVar("M", bound=BaseModel)

# The answer's ``error_code`` -> HTTP status. A finer validation code (below) comes in ``details``.
HTTP_STATUS: dict[str, int] = {
    "VALIDATION_ERROR": 400, "UNAUTHORIZED": 401, "FORBIDDEN": 403, "NOT_FOUND": 404, "PAYLOAD_TOO_LARGE": 413,
    "INVALID_HOST": 421, "SYNC_CONFLICT": 409,  # the memory's file is in a sync conflict: resolve it first
    "EMBEDDING_ERROR": 500, "STORAGE_ERROR": 500, "INDEX_ERROR": 500, "INTERNAL_ERROR": 500, "INDEX_BUSY": 503,
}
ERROR_CODES = tuple(HTTP_STATUS)
# Finer codes of a VALIDATION_ERROR, per field: what the engine and the contract refuse.
VALIDATION_CODES = ("MISSING_FIELD", "UNKNOWN_FIELD", "WRONG_TYPE", "TOO_LONG", "TOO_SHORT", "OUT_OF_RANGE",
                    "INVALID_CHOICE", "INVALID_VALUE", "INVALID_DATETIME", "INVALID_TEXT", "INVALID_SCOPE",
                    "INVALID_CATEGORY", "INVALID_CURSOR",
                    "INVALID_JSON", "TOO_DEEP", "VALIDATION_ERROR")

_BY_TYPE = {
    "missing": "MISSING_FIELD", "extra_forbidden": "UNKNOWN_FIELD",
    "string_too_long": "TOO_LONG", "too_long": "TOO_LONG", "string_too_short": "TOO_SHORT", "too_short": "TOO_SHORT",
    "greater_than": "OUT_OF_RANGE", "greater_than_equal": "OUT_OF_RANGE", "less_than": "OUT_OF_RANGE",
    "less_than_equal": "OUT_OF_RANGE", "finite_number": "OUT_OF_RANGE",
    "literal_error": "INVALID_CHOICE", "enum": "INVALID_CHOICE", "string_pattern_mismatch": "INVALID_VALUE",
}


def _code(kind: str) -> str:
    if kind.isupper():  # our own PydanticCustomError codes (INVALID_TEXT, MISSING_FIELD)
        return kind
    if kind in _BY_TYPE:
        return _BY_TYPE[kind]
    if kind.startswith(("datetime", "date", "time", "timezone")):
        return "INVALID_DATETIME"
    return "WRONG_TYPE" if kind.endswith(("_type", "_parsing")) or kind.startswith("union") else "INVALID_VALUE"


def _what_to_change(err: dict[str, Any], code: str, model: type[BaseModel]) -> str:
    ctx = err.get("ctx") or {}
    if code == "MISSING_FIELD":
        return err["msg"] if err["type"] == "MISSING_FIELD" else "is required"
    if code == "UNKNOWN_FIELD":
        return f"is not a field here; the fields are: {', '.join(model.model_fields)}"
    if code == "TOO_LONG":
        n = ctx.get("max_length")
        return f"is too long: at most {n} {'characters' if err['type'].startswith('string') else 'items'}"
    if code == "TOO_SHORT":
        n = ctx.get("min_length")
        return "must not be empty" if n == 1 else f"is too short: at least {n}"
    if code == "OUT_OF_RANGE":
        words = {"ge": "at least", "gt": "greater than", "le": "at most", "lt": "less than"}
        bounds = [f"{words[k]} {v}" for k, v in ctx.items() if k in words] or ["a finite number"]
        return f"must be {' and '.join(bounds)} (got {err.get('input')!r})"
    if code == "INVALID_CHOICE":
        return f"must be one of {ctx.get('expected', '')} (got {err.get('input')!r})"
    if code == "INVALID_VALUE" and "pattern" in ctx:
        return f"must be a short lower-case name (letters, digits, '-' or '_'), got {err.get('input')!r}"
    if code == "INVALID_DATETIME":
        return f"must be a date and time like 2025-06-15T09:00:00Z (got {err.get('input')!r})"
    if code == "WRONG_TYPE":
        return f"has the wrong type: {err['msg'][0].lower()}{err['msg'][1:]} (got {type(err.get('input')).__name__})"
    return err["msg"]


def details_of(exc: PydanticError, model: type[BaseModel], prefix: tuple[Any, ...] = ()) -> list[dict[str, str]]:
    out = []
    for err in exc.errors(include_url=False):
        # Drop pydantic's union and function tags from the location: "scope.list[...].0" -> "scope.0".
        loc = [str(p) for p in (*prefix, *err["loc"]) if not (isinstance(p, str) and ("[" in p or p in (
            "function-after", "constrained-str", "str", "list", "float", "int")))]
        code = _code(err["type"])
        out.append({"field": ".".join(loc) or "request", "code": code,
                    "message": _what_to_change(err, code, model)})
    unique = {(d["field"], d["code"]): d for d in out}  # a union reports one problem once per member
    return list(unique.values())


def _shown(field: str) -> str:
    """A field name as the message shows it: quoted when a client sent a name of spaces or symbols, so the
    message still starts with its code followed by a word ("VALIDATION_ERROR: ' ' is not a field here")."""
    return field if re.fullmatch(r"[\w.]+", field) else repr(field)


def invalid(exc: PydanticError, model: type[BaseModel], prefix: tuple[Any, ...] = ()) -> ValidationError:
    """The engine's ValidationError for a request that does not fit ``model``: ``code`` is the first field's
    finer code, ``details`` lists every field's."""
    details = details_of(exc, model, prefix)
    message = "; ".join(f"{_shown(d['field'])} {d['message']}" for d in details[:5])
    if len(details) > 5:
        message += f"; and {len(details) - 5} more"
    first = details[0] if details else {"field": None, "code": "VALIDATION_ERROR"}
    return ValidationError(message + ".", field=first["field"], code=first["code"],
                           details=details)


def parse(model: type[M], data: Any) -> M:
    """``data`` (decoded JSON, or a tool's arguments) as ``model``, or the engine's ValidationError."""
    if not isinstance(data, dict):
        raise ValidationError("The request must be a JSON object with the operation's fields.", field="request",
                              code="WRONG_TYPE", details=[{"field": "request", "code": "WRONG_TYPE",
                                                           "message": "must be a JSON object"}])
    try:
        return model.model_validate(data)
    except PydanticError as exc:
        raise invalid(exc, model) from None
