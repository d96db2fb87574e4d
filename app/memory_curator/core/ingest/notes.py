"""basic-memory projects and Obsidian vaults: folders of markdown notes with frontmatter and ``[[links]]``.

An Obsidian vault has a ``.obsidian/`` folder; a basic-memory project's notes carry a ``permalink`` in their
frontmatter (and ``## Observations`` / ``## Relations`` sections of ``- [category] fact`` and
``- relation [[Target]]`` lines). Both can be used two ways:

- **in place**: open the folder itself as the vault (``--vault``, File › Open vault). Every note below a
  folder is read where it is, its frontmatter kept as it is, and nothing is written until you edit a note.
  Notes at the top of the folder are not memories there (a vault's top holds no memories): the preview says
  which, and copying takes them too.
- **copied** (this importer): each note becomes one memory in this vault. The title is the note's ``title``
  or its file name (what ``[[links]]`` name); ``tags`` and inline ``#tags`` become keywords; the note's other
  frontmatter keys are kept as they are (a key this app also uses, such as ``id`` or ``summary``, is kept in
  ``provenance.frontmatter`` instead); the body is kept as written, links included, and the link targets are
  listed in ``provenance.links``. The category is the note's top folder (made a valid category name), or
  ``notes`` for notes at the top.

Left out: attachments (images, PDFs, canvases), hidden folders (``.obsidian``, ``.trash``), and what links
mean to the other tool (links stay text; the graph is not rebuilt).
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memory_curator.core.ingest.external import (
    ImportOptions,
    Source,
    SourceItem,
    iso_time,
    item_id,
    memory_fields,
)
from memory_curator.core.ingest.reading import decode_text, read_bytes
from memory_curator.core.ingest.report import ImportFileError
from memory_curator.core.text import wikilinks
from memory_curator.core.vault.codec import FORMAT_KEYS, FrontmatterError, split_frontmatter
from memory_curator.core.vault.files import read_regular
from memory_curator.core.vault.slug import WINDOWS_DEVICES

MAX_NOTE_BYTES = 10 * 1024 * 1024
ROOT_CATEGORY = "notes"
_INLINE_TAG = re.compile(r"(?:(?<=\s)|^)#([^\W\d][\w/-]*)", re.UNICODE)
_FENCE = re.compile(r"^\s*(```|~~~)")
_NOT_CATEGORY = re.compile(r"[^a-z0-9_-]+")
_CATEGORY = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_TIME_KEYS = ("created", "date", "created_at")
_UPDATED_KEYS = ("updated", "modified", "updated_at")


def notes_format(path: Path) -> str | None:
    """"obsidian", "basic-memory", or None when ``path`` is not a folder of either."""
    if not path.is_dir():
        return None
    if (path / ".obsidian").is_dir():
        return "obsidian"
    for n, (_, text) in enumerate(_sample(path)):
        if n >= 20:
            break
        try:
            meta, _ = split_frontmatter(text)
        except FrontmatterError:
            continue
        if isinstance(meta, dict) and meta.get("permalink"):
            return "basic-memory"
    return None


def _sample(root: Path):
    for file in _notes(root):
        try:
            yield file, read_regular(file, 4096)[:4096].decode("utf-8", errors="replace")
        except OSError:
            continue


def _notes(root: Path) -> list[Path]:
    """Every ``*.md`` below ``root``, hidden folders and links skipped, in a stable order."""
    out = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(folder, d)))
        for name in sorted(files):
            p = Path(folder) / name
            if name.endswith(".md") and not name.startswith(".") and not p.is_symlink():
                out.append(p)
    return out


def read_notes(path: Path, fmt: str) -> Source:
    items: list[SourceItem] = []
    problems: list[dict[str, str]] = []
    for file in _notes(path):
        rel = file.relative_to(path).as_posix()
        if rel != rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace"):  # bytes from another system
            problems.append({"where": rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace"),
                             "reason": "is named in bytes that are not UTF-8: rename it to import it"})
            continue
        try:
            text, _ = decode_text(read_bytes(file, MAX_NOTE_BYTES))
            meta, body = split_frontmatter(text)
        except ImportFileError as exc:
            problems.append({"where": rel, "reason": str(exc)})
            continue
        except FrontmatterError as exc:
            problems.append({"where": rel, "reason": f"has a broken frontmatter ({exc})"})
            continue
        meta = meta if isinstance(meta, dict) else {}
        if not body.strip():
            problems.append({"where": rel, "reason": "has no text"})
            continue
        title = str(meta.get("title") or "").strip() or file.stem
        mtime = datetime.fromtimestamp(file.stat().st_mtime, tz=timezone.utc)
        created = _time(meta, _TIME_KEYS) or mtime
        key = str(meta.get("permalink") or rel) if fmt == "basic-memory" else rel
        items.append(SourceItem(
            key=key, title=title, kind="note", chars=len(body), created_at=created,
            updated_at=_time(meta, _UPDATED_KEYS) or max(mtime, created), where=rel,
            payload={"rel": rel, "meta": meta, "body": body.strip(), "at_top": "/" not in rel}))
    return Source(format=fmt, path=str(path), items=items, problems=problems, modes=("memory",),
                  to_memories=lambda item, options: [_memory(fmt, str(path), item, options)],
                  default_category=ROOT_CATEGORY)


def not_in_place(source: Source) -> list[str]:
    """The notes a vault opened on the source's folder would not read (those at its top)."""
    return [it.where for it in source.items if it.payload.get("at_top")]


