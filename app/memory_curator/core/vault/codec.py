"""Memory <-> markdown text. This module is the vault format: a public contract, documented in README.md.

    ---
    id: 550e8400-e29b-41d4-a716-446655440000
    title: Python + FastAPI
    category: decisions
    created_at: 2025-11-25T14:30:00Z
    ...
    ---
    <markdown content>

Keys this version does not know are kept in ``MemoryItem.extra`` and written back unchanged.
"""

from __future__ import annotations

import re
import uuid
from datetime import date, datetime, timezone
from typing import Any

import yaml

from memory_curator.core.errors import ValidationError
from memory_curator.core.model import TYPED_FIELDS, MemoryItem, utcnow
from memory_curator.core.vault import plain_yaml

try:  # libyaml is ~10x faster; rebuilding 100k files depends on it
    from yaml import CSafeDumper as _Dumper
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - pure-python fallback
    from yaml import SafeDumper as _Dumper  # type: ignore[assignment]
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

FORMAT_KEYS = (
    "id", "title", "category", "created_at", "updated_at", "session_id", "source", "keywords", "salience",
    "summary", "expires_at", "scope", "actors", "pinned", "salience_floor", "superseded_by", "supersedes",
    "consolidated_from", "provenance", "importance_override",
    *(key for keys in TYPED_FIELDS.values() for key in keys),
)  # fmt: skip
TYPED_KEYS = tuple(key for keys in TYPED_FIELDS.values() for key in keys)
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)(?:\r?\n)?^---[ \t]*(?:\r?\n|\Z)", re.S | re.M)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.M)


class FrontmatterError(ValueError):
    pass


