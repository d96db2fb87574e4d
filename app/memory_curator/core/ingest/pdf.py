"""PDF files: text extracted page by page with pypdf, reflowed into markdown paragraphs.

Sections come from the PDF's outline (bookmarks) when it has one, else each page is a section; the
document layer packs them into parts. Encrypted and damaged files are refused with a reason.
"""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

from pypdf import PdfReader
from pypdf.errors import PyPdfError

from memory_curator.core.ingest.documents import Document, Section
from memory_curator.core.ingest.markdown import pretty_stem
from memory_curator.core.ingest.ocr import OcrUnavailable, Reader, read_pdf_pages
from memory_curator.core.ingest.report import ImportFileError
from memory_curator.core.text.tokens import has_cjk

# pypdf logs every oddity of a damaged file as a warning; the import reports one clear reason instead.
logging.getLogger("pypdf").setLevel(logging.ERROR)

_END_OF_SENTENCE = re.compile(r"[.!?:;。！？」』）)]$")
_GENERIC_TITLES = {"untitled", "microsoft word", "document", "title", "unknown"}


def parse_pdf(data: bytes, path: Path, ocr: Reader | None = None) -> Document:
    """``ocr`` reads the pages that have no text layer (scans); without it they stay empty."""
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ImportFileError("is an encrypted PDF that needs a password: save an unprotected copy and import that")
        pages = [reflow(page.extract_text() or "") for page in reader.pages]
        outline = _outline(reader)
        title = _meta_title(reader)
    except ImportFileError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, OSError) as exc:
        # pypdf raises many kinds of errors for damaged files; all of them mean the same to a user.
        raise ImportFileError(f"is not a readable PDF (it looks damaged: {exc or type(exc).__name__})") from None
    provenance, notes = None, ()
    blank = [i for i, p in enumerate(pages) if not p.strip()]
    if blank and ocr is not None:
        problem = ocr.problem()
        if problem is None:
            for i, text in read_pdf_pages(data, blank, ocr).items():
                pages[i] = text
            provenance = ocr.provenance(_spans([i + 1 for i in blank if pages[i].strip()]))
        elif len(blank) == len(pages):
            raise OcrUnavailable(f"is a scanned PDF (no text layer) and {problem}")
        else:
            notes = (f"pages {_spans([i + 1 for i in blank])} have no text layer and were not read: "
                     f"OCR {problem}",)
    if not any(p.strip() for p in pages):
        raise ImportFileError("has no text to extract (its pages hold no text, and OCR found none)")
    return Document(
        title=title or pretty_stem(path),
        source=str(path),
        importer="pdf",
        sections=_sections(pages, outline),
        page_count=len(pages),
        extra_provenance=provenance,
        notes=notes,
    )


def _spans(numbers: list[int]) -> str:
    """[1, 2, 3, 7] -> "1-3, 7"."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def reflow(text: str) -> str:
    """Lines broken by the page layout joined back into paragraphs; hyphenated words mended."""
    lines = [ln.strip() for ln in text.replace("\r", "").split("\n")]
    width = max((len(ln) for ln in lines), default=0)
    paragraphs: list[str] = []
    current = ""
    for line in lines:
        if not line:
            if current:
                paragraphs.append(current)
                current = ""
            continue
        if not current:
            current = line
        elif current.endswith("-") and line[:1].islower():
            current = current[:-1] + line
        elif has_cjk(current[-1:]) and has_cjk(line[:1]):
            current += line
        else:
            current += " " + line
        # A short line or one ending a sentence closes its paragraph.
        if _END_OF_SENTENCE.search(line) and len(line) < 0.8 * width:
            paragraphs.append(current)
            current = ""
    if current:
        paragraphs.append(current)
    return "\n\n".join(paragraphs)


def _meta_title(reader: PdfReader) -> str | None:
    meta = reader.metadata
    title = str(meta.title).strip() if meta is not None and meta.title else ""
    if not title or title.lower() in _GENERIC_TITLES:
        return None
    return title


def _outline(reader: PdfReader) -> list[tuple[str, int]]:
    """Top-level bookmarks as (title, 0-based page), in page order."""
    out = []
    for entry in reader.outline or []:
        if isinstance(entry, list):  # children of the previous entry
            continue
        try:
            page = reader.get_destination_page_number(entry)
        except (PyPdfError, ValueError, KeyError, TypeError, AttributeError):
            continue
        if page is not None and page >= 0:
            out.append((str(entry.title).strip(), page))
    out.sort(key=lambda t: t[1])
    # Several bookmarks on one page would share its text: the first one names the section.
    return [e for i, e in enumerate(out) if i == 0 or e[1] != out[i - 1][1]]


def _sections(pages: list[str], outline: list[tuple[str, int]]) -> list[Section]:
    if not outline:
        return [Section(text, None, i, i) for i, text in enumerate(pages, start=1) if text.strip()]
    sections = []
    starts = [p for _, p in outline]
    if starts[0] > 0:  # pages before the first bookmark (a title page)
        outline = [("", 0), *outline]
        starts = [0, *starts]
    for i, (title, start) in enumerate(outline):
        end = starts[i + 1] if i + 1 < len(starts) else len(pages)
        end = max(end, start + 1)
        text = "\n\n".join(p for p in pages[start:end] if p.strip())
        if text.strip():
            sections.append(Section(text, title or None, start + 1, end))
    return sections
