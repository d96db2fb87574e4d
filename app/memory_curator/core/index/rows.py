"""A memory as the index stores it, made from a file: what a rebuild's helper processes prepare (core/bulk_read.py).

No SQL and nothing of SQLite here: a helper imports this module, not the store (numpy and sqlite-vec came with it,
a quarter of a second of each helper's start).
"""

from __future__ import annotations

import json
import operator
from datetime import datetime
from typing import Any, NamedTuple

from memory_curator.core.graph import extract
from memory_curator.core.model import MemoryItem
from memory_curator.core.text.tokens import EMBEDDED_CHARS, fts_row, unreadable
from memory_curator.core.vault.codec import format_dt

_OPTIONAL = (
    "summary", "expires_at", "raw_expires_at", "scope", "actors", "pinned", "salience_floor", "superseded_by", "supersedes",
    "consolidated_from", "provenance", "importance_override", "typed", "extra",
)  # fmt: skip
_optional_values = operator.attrgetter(*_OPTIONAL)

# What json.dumps(value, ensure_ascii=False[, default=str]) writes, without a new encoder for every call.
_JSON = json.JSONEncoder(ensure_ascii=False).encode
_META_JSON = json.JSONEncoder(ensure_ascii=False, default=str).encode


_UNSET = _optional_values(MemoryItem(id="", content="", title="", category="", created_at=None, updated_at=None))  # type: ignore[arg-type]


def _meta_json(item: MemoryItem) -> str:
    values = _optional_values(item)
    if values == _UNSET:  # the usual file: one comparison instead of 14 (each of them skipped by the loop below)
        return "{}"
    meta: dict[str, Any] = {}
    for key, value in zip(_OPTIONAL, values, strict=True):  # one C call, not 14 getattr
        if value is None or value in ((), {}, False):
            continue
        meta[key] = format_dt(value) if isinstance(value, datetime) else value
    return _META_JSON(meta)


def _promoted(item: MemoryItem) -> tuple[Any, ...]:
    """The hot filter fields, duplicated from meta_json into indexed columns (migration 2)."""
    return (item.superseded_by, format_dt(item.expires_at), item.scope, ",".join(item.memory_types) or None,
            1 if item.pinned else 0)


class MemoryRow(NamedTuple):
    """A memory as the index stores it: made from a file (possibly in a helper process), then written."""

    id: str
    values: tuple  # the columns of store._MEMORY_COLUMNS but id, in that order
    fts: tuple[str, str, str, str]  # title, content, keywords, stems as the full-text index reads them
    mentions: tuple = ()  # (key, name, source) of the entities it mentions (core/graph/extract.py)
    edges: tuple = ()  # (target, kind) of its links
    names: tuple = (None, None, None)  # its link names: folded title, file name, slug (extract.link_names)


ROW_CATEGORY, ROW_UPDATED_AT = 1, 5  # positions in MemoryRow.values


def memory_row(item: MemoryItem, rel: str, mtime_ns: int, size: int) -> MemoryRow:
    values = (
        item.title, item.category, rel, float(item.salience), format_dt(item.created_at),
        format_dt(item.updated_at), item.session_id, item.source,
        _JSON(list(item.keywords)), item.content, _meta_json(item),
        mtime_ns, size, *_promoted(item), unreadable(item.embedded_source[:EMBEDDED_CHARS]),
    )  # fmt: skip
    fts = fts_row(item.title, item.content, " ".join(item.keywords))
    return MemoryRow(item.id, values, fts, tuple(extract.mentions(item)), tuple(extract.edges(item)),
                     extract.link_names(item.title, rel))