def split_frontmatter(text: str) -> tuple[dict[str, Any] | None, str]:
    """Return (metadata or None when the file has no frontmatter, body). Raises on broken YAML."""
    if text.startswith("\ufeff"):
        text = text[1:]
    m = _FRONTMATTER.match(text)
    if not m:
        if text.startswith("---\n") or text.startswith("---\r\n"):
            raise FrontmatterError("frontmatter starts with '---' but is never closed")
        return None, text
    block = m.group(1)
    fast = plain_yaml.load(block) if block.strip() else {}
    if fast is not None:
        return fast, text[m.end() :]
    try:
        meta = yaml.load(block, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise FrontmatterError(f"frontmatter is not valid YAML{where}") from None
    if not isinstance(meta, dict):
        raise FrontmatterError("frontmatter is not a mapping of keys to values")
    return meta, text[m.end() :]


def parse_datetime(value: Any, key: str) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, date):
        dt = datetime(value.year, value.month, value.day)
    else:
        try:
            dt = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError:
            raise FrontmatterError(f"{key} is not a date and time: {value!r}") from None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def format_dt(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _strs(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [v for v in (s.strip() for s in value.split(",")) if v]
    if not isinstance(value, list):
        raise FrontmatterError(f"{key} must be a list")
    return tuple(str(v) for v in value if v is not None and str(v) != "")


def _float(value: Any, key: str, default: float | None) -> float | None:
    if value is None:
        return default
    try:
        return float(value)
    except (TypeError, ValueError):
        raise FrontmatterError(f"{key} is not a number: {value!r}") from None


def title_from(body: str, fallback: str) -> str:
    m = _HEADING.search(body)
    if m:
        return m.group(1).strip()[:200]
    for line in body.splitlines():
        if line.strip():
            return line.strip()[:80]
    return fallback


def decode_memory(
    text: str, *, default_category: str, default_id: str, fallback_title: str, file_time: datetime | None = None
) -> MemoryItem:
    """Parse a vault file. Files without frontmatter are adopted with defaults (nothing is written)."""
    meta, body = split_frontmatter(text)
    meta = dict(meta or {})
    body = normalize_content(body)
    now = file_time or utcnow()
    try:
        mid = str(meta.pop("id", None) or default_id)
        created = parse_datetime(meta.pop("created_at", None), "created_at") or now
        updated = parse_datetime(meta.pop("updated_at", None), "updated_at") or created
        provenance = meta.pop("provenance", None)
        if provenance is not None and not isinstance(provenance, dict):
            raise FrontmatterError("provenance must be a mapping")
        item = MemoryItem(
            id=mid,
            content=body,
            title=str(meta.pop("title", None) or title_from(body, fallback_title)),
            category=str(meta.pop("category", None) or default_category),
            created_at=created,
            updated_at=updated,
            session_id=_opt_str(meta.pop("session_id", None)),
            source=str(meta.pop("source", None) or "user"),
            keywords=_strs(meta.pop("keywords", None), "keywords"),
            salience=_float(meta.pop("salience", None), "salience", 0.8),  # type: ignore[arg-type]
            summary=_opt_str(meta.pop("summary", None)),
            expires_at=parse_datetime(meta.pop("expires_at", None), "expires_at"),
            scope=_opt_str(meta.pop("scope", None)),
            actors=_strs(meta.pop("actors", None), "actors"),
            pinned=bool(meta.pop("pinned", False)),
            salience_floor=_float(meta.pop("salience_floor", None), "salience_floor", None),
            superseded_by=_opt_str(meta.pop("superseded_by", None)),
            supersedes=_strs(meta.pop("supersedes", None), "supersedes"),
            consolidated_from=_strs(meta.pop("consolidated_from", None), "consolidated_from"),
            provenance=provenance,
            importance_override=_float(meta.pop("importance_override", None), "importance_override", None),
            typed=_typed(meta),
            extra=meta,
        )
    except FrontmatterError:
        raise
    except (TypeError, ValueError) as exc:
        raise FrontmatterError(str(exc)) from None
    return item


def _typed(meta: dict[str, Any]) -> dict[str, Any]:
    """Pop the typed fields (kept as written; the API validates what it writes). Dates become ISO text
    so the index can hold them as JSON."""
    out = {}
    for key in TYPED_KEYS:
        if key in meta:
            value = meta.pop(key)
            if value is None:
                continue
            out[key] = format_dt(parse_datetime(value, key)) if isinstance(value, (datetime, date)) else value
    return out


def _opt_str(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def encode_memory(item: MemoryItem) -> str:
    meta: dict[str, Any] = {
        "id": item.id,
        "title": item.title,
        "category": item.category,
        "created_at": format_dt(item.created_at),
        "updated_at": format_dt(item.updated_at),
        "session_id": item.session_id,
        "source": item.source,
        "keywords": list(item.keywords),
        "salience": round(float(item.salience), 4),
    }
    optional = {
        "summary": item.summary,
        "expires_at": format_dt(item.expires_at),
        "scope": item.scope,
        "actors": list(item.actors) or None,
        "pinned": True if item.pinned else None,
        "salience_floor": item.salience_floor,
        "superseded_by": item.superseded_by,
        "supersedes": list(item.supersedes) or None,
        "consolidated_from": list(item.consolidated_from) or None,
        "provenance": item.provenance or None,
        "importance_override": item.importance_override,
    }
    meta.update({k: v for k, v in optional.items() if v is not None})
    meta.update({k: item.typed[k] for k in TYPED_KEYS if item.typed.get(k) is not None})
    for key, value in item.extra.items():
        if key not in meta:
            meta[key] = value
    head = yaml.dump(meta, Dumper=_Dumper, allow_unicode=True, sort_keys=False, default_flow_style=False, width=1000)
    return f"---\n{head}---\n\n{normalize_content(item.content)}\n"


def normalize_content(text: str) -> str:
    """Content as stored: no leading blank lines, no trailing white space (indentation is kept)."""
    return text.lstrip("\r\n").rstrip()


def new_id() -> str:
    return str(uuid.uuid4())


def adopted_id(relative_path: str) -> str:
    """A stable id for a file written by another program without one (same path, same id)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "memory-curator:" + relative_path))


def check_salience(value: float, field: str = "salience") -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValidationError(f"{field} must be a number between 0 and 1.", field=field) from None
    if not 0.0 <= v <= 1.0 or v != v:
        raise ValidationError(f"{field} must be between 0 and 1 (got {value}).", field=field)
    return v
