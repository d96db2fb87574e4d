"""What the importers of other assistants' memories share: the items a source lists, their stable ids, and the
fingerprints that tell a re-import what is new.

A *source* is a file or folder in another tool's format (Claude Code memory, a ChatGPT or Claude data export,
mem0's ``get_all`` JSON, a basic-memory or Obsidian vault). Reading it lists *items* (a conversation, a
section, a topic file, a mem0 record, a note) without writing anything; the user picks items, and each picked
item becomes one or more memories.

Ids are derived from the source's own identity of an item (``uuid5``), so importing an item again finds the
memory it made. Each memory records in ``provenance.fingerprint`` a hash of the text it was imported with:
the base a later import compares both sides against (see ``sources.classify``).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

from memory_curator.core.vault.codec import format_dt, normalize_content

# Ids of imported items: uuid5 in this namespace of "{format}\0{key}".
NAMESPACE = uuid.UUID("0b6f3a52-6f0e-4c3b-9a51-5d0c2f0e8e21")
MODES = ("memory", "turns")  # one memory per item, or (conversations) one per message
TITLE_CHARS = 80


@dataclass(frozen=True)
class SourceItem:
    key: str  # the source's own identity of the item: a conversation id, a file and heading, a mem0 id
    title: str
    kind: str  # "conversation" | "section" | "topic" | "memory" | "note"
    chars: int  # size of its text
    created_at: datetime | None = None
    updated_at: datetime | None = None
    messages: int | None = None  # conversations only
    where: str = ""  # where in the source it is: a file, "MEMORY.md § Build"
    payload: Any = field(default=None, compare=False, repr=False)  # the parsed record, for the format's reader

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("payload")
        for key in ("created_at", "updated_at"):
            out[key] = format_dt(out[key]) if out[key] else None
        return out


@dataclass(frozen=True)
class ImportOptions:
    mode: str = "memory"
    category: str | None = None  # None: the format's default (or a note's own folder)


@dataclass
class Source:
    """A source as read: its items in the source's order, and the entries it could not read (with why)."""

    format: str
    path: str
    items: list[SourceItem]
    to_memories: Callable[[SourceItem, ImportOptions], list[dict[str, Any]]] = field(repr=False)
    modes: tuple[str, ...] = ("memory",)
    problems: list[dict[str, str]] = field(default_factory=list)  # {"where", "reason"}
    default_category: str = "context"


def item_id(fmt: str, key: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{fmt}\0{key}"))


def fingerprint(text: str) -> str:
    """A hash of text as a memory stores it (so the file read back gives the same hash)."""
    return hashlib.sha256(normalize_content(text.replace("\r\n", "\n")).encode("utf-8")).hexdigest()[:32]


def short_title(text: str, fallback: str) -> str:
    """The first line of ``text``, cut at a word near ``TITLE_CHARS``."""
    for line in text.splitlines():
        line = " ".join(line.strip().lstrip("#").split())
        if line:
            if len(line) <= TITLE_CHARS:
                return line
            cut = line[:TITLE_CHARS].rsplit(" ", 1)[0]
            return (cut or line[:TITLE_CHARS]) + " …"
    return fallback


def epoch_time(value: Any) -> datetime | None:
    """A Unix time in seconds (ChatGPT), or None when missing or out of range."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return datetime.fromtimestamp(float(value), tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


def iso_time(value: Any) -> datetime | None:
    """An ISO 8601 time (Claude, mem0), in UTC; None when missing or not a time."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace("Z", "+00:00")
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    try:
        return dt.astimezone(timezone.utc)
    except (OverflowError, ValueError):
        return None


def text_of(value: Any) -> str:
    return value if isinstance(value, str) else ""


def memory_fields(mid: str, title: str, content: str, category: str, provenance: dict[str, Any], *,
                  session: str | None = None, source: str = "user", created: datetime | None = None,
                  updated: datetime | None = None, keywords: list[str] | tuple[str, ...] = (),
                  **fields: Any) -> dict[str, Any]:
    """A ``save_batch`` item for an imported memory; its provenance carries the fingerprint of ``content``."""
    out: dict[str, Any] = {"id": mid, "title": title, "content": content, "category": category,
                           "source": source, "keywords": list(keywords),
                           "provenance": {**provenance, "fingerprint": fingerprint(content)}, **fields}
    if session:
        out["session_id"] = session
    if created:
        out["created_at"] = format_dt(created)
    if updated:
        out["updated_at"] = format_dt(max(updated, created) if created else updated)
    return out
