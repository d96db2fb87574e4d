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

import math
import re
import uuid
from collections.abc import Callable, Collection
from datetime import date, datetime, timezone
from typing import Any

from memory_curator.core.errors import ValidationError
from memory_curator.core.model import TYPED_FIELDS, MemoryItem, utcnow
from memory_curator.core.vault import source_keys
from memory_curator.core.vault.slug import validate_category
from memory_curator.core.vault.yaml_handler import HANDLER, FrontmatterError

FORMAT_KEYS = (
    "id", "title", "category", "created_at", "updated_at", "session_id", "source", "keywords", "salience",
    "summary", "expires_at", "raw_expires_at", "scope", "actors", "pinned", "salience_floor", "superseded_by",
    "supersedes", "consolidated_from", "provenance", "importance_override",
    *(key for keys in TYPED_FIELDS.values() for key in keys),
)  # fmt: skip
TYPED_KEYS = tuple(key for keys in TYPED_FIELDS.values() for key in keys)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.M)

__all__ = ["FrontmatterError"]  # raised by the handler; callers know it from here


def split_frontmatter(text: str) -> tuple[dict[str, Any] | None, str]:
    """Return (metadata or None when the file has no frontmatter, body). Raises on broken YAML."""
    block, body = _split(text)
    return (None if block is None else HANDLER.load(block)), body


def _split(text: str) -> tuple[str | None, str]:
    if text.startswith("\ufeff"):
        text = text[1:]
    if not HANDLER.detect(text):
        return None, text
    block, body = HANDLER.split(text)
    return block, body[1:] if body.startswith("\n") else body  # the closing line's own line break


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
    dt = dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)
    try:  # 0001-01-01T00:00:00+14:00 is a valid date whose UTC time is not
        dt.astimezone(timezone.utc)
    except OverflowError:
        raise FrontmatterError(f"{key} is out of range: {value!r}") from None
    return dt


