"""Text every face accepts: Python strings that can be written as UTF-8.

A JSON body or a Python caller can hold a lone surrogate (``"\\ud800"``), which no file can store; it is refused
at the door with ``INVALID_TEXT`` rather than failing half-way through a write. The engine (core/validation.py)
and the contract's models call the same check.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory_curator.core.errors import ValidationError

INVALID_TEXT = "INVALID_TEXT"


def surrogate_at(value: str) -> int | None:
    """Where ``value`` holds a lone surrogate (None when it is valid Unicode text)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def problem(value: str) -> str | None:
    at = surrogate_at(value)
    if at is None:
        return None
    return (f"holds a lone surrogate (U+{ord(value[at]):04X} at character {at}), which is not text: send valid "
            "UTF-8")


def refuse_bad_text(value: Any, field: str) -> None:
    """Raise the engine's ValidationError when a string anywhere in ``value`` (lists, mappings, keys) is not
    text that can be stored."""
    if isinstance(value, str):
        why = problem(value)
        if why:
            raise ValidationError(f"{field} {why}.", field=field, code=INVALID_TEXT)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            refuse_bad_text(key, field)
            refuse_bad_text(item, f"{field}.{key}" if isinstance(key, str) and not problem(key) else field)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            refuse_bad_text(item, field)
