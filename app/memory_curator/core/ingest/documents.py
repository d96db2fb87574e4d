"""A document (markdown, text or PDF) as memories: one memory, or a parent and one child per part.

Parts follow the document's own structure where it has one (markdown headings, a PDF's outline) and are
packed up to ``PART_CHARS`` characters, so a part is a readable unit, not an embedding chunk (the engine
still splits each memory into chunks for embedding).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memory_curator.core.ingest.external import fingerprint, item_id
from memory_curator.core.vault.codec import format_dt

PART_CHARS = 8000  # about 2,000 words: a few screens to read, four embedding chunks
EXCERPT_CHARS = 600  # the opening the parent memory shows
_PARAGRAPH = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Section:
    text: str
    heading: str | None = None
    first_page: int | None = None  # 1-based, PDFs only
    last_page: int | None = None


@dataclass(frozen=True)
class Document:
    title: str
    source: str  # absolute path of the file
    importer: str  # "markdown" | "text" | "pdf"
    sections: list[Section]
    page_count: int | None = None
    keywords: tuple[str, ...] = ()
    extra_provenance: dict[str, Any] | None = None  # e.g. the encoding a text file was read with
    notes: tuple[str, ...] = ()  # what the import report should warn about (pages left unread...)

    @property
    def text(self) -> str:
        return "\n\n".join(s.text for s in self.sections)


def split_long(section: Section, limit: int) -> list[Section]:
    """A section longer than ``limit`` split at paragraph breaks (or hard, for a paragraph longer still)."""
    if len(section.text) <= limit:
        return [section]
    pieces: list[str] = []
    current = ""
    for para in _PARAGRAPH.split(section.text):
        while len(para) > limit:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(para[:limit])
            para = para[limit:]
        if current and len(current) + 2 + len(para) > limit:
            pieces.append(current)
            current = para
        else:
            current = f"{current}\n\n{para}" if current else para
    if current.strip():
        pieces.append(current)
    return [Section(p.strip(), section.heading, section.first_page, section.last_page) for p in pieces if p.strip()]


def pack(sections: list[Section], limit: int = PART_CHARS) -> list[Section]:
    """Consecutive sections joined into parts of at most ``limit`` characters (a long one is split)."""
    parts: list[Section] = []
    for sec in (piece for s in sections for piece in split_long(s, limit)):
        last = parts[-1] if parts else None
        if last is not None and len(last.text) + 2 + len(sec.text) <= limit:
            parts[-1] = Section(
                f"{last.text}\n\n{sec.text}",
                last.heading or sec.heading,
                last.first_page if last.first_page is not None else sec.first_page,
                sec.last_page if sec.last_page is not None else last.last_page,
            )
        else:
            parts.append(sec)
    return parts


def page_span(first: int | None, last: int | None) -> str | None:
    if first is None:
        return None
    return str(first) if last in (None, first) else f"{first}-{last}"


def file_id(source: str, part: int | None = None) -> str:
    """The id of the memory a file makes (or of its part ``part``): the same file imported again finds it."""
    return item_id("file", source if part is None else f"{source}\0part {part}")


def document_items(doc: Document, category: str, imported_at: datetime) -> list[dict[str, Any]]:
    """Items for ``save_batch``: the parent first, then its parts in order (or a single memory).
    Ids come from the file's path (``file_id``), so parent and parts can name each other before anything is
    written and importing the file again finds them (``reimport``)."""
    base = {"source": doc.source, "importer": doc.importer, "imported_at": format_dt(imported_at),
            **(doc.extra_provenance or {})}
    parts = pack([s for s in doc.sections if s.text.strip()])
    if len(parts) <= 1:
        prov = dict(base)
        if doc.page_count:
            prov["pages"] = page_span(1, doc.page_count)
        return [_item(file_id(doc.source), doc.title, doc.text, category, doc.keywords, prov)]
    parent_id = file_id(doc.source)
    child_ids = [file_id(doc.source, i) for i in range(1, len(parts) + 1)]
    items = [_item(parent_id, doc.title, _overview(doc, parts), category, doc.keywords,
                   {**base, **({"pages": page_span(1, doc.page_count)} if doc.page_count else {}),
                    "parts": child_ids})]
    for i, (part, cid) in enumerate(zip(parts, child_ids, strict=True), start=1):
        prov = {**base, "parent": parent_id, "part": i, "parts_total": len(parts)}
        span = page_span(part.first_page, part.last_page)
        if span:
            prov["pages"] = span
        if part.heading:
            prov["section"] = part.heading
        items.append(_item(cid, _part_title(doc.title, i, len(parts), part), part.text, category, doc.keywords, prov))
    return items


def _item(mid: str, title: str, content: str, category: str, keywords: tuple[str, ...],
          provenance: dict[str, Any]) -> dict[str, Any]:
    return {"id": mid, "title": title[:200], "content": content, "category": category, "keywords": list(keywords),
            "source": "system", "provenance": {**provenance, "fingerprint": fingerprint(content)}}


def _label(part: Section) -> str:
    span = page_span(part.first_page, part.last_page)
    where = f"page {span}" if span and "-" not in span else (f"pages {span}" if span else "")
    if part.heading and where:
        return f"{part.heading} ({where})"
    return part.heading or where


def _part_title(title: str, i: int, n: int, part: Section) -> str:
    label = _label(part)
    return f"{title} ({i}/{n})" + (f": {label}" if label else "")


def _overview(doc: Document, parts: list[Section]) -> str:
    """The parent memory: what the document is, its parts, and its opening, so it is found as a whole."""
    name = doc.source.replace("\\", "/").rsplit("/", 1)[-1]
    size = f", {doc.page_count} pages" if doc.page_count else ""
    lines = [f"# {doc.title}", "", f"Imported from `{name}`{size}, kept in {len(parts)} parts:", ""]
    for i, part in enumerate(parts, start=1):
        lines.append(f"{i}. {_label(part) or f'part {i}'}")
    opening = doc.text.strip()
    if len(opening) > EXCERPT_CHARS:
        opening = opening[:EXCERPT_CHARS].rsplit(" ", 1)[0] + " …"
    lines += ["", "## Opening", "", opening]
    return "\n".join(lines)
