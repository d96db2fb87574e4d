"""Markdown and plain text files: a memory of this app is restored as it was; anything else is a document."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from memory_curator.core.ingest.documents import Document, Section
from memory_curator.core.ingest.report import ImportFileError
from memory_curator.core.model import MemoryItem
from memory_curator.core.vault.codec import FORMAT_KEYS, FrontmatterError, decode_memory, split_frontmatter

_HEADING_LINE = re.compile(r"^#{1,3}[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^(```|~~~)")
MAX_TITLE_LINE = 80


def pretty_stem(path: Path) -> str:
    return " ".join(path.stem.replace("_", " ").replace("-", " ").split()) or path.name


def is_app_memory(meta: dict[str, Any] | None) -> bool:
    """A file written by this app (or in its format): frontmatter with an id and a creation time."""
    return bool(meta) and bool(meta.get("id")) and ("created_at" in meta or "category" in meta)


def parse_markdown(text: str, path: Path, category: str | None) -> MemoryItem | Document:
    try:
        meta, body = split_frontmatter(text)
    except FrontmatterError as exc:
        raise ImportFileError(f"has a broken frontmatter ({exc}): fix the YAML between the '---' lines") from None
    if is_app_memory(meta):
        try:
            return decode_memory(text, default_category=category or "context", default_id="",
                                 fallback_title=pretty_stem(path))
        except FrontmatterError as exc:
            raise ImportFileError(f"looks like a memory of this app but {exc}") from None
    meta = dict(meta or {})
    title = str(meta.pop("title", "") or "").strip() or _title(body, path)
    keywords = _tags(meta.pop("keywords", None)) + _tags(meta.pop("tags", None))
    extra = {k: v for k, v in meta.items() if k not in FORMAT_KEYS}
    return Document(
        title=title,
        source=str(path),
        importer="markdown",
        sections=heading_sections(body),
        keywords=tuple(dict.fromkeys(keywords)),
        extra_provenance={"frontmatter": extra} if extra else None,
    )


def parse_text(text: str, path: Path, encoding: str) -> Document:
    extra = {"encoding": encoding} if encoding != "utf-8" else None
    return Document(title=_title(text, path), source=str(path), importer="text",
                    sections=[Section(text.strip())], extra_provenance=extra)


def heading_sections(body: str) -> list[Section]:
    """Sections starting at each heading of level 1 to 3 (headings inside code blocks do not count)."""
    sections: list[Section] = []
    heading: str | None = None
    lines: list[str] = []
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line.strip()):
            fenced = not fenced
        m = None if fenced else _HEADING_LINE.match(line)
        if m and any(x.strip() for x in lines):
            sections.append(Section("\n".join(lines).strip(), heading))
            lines = []
        if m:
            heading = m.group(1).strip()
        lines.append(line)
    if any(x.strip() for x in lines):
        sections.append(Section("\n".join(lines).strip(), heading))
    return sections


def _title(body: str, path: Path) -> str:
    for line in body.splitlines():
        line = line.strip()
        if not line:
            continue
        m = _HEADING_LINE.match(line)
        if m:
            return m.group(1).strip()
        return line if len(line) <= MAX_TITLE_LINE else pretty_stem(path)
    return pretty_stem(path)


def _tags(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, list):
        return []
    return [str(v).lstrip("#").strip() for v in value if str(v).strip()]
