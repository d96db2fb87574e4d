"""This app's export formats, written and read back.

- ``markdown``: a folder laid out like the vault (``{category}/{YYYY-MM-DD}_{slug}.md``), every file with its
  full frontmatter, so the folder is itself a vault and can be imported again.
- ``json``: ``{"format": "memory-curator-export", "version": 1, "exported_at": ..., "memories": [record...]}``.
- ``jsonl``: one record per line.

A record is a memory's frontmatter keys (as in the vault format) plus ``content``. Records are read through
the vault codec, so the JSON and markdown exports accept exactly the same fields.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import MISSING, dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from memory_curator.core.errors import ValidationError, VaultFileError
from memory_curator.core.ingest.report import ImportFileError
from memory_curator.core.model import MemoryItem, utcnow
from memory_curator.core.vault.codec import (
    FrontmatterError,
    decode_memory,
    encode_memory,
    format_dt,
    split_frontmatter,
)
from memory_curator.core.vault.files import atomic_write_text
from memory_curator.core.vault.store import Vault

EXPORT_FORMAT = "memory-curator-export"
EXPORT_VERSION = 1
FORMATS = ("markdown", "json", "jsonl")
# MemoryItem fields the index derives; an export never carries them.
_INDEX_ONLY = {"chunk_count", "access_count", "last_accessed", "importance", "file_path"}
_ALWAYS = {"id", "content", "title", "category", "created_at", "updated_at", "session_id", "source", "keywords",
           "salience"}


@dataclass
class ExportReport:
    path: str
    format: str
    count: int = 0
    problems: list[dict[str, str]] = field(default_factory=list)  # files that could not be read: skipped


# -- records ------------------------------------------------------------------------------------------


def item_record(item: MemoryItem) -> dict[str, Any]:
    meta, body = split_frontmatter(encode_memory(item))
    return {**(meta or {}), "content": body.strip()}


def record_item(record: Any, default_category: str, default_id: str) -> MemoryItem:
    """A record (frontmatter keys + content) as a memory, parsed by the vault codec."""
    if not isinstance(record, dict):
        raise ValueError("is not an object with a 'content' field")
    meta = dict(record)
    content = meta.pop("content", None)
    if not isinstance(content, str) or not content.strip():
        raise ValueError("has no 'content' text")
    head = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, default_flow_style=False) if meta else ""
    try:
        return decode_memory(f"---\n{head}---\n\n{content}", default_category=default_category,
                             default_id=default_id, fallback_title="Untitled")
    except FrontmatterError as exc:
        raise ValueError(str(exc)) from None


def save_fields(item: MemoryItem) -> dict[str, Any]:
    """The item as a ``save_batch`` mapping: every field the file holds; optional ones only when set."""
    out: dict[str, Any] = {}
    for f in fields(MemoryItem):
        if f.name in _INDEX_ONLY:
            continue
        value = getattr(item, f.name)
        if f.name == "typed":  # typed fields (seed 004) are top-level keys for save_batch, as in the file
            out.update(value)
            continue
        if f.name in _ALWAYS:
            out[f.name] = value
            continue
        default = f.default if f.default is not MISSING else (f.default_factory() if f.default_factory is not MISSING else None)  # type: ignore[misc]
        if value != default:
            out[f.name] = value
    return out


def parse_records(text: str, jsonl: bool) -> list[Any]:
    """The records of a JSON export (or a plain list of objects), or of a JSONL file. A JSONL line that is
    not JSON becomes a ``ValueError`` in its place, so one bad line does not lose the others."""
    if jsonl:
        out: list[Any] = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                out.append(ValueError(f"line {n} is not JSON ({exc.msg})"))
        return out
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFileError(f"is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if isinstance(data, dict) and isinstance(data.get("memories"), list):
        return data["memories"]
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and "content" in data:
        return [data]
    raise ImportFileError('is JSON but not an export of this app: expected {"memories": [...]} or a list of '
                          'objects with "content"')


# -- writing --------------------------------------------------------------------------------------------


def write_export(vault: Vault, rels: Iterable[str], fmt: str, dest: Path, category: str | None) -> ExportReport:
    if fmt not in FORMATS:
        raise ValidationError(f"Unknown export format {fmt!r}: use {', '.join(FORMATS)}.", field="format")
    dest = Path(dest).expanduser()
    if fmt == "markdown":
        if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
            raise ValidationError(f"{dest} is not an empty folder: export into a new or empty folder, so no file "
                                  "of yours is overwritten.", field="dest")
    else:
        if dest.is_dir():
            dest = dest / f"memory-curator-export-{utcnow().strftime('%Y%m%d-%H%M%S')}.{fmt}"
        if dest.exists():
            raise ValidationError(f"{dest} already exists: choose another file name.", field="dest")
    report = ExportReport(str(dest.resolve()), fmt)
    records: list[dict[str, Any]] = []
    for rel in rels:
        try:
            item = vault.read(rel)
            previous = vault.read_text(rel) if fmt == "markdown" else None
        except VaultFileError as exc:
            report.problems.append({"path": rel, "reason": exc.reason})
            continue
        if fmt == "markdown":
            # Built on the file's own lines, as a rewrite is: a key the app does not know keeps its text ("NO",
            # "012345", "12:30"), where a dump of the value YAML 1.1 read would write false, 5349, 750 (#18.9).
            atomic_write_text(dest / rel, encode_memory(item, previous))
        else:
            records.append(item_record(item))
        report.count += 1
    if fmt == "markdown":
        dest.mkdir(parents=True, exist_ok=True)  # an empty export is an empty folder
    elif fmt == "json":
        doc = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "exported_at": format_dt(utcnow()),
               "category": category, "memories": records}
        atomic_write_text(dest, json.dumps(doc, ensure_ascii=False, indent=1, default=_jsonable) + "\n")
    else:
        atomic_write_text(dest, "".join(json.dumps(r, ensure_ascii=False, default=_jsonable) + "\n" for r in records))
    return report


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return format_dt(value)
    return str(value)