def _time(meta: dict, keys: tuple[str, ...]) -> datetime | None:
    for key in keys:
        value = meta.get(key)
        if isinstance(value, datetime):
            return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        if hasattr(value, "isoformat"):  # a date
            return iso_time(value.isoformat())
        found = iso_time(value)
        if found:
            return found
    return None


def tags(meta: dict, body: str) -> list[str]:
    raw = meta.get("tags", meta.get("tag"))
    if isinstance(raw, str):
        raw = re.split(r"[,\s]+", raw)
    found = [str(t).lstrip("#").strip() for t in (raw if isinstance(raw, list) else []) if str(t).strip()]
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced and not line.lstrip().startswith("#"):  # a heading is not a tag
            found += _INLINE_TAG.findall(re.sub(r"`[^`]*`", "", line))
    return list(dict.fromkeys(t for t in found if t))


def links(body: str) -> list[str]:
    return list(dict.fromkeys(target for target, _ in wikilinks.find(body)))


def folder_category(rel: str) -> str:
    if "/" not in rel:
        return ROOT_CATEGORY
    name = _NOT_CATEGORY.sub("-", rel.split("/", 1)[0].lower()).strip("-_")[:64]
    return name if _CATEGORY.match(name) and name not in WINDOWS_DEVICES else ROOT_CATEGORY


def _memory(fmt: str, path: str, item: SourceItem, options: ImportOptions) -> dict[str, Any]:
    p = item.payload
    meta: dict[str, Any] = p["meta"]
    own = {k: v for k, v in meta.items() if k not in ("title", "tags", "tag")}
    clash = {k: v for k, v in own.items() if k in FORMAT_KEYS or k == "extra" or not isinstance(k, str)}
    extra = {k: v for k, v in own.items() if k not in clash}
    prov: dict[str, Any] = {"importer": fmt, "source": path, "file": p["rel"]}
    if clash:
        prov["frontmatter"] = {str(k): v for k, v in clash.items()}
    found = links(p["body"])
    if found:
        prov["links"] = found
    fields: dict[str, Any] = {"extra": extra} if extra else {}
    return memory_fields(item_id(fmt, item.key), item.title, p["body"],
                         options.category or folder_category(p["rel"]), prov, created=item.created_at,
                         updated=item.updated_at, keywords=tags(meta, p["body"]), **fields)