def format_dt(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    u = dt if dt.tzinfo is timezone.utc else dt.astimezone(timezone.utc)  # most are UTC already (as read)
    # Not strftime: its %Y gives '1' for the year 1, which nothing reads back as a date. Not an f-string: its six
    # format specs took twice as long (a rebuild formats two or three dates a file).
    return "%04d-%02d-%02dT%02d:%02d:%02dZ" % (u.year, u.month, u.day, u.hour, u.minute, u.second)  # noqa: UP031


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
        number = float(value)
    except (TypeError, ValueError):
        raise FrontmatterError(f"{key} is not a number: {value!r}") from None
    if not math.isfinite(number):
        raise FrontmatterError(f"{key} is not a finite number: {value!r}")
    return number


def title_from(body: str, fallback: str) -> str:
    m = _HEADING.search(body)
    if m:
        return m.group(1).strip()[:200]
    for line in body.splitlines():
        if line.strip():
            return line.strip()[:80]
    return fallback if fallback.strip() else "Untitled"


def _title(value: Any, body: str, fallback: str) -> str:
    """Never blank: a blank title (``title: ' '``, or a file named `` .md`` with no text) is no name to list or
    search by (the long vault fuzz run searched by one: 'The search query is empty', #18)."""
    text = "" if value is None else str(value)
    return text if text.strip() else title_from(body, fallback)


def decode_memory(
    text: str, *, default_category: str, default_id: str | Callable[[], str], fallback_title: str,
    file_time: datetime | Callable[[], datetime] | None = None,
) -> MemoryItem:
    """Parse a vault file. Files without frontmatter are adopted with defaults (nothing is written).
    ``default_id`` and ``file_time`` (the created time of a file without one) may be functions: they are called
    only when needed."""
    meta, body = split_frontmatter(text)
    meta = {} if meta is None else meta  # a new dict from the loader: taken apart here
    body = normalize_content(body)
    try:
        mid = meta.pop("id", None) or (default_id() if callable(default_id) else default_id)
        mid = str(mid)
        created = parse_datetime(meta.pop("created_at", None), "created_at") or _file_time(file_time)
        updated = parse_datetime(meta.pop("updated_at", None), "updated_at") or created
        provenance = meta.pop("provenance", None)
        if provenance is not None and not isinstance(provenance, dict):
            raise FrontmatterError("provenance must be a mapping")
        category = meta.pop("category", None)
        common = dict(
            id=mid,
            content=body,
            title=_title(meta.pop("title", None), body, fallback_title),
            category=_category(category) if category not in (None, "") else default_category,
            created_at=created,
            updated_at=updated,
            session_id=_opt_str(meta.pop("session_id", None)),
            source=str(meta.pop("source", None) or "user"),
            keywords=_strs(meta.pop("keywords", None), "keywords"),
            salience=_float(meta.pop("salience", None), "salience", 0.8),
        )
        if not meta and provenance is None:  # the app's usual file: every optional field as MemoryItem's default
            return MemoryItem(**common)  # (a rebuild reads 100,000 of them: 14 look-ups and calls less each)
        item = MemoryItem(
            **common,
            summary=_opt_str(meta.pop("summary", None)),
            expires_at=parse_datetime(meta.pop("expires_at", None), "expires_at"),
            raw_expires_at=parse_datetime(meta.pop("raw_expires_at", None), "raw_expires_at"),
            scope=_opt_str(meta.pop("scope", None)),
            actors=_strs(meta.pop("actors", None), "actors"),
            pinned=bool(meta.pop("pinned", False)),
            salience_floor=_float(meta.pop("salience_floor", None), "salience_floor", None),
            superseded_by=_opt_str(meta.pop("superseded_by", None)),
            supersedes=_strs(meta.pop("supersedes", None), "supersedes"),
            consolidated_from=_strs(meta.pop("consolidated_from", None), "consolidated_from"),
            provenance=plain(provenance),
            importance_override=_float(meta.pop("importance_override", None), "importance_override", None),
            typed=_typed(meta),
            extra=plain(meta),
        )
    except FrontmatterError:
        raise
    except (TypeError, ValueError) as exc:
        raise FrontmatterError(str(exc)) from None
    return item


def _file_time(file_time: datetime | Callable[[], datetime] | None) -> datetime:
    if file_time is None:
        return utcnow()
    return file_time() if callable(file_time) else file_time


def _typed(meta: dict[str, Any]) -> dict[str, Any]:
    """Pop the typed fields (kept as written; the API validates what it writes). Dates become ISO text
    so the index can hold them as JSON."""
    out = {}
    for key in TYPED_KEYS:
        if key in meta:
            value = meta.pop(key)
            if value is None:
                continue
            out[key] = format_dt(parse_datetime(value, key)) if isinstance(value, (datetime, date)) else plain(value)
    return out


def _category(value: Any) -> str:
    """The category a file names. It is a folder name, so a file must not be able to name '../x' or 'con'."""
    try:
        return validate_category(str(value))
    except ValidationError:
        raise FrontmatterError(f"category {str(value)[:80]!r} is not a category name: use lower-case letters, "
                               "digits, '-' or '_'") from None


def plain(value: Any) -> Any:
    """``value`` as the index's JSON can hold it: dates as ISO text, NaN and infinities as YAML spells them,
    sets and tuples as lists. The file keeps its own text (see ``encode_memory``)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if value != value else (".inf" if value > 0 else "-.inf")
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("latin-1")
    return value


def _opt_str(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def encode_memory(item: MemoryItem, previous: str | None = None) -> str:
    """The file text of ``item``. ``previous``, the text this file had, keeps the lines of every key whose
    value did not change (unknown keys' spelling, comments, anchors, key order): see ``source_keys``."""
    meta = _meta(item)
    head = _kept_head(meta, item, previous) if previous is not None else None
    if head is None:
        head = HANDLER.export(meta)
    return f"---\n{head}---\n\n{normalize_content(item.content)}\n"


def spliced(ours: str, theirs: str, keys: Collection[str]) -> str:
    """``ours`` with the frontmatter lines of ``keys`` as ``theirs`` writes them: the ``previous`` text for
    ``encode_memory`` of a merge that took those keys from ``theirs``, so they keep that side's spelling (a
    dump would re-type ``13:45`` as 825). ``ours`` itself when either header cannot be cut into keys."""
    try:
        (block, body), (other, _) = _split(ours), _split(theirs)
    except ValueError:  # FrontmatterError: a header never closed
        return ours
    mine = source_keys.layout(block) if block is not None and keys else None
    them = source_keys.layout(other) if other is not None and mine is not None else None
    if block is None or mine is None or them is None:
        return ours
    opening = block.partition("\n")[0] + "\n"  # the rest of the '---' line
    return f"---{opening}{source_keys.splice(mine, them, keys)}---\n{body}"


def _meta(item: MemoryItem) -> dict[str, Any]:
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
        "raw_expires_at": format_dt(item.raw_expires_at),
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
    return meta


def _kept_head(meta: dict[str, Any], item: MemoryItem, previous: str) -> str | None:
    """The new header built on the previous one: its lines where a key kept its value, a dump where it
    changed, new keys after the key they follow in ``meta``. None when the previous text gives nothing."""
    try:
        block, _ = _split(previous)
        if block is None:
            return None
        shape = source_keys.layout(block)
        if shape is None:
            return None
        before = _meta(decode_memory(previous, default_category=item.category, default_id=item.id,
                                     fallback_title=item.title, file_time=item.created_at))
    except ValueError:  # FrontmatterError, or a limit: the previous text is no guide
        return None
    out: list[tuple[str, str]] = []
    last = {key: i for i, (key, _, _) in enumerate(shape.entries)}  # of a key written twice, YAML reads the last
    for i, (key, lead, lines) in enumerate(shape.entries):
        if key not in meta:
            continue  # removed
        if last[key] != i:  # an earlier copy of a duplicate key: read by nothing, kept as it was
            out.append((key, lead + lines))
            continue
        same = key in before and _same(before[key], meta[key])
        out.append((key, lead + (lines if same else HANDLER.export({key: meta[key]}))))
    placed = {k for k, _ in out}
    previous_key = None
    for key in meta:
        if key not in placed:
            at = next((i + 1 for i, (k, _) in enumerate(out) if k == previous_key), 0)
            out.insert(at, (key, HANDLER.export({key: meta[key]})))
            placed.add(key)
        previous_key = key
    return "".join(text for _, text in out) + shape.footer


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


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
