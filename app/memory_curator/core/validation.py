"""A caller's values for a memory, checked and normalized before anything is written."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from memory_curator.core.config import MemoryConfig
from memory_curator.core.contract.text import refuse_bad_text
from memory_curator.core.errors import ValidationError
from memory_curator.core.lifecycle import fields as item_fields
from memory_curator.core.model import SOURCES, MemoryItem, utcnow
from memory_curator.core.vault.codec import (
    check_salience,
    new_id,
    normalize_content,
    parse_datetime,
    title_from,
)
from memory_curator.core.vault.slug import validate_category

BATCH_MODES = ("rollback", "skip")


def validated(config: MemoryConfig, content: str, category: str, title: str | None, keywords: Iterable[str] | None,
              session_id: str | None, source: str, salience: float) -> dict[str, Any]:
    """The core fields as MemoryItem keyword arguments."""
    for name, value in (("content", content), ("title", title), ("keywords", keywords), ("session_id", session_id)):
        refuse_bad_text(value, name)
    if not isinstance(content, str) or not content.strip():
        raise ValidationError("Content is empty: a memory needs some text.", field="content")
    if len(content.encode("utf-8")) > config.max_content_bytes:
        raise ValidationError(
            f"Content is larger than {config.max_content_bytes // (1024 * 1024)} MiB; split it or import "
            "it as a document.",
            field="content",
        )
    if "\x00" in content:
        raise ValidationError("Content holds NUL characters: it looks like binary data, not text.", field="content")
    if source not in SOURCES:
        raise ValidationError(f"source must be one of {', '.join(SOURCES)}.", field="source")
    if keywords is None:
        kws: tuple[str, ...] = ()
    elif isinstance(keywords, str):
        raise ValidationError("keywords must be a list of strings.", field="keywords")
    else:
        kws = tuple(dict.fromkeys(str(k).strip() for k in keywords if str(k).strip()))
    body = normalize_content(content)
    clean_title = " ".join((title or "").split())[:200] or title_from(body, "Untitled")
    return {
        "content": body,
        "category": validate_category(category),
        "title": clean_title,
        "keywords": kws,
        "session_id": (str(session_id).strip() or None) if session_id is not None else None,
        "source": source,
        "salience": check_salience(salience),
    }


def known_fields(fields: Mapping[str, Any], typed_base: Mapping[str, Any] | None = None, *,
                 now: datetime | None = None) -> dict[str, Any]:
    """MemoryItem keyword arguments from a caller's optional fields, validated (lifecycle.fields); typed
    fields are merged into ``typed_base`` (an update changes only the typed fields it names)."""
    for key, value in fields.items():
        refuse_bad_text(key, "field name")
        refuse_bad_text(value, str(key))
    item, typed = item_fields.split(fields, now)
    if typed:
        item["typed"] = item_fields.merged_typed(typed_base or {}, typed)
    return item


def as_datetime(value: Any, key: str = "created_at") -> datetime:
    try:
        dt = parse_datetime(value, key)
    except ValueError as exc:
        raise ValidationError(str(exc), field=key) from None
    assert dt is not None
    return dt


def new_item(config: MemoryConfig, content: str, category: str = "context", title: str | None = None,
             keywords: Iterable[str] | None = None, session_id: str | None = None, source: str = "user",
             salience: float | None = None, **fields: Any) -> MemoryItem:
    """A new memory (new id, created now) from ``save``'s arguments."""
    values = validated(config, content, category, title, keywords, session_id, source,
                       config.default_salience if salience is None else salience)
    now = utcnow()
    return MemoryItem(id=new_id(), created_at=now, updated_at=now, **values, **known_fields(fields, now=now))


def batch_items(config: MemoryConfig, items: Sequence[Mapping[str, Any]], mode: str,
                exists: Callable[[str], bool]) -> tuple[list[MemoryItem], list[dict]]:
    """``save_batch``'s items as new memories, and the errors of the ones left out (``mode="skip"``);
    ``mode="rollback"`` raises on the first invalid item. ``exists`` says whether an id is taken."""
    if mode not in BATCH_MODES:
        raise ValidationError("mode must be 'rollback' or 'skip'.", field="mode")
    prepared: list[MemoryItem] = []
    errors: list[dict] = []
    taken: set[str] = set()
    now = utcnow()
    for i, raw in enumerate(items):
        try:
            if not isinstance(raw, Mapping):
                raise ValidationError("each item must be a mapping with at least 'content'.")
            fields = dict(raw)
            values = validated(
                config, fields.pop("content", ""), fields.pop("category", "context"), fields.pop("title", None),
                fields.pop("keywords", None), fields.pop("session_id", None), fields.pop("source", "user"),
                fields.pop("salience", config.default_salience),
            )
            created = fields.pop("created_at", None)
            created_dt = as_datetime(created) if created else now
            updated = fields.pop("updated_at", None)
            updated_dt = as_datetime(updated, "updated_at") if updated else created_dt
            # An id is given when restoring an export or linking the parts of an imported document.
            mid = _free_id(fields.pop("id", None), taken, exists)
            taken.add(mid)
            prepared.append(MemoryItem(id=mid, created_at=created_dt, updated_at=updated_dt, **values,
                                       **known_fields(fields)))
        except (ValidationError, TypeError) as exc:
            if mode == "rollback":
                raise ValidationError(f"Item {i}: {exc}", field=getattr(exc, "field", None)) from exc
            errors.append({"index": i, "error": str(exc), "code": "VALIDATION_ERROR"})
    return prepared, errors


def _free_id(given: Any, taken: set[str], exists: Callable[[str], bool]) -> str:
    """``given`` if it can name a new memory (not in the vault, not earlier in the batch), else a new id."""
    if given is None or given == "":
        return new_id()
    mid = str(given).strip()
    if not mid or len(mid) > 200 or any(c in mid for c in "\r\n\x00"):
        raise ValidationError("id must be one line of at most 200 characters.", field="id")
    if mid in taken or exists(mid):
        raise ValidationError(f"A memory with id {mid!r} is already in this vault.", field="id")
    return mid
