"""The list operation's ``cursor``: where the next page starts, an opaque string a client sends back as it came.

Inside (URL-safe base64 of JSON, version 1): the ``order_by`` it was made for and either the last listed row's
position, its sort key and row number (the orders with an index: the next page is a seek from there, so a page deep
in 1,000,000 memories costs what the first does, and memories saved or deleted meanwhile, the last listed one
too, skip or repeat nothing) or, for the orders that page by offset (session, access_count), the next offset. A
rebuild of the index numbers rows anew: a cursor from before it may then repeat or skip rows of equal keys. A cursor that does not decode, or was made
for another ``order_by``, is refused as INVALID_CURSOR (a VALIDATION_ERROR: HTTP 400).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from dataclasses import dataclass
from typing import get_args

from pydantic_core import PydanticCustomError

from memory_curator.core.contract.types import OrderBy

INVALID_CURSOR = "INVALID_CURSOR"
MAX_CURSOR = 2000  # characters: a key is at most a title (500) or a date, plus an id
MAX_OFFSET = 10_000_000
_ORDERS = frozenset(get_args(OrderBy))
_NUMERIC_KEYS = frozenset({"salience"})  # the orders whose sort key is a number (the others' are text)


@dataclass(frozen=True)
class Cursor:
    order_by: str
    key: str | float | None = None  # the last listed row's sort key, with its row number
    row: int | None = None
    offset: int = 0  # where the next page starts, for the orders without a key

    @property
    def after(self) -> tuple[str | float, int] | None:
        """(sort key, row number) the next page follows, for ``list_memories(after=...)``."""
        return None if self.row is None or self.key is None else (self.key, self.row)


def encode(cursor: Cursor) -> str:
    body: dict = {"v": 1, "o": cursor.order_by}
    if cursor.row is not None:
        body |= {"k": cursor.key, "r": cursor.row}
    else:
        body["n"] = cursor.offset
    raw = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _refuse(why: str) -> PydanticCustomError:
    return PydanticCustomError(INVALID_CURSOR, f"is not a cursor of this list ({why}): send a page's next_cursor "
                                               "back as it came, or leave it out to start from the first page")


def decode(text: str) -> Cursor:
    """The cursor ``encode`` made, or PydanticCustomError INVALID_CURSOR."""
    try:
        raw = base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
        body = json.loads(raw.decode("utf-8"))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise _refuse("it does not decode") from None
    # "o" is looked up in a set: a list or an object there (any JSON) must be refused, not raise TypeError (a 500)
    if not isinstance(body, dict) or body.get("v") != 1 or not isinstance(body.get("o"), str) \
            or body["o"] not in _ORDERS:
        raise _refuse("unknown form")
    order = body["o"]
    if set(body) == {"v", "o", "k", "r"}:
        key, row = body["k"], body["r"]
        numeric = isinstance(key, int | float) and not isinstance(key, bool) and math.isfinite(key)
        if (numeric if order in _NUMERIC_KEYS else isinstance(key, str)) and _whole(row, 1, 2**63 - 1):
            return Cursor(order, float(key) if numeric else key, row)
    elif set(body) == {"v", "o", "n"}:
        if _whole(body["n"], 0, MAX_OFFSET):
            return Cursor(order, offset=body["n"])
    raise _refuse("unknown form")


def _whole(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
