"""Validation of a memory's optional fields as the API receives them: typed fields (seed 004), scope,
actors, expiry, pinning, links. Each refusal is a ValidationError with a code an API client can act on:

    UNKNOWN_FIELD, WRONG_TYPE, OUT_OF_RANGE, INVALID_DATETIME, INVALID_SCOPE, TOO_LONG

Files written by other programs are not refused when read (see codec); only what the API writes is checked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from memory_curator.core.errors import ValidationError
from memory_curator.core.model import TYPED_FIELDS, utcnow
from memory_curator.core.vault.codec import format_dt, parse_datetime

TYPED_KEYS = tuple(k for keys in TYPED_FIELDS.values() for k in keys)
LINK_FIELDS = ("superseded_by", "supersedes", "consolidated_from")
ITEM_FIELDS = (
    "summary", "expires_at", "raw_expires_at", "scope", "actors", "pinned", "salience_floor", *LINK_FIELDS, "provenance",
    "importance_override", "extra",
)  # fmt: skip
TTL_FIELDS = ("ttl", "raw_ttl")  # arguments that set an expiry from now, not fields of their own
_SCOPE = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
MAX_TEXT = 500
MAX_LIST = 100


def _text(value: Any, key: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(f"{key} must be text.", field=key, code="WRONG_TYPE")
    value = " ".join(value.split())
    if len(value) > MAX_TEXT:
        raise ValidationError(f"{key} is longer than {MAX_TEXT} characters.", field=key, code="TOO_LONG")
    return value or None


def _texts(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, (list, tuple)):
        raise ValidationError(f"{key} must be a list of text.", field=key, code="WRONG_TYPE")
    if len(value) > MAX_LIST:
        raise ValidationError(f"{key} holds more than {MAX_LIST} entries.", field=key, code="TOO_LONG")
    out = [_text(v, key) for v in value]
    return tuple(dict.fromkeys(v for v in out if v))


def _number(value: Any, key: str, low: float, high: float) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValidationError(f"{key} must be a number between {low:g} and {high:g}.", field=key, code="WRONG_TYPE")
    try:
        v = float(value)
    except ValueError:
        raise ValidationError(f"{key} must be a number between {low:g} and {high:g}.", field=key,
                              code="WRONG_TYPE") from None
    if not low <= v <= high:  # also refuses NaN
        raise ValidationError(f"{key} must be between {low:g} and {high:g} (got {value}).", field=key,
                              code="OUT_OF_RANGE")
    return v


def _datetime(value: Any, key: str) -> datetime | None:
    try:
        return parse_datetime(value, key)
    except ValueError:
        raise ValidationError(f"{key} must be a date and time like 2025-06-15T09:00:00Z (got {value!r}).",
                              field=key, code="INVALID_DATETIME") from None


def typed_values(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Validated typed fields; a value of None means "remove this field" (on update)."""
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if value is None:
            out[key] = None
        elif key == "event_timestamp":
            out[key] = format_dt(_datetime(value, key))
        elif key == "participants":
            out[key] = list(_texts(value, key)) or None
        elif key == "valence":
            out[key] = _number(value, key, -1.0, 1.0)
        elif key == "arousal":
            out[key] = _number(value, key, 0.0, 1.0)
        else:
            out[key] = _text(value, key)
    return out


def scope_value(value: Any) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not _SCOPE.match(value):
        raise ValidationError(
            f"scope must be a short lower-case name such as global, project or session (got {value!r}).",
            field="scope", code="INVALID_SCOPE")
    return value


def split(fields: Mapping[str, Any], now: datetime | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(MemoryItem keyword arguments, typed field changes) from the optional fields a caller passed.

    ``ttl`` (seconds or a timedelta) is a convenience for ``expires_at = now + ttl``; ``raw_ttl`` (seed 003)
    for ``raw_expires_at``, the raw text's own time to live while the summary stays, or, for a memory without a
    summary, for ``expires_at``: it expires whole."""
    item: dict[str, Any] = {}
    typed: dict[str, Any] = {}
    raw_ttl = fields.get("raw_ttl")
    for key, value in fields.items():
        if key in TYPED_KEYS:
            typed[key] = value
        elif key == "typed":  # the nested form, as exported
            if value is not None and not isinstance(value, Mapping):
                raise ValidationError("typed must be a mapping of typed fields.", field=key, code="WRONG_TYPE")
            for k, v in (value or {}).items():
                if k not in TYPED_KEYS:
                    raise ValidationError(f"Unknown typed field {k!r}: use {', '.join(TYPED_KEYS)}.", field=k,
                                          code="UNKNOWN_FIELD")
                typed[k] = v
        elif key == "ttl":
            if value is not None:
                item["expires_at"] = _after(value, key, now)
        elif key == "raw_ttl":
            continue  # below, once the summary is known
        elif key not in ITEM_FIELDS:
            raise ValidationError(f"Unknown field {key!r}: see the vault format in README.md.", field=key,
                                  code="UNKNOWN_FIELD")
        elif key in ("expires_at", "raw_expires_at"):
            item[key] = _datetime(value, key)
        elif key == "scope":
            item[key] = scope_value(value)
        elif key in ("actors", *LINK_FIELDS[1:]):
            item[key] = _texts(value, key)
        elif key == "superseded_by":
            item[key] = _text(value, key)
        elif key == "summary":
            item[key] = value.strip() or None if isinstance(value, str) else _text(value, key)
        elif key == "pinned":
            if not isinstance(value, bool):
                raise ValidationError("pinned must be true or false.", field=key, code="WRONG_TYPE")
            item[key] = value
        elif key in ("salience_floor", "importance_override"):
            item[key] = _number(value, key, 0.0, 1.0)
        elif key in ("provenance", "extra"):
            if value is not None and not isinstance(value, Mapping):
                raise ValidationError(f"{key} must be a mapping.", field=key, code="WRONG_TYPE")
            item[key] = dict(value) if value else ({} if key == "extra" else None)
    if raw_ttl is not None:
        at = _after(raw_ttl, "raw_ttl", now)
        if item.get("summary"):
            item["raw_expires_at"] = at
        else:  # nothing would stay searchable: the memory expires whole, at the earlier of the two times
            item["expires_at"] = min(at, item.get("expires_at") or at)
    return item, typed_values(typed)


def _after(ttl: Any, key: str, now: datetime | None) -> datetime:
    """``now`` + a time to live given in seconds or as a timedelta."""
    seconds = ttl.total_seconds() if isinstance(ttl, timedelta) else _number(ttl, key, 1, 1e10)
    if not 1 <= seconds <= 1e10:  # type: ignore[operator]
        raise ValidationError(f"{key} must be between 1 and 1e10 seconds.", field=key, code="OUT_OF_RANGE")
    return (now or utcnow()) + timedelta(seconds=seconds)  # type: ignore[arg-type]


def merged_typed(current: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(current)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out
