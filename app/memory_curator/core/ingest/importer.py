"""Importing files and folders: each file is read, parsed and saved on its own, so one bad file never stops
the rest, and nothing of a file is written unless all of it can be (documents are saved all or nothing).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from memory_curator.core.errors import Cancelled, CuratorError
from memory_curator.core.ingest import exports, ocr
from memory_curator.core.ingest.documents import document_items, file_id
from memory_curator.core.ingest.markdown import parse_markdown, parse_text
from memory_curator.core.ingest.pdf import parse_pdf
from memory_curator.core.ingest.reading import decode_text, mib, read_bytes, sniff
from memory_curator.core.ingest.reimport import import_document
from memory_curator.core.ingest.report import (
    FAILED,
    IMPORTED,
    SKIPPED,
    FileResult,
    ImportFileError,
    ImportReport,
)
from memory_curator.core.ingest.sources import Target
from memory_curator.core.model import MemoryItem, utcnow
from memory_curator.core.progress import CancelToken, ProgressFn, Tracker

log = logging.getLogger(__name__)

KINDS = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".text": "text", ".pdf": "pdf",
         ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", **dict.fromkeys(ocr.IMAGE_SUFFIXES, "image")}
MAX_PDF_BYTES = 200 * 1024 * 1024
MAX_JSON_BYTES = 512 * 1024 * 1024
MAX_IMAGE_BYTES = 100 * 1024 * 1024
DOCUMENT = "document"  # _parse's mode for a document file (reimport.import_document saves it)
LINK = "link"  # a link found in a folder: reported, never followed
NOT_UTF8 = "not-utf8"  # a name in bytes from another system: reported, not read


def collect(paths: Iterable[str | os.PathLike]) -> list[tuple[Path, str | None]]:
    """(file, kind) for every file named or found in a named folder (hidden files and folders skipped).
    A folder's files of other types come back with kind None, to be reported as skipped."""
    out: list[tuple[Path, str | None]] = []
    seen: set[Path] = set()

    def add(p: Path, kind: str | None) -> None:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            out.append((key, kind))

    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for name in sorted(filenames):
                    if name.startswith("."):
                        continue
                    found = Path(dirpath) / name
                    # A link in a folder is not followed: a folder from someone else could link to your keys.
                    if found.is_symlink():
                        out.append((found, LINK))
                    else:
                        add(found, KINDS.get(Path(name).suffix.lower()))
        else:
            # A file named explicitly is tried even with an unknown suffix: its content decides.
            add(path, KINDS.get(path.suffix.lower(), "text"))
    return out


def import_paths(paths: Sequence[str | os.PathLike], *, target: Target, category: str | None,
                 max_text_bytes: int, vault_root: Path | None = None, progress: ProgressFn | None = None,
                 cancel: CancelToken | None = None, on_file: Callable[[FileResult], None] | None = None,
                 ocr_settings: ocr.OcrSettings | None = None, replace_edited: bool = False) -> ImportReport:
    """Import every file of ``paths``; files inside ``vault_root`` are skipped (they are memories already), and
    so is a file imported before that has not changed since (``reimport``). ``on_file`` gets each file's result as soon as it is final, so a window can list them as they come."""
    files = collect(paths)
    # The trash is read once per import, not once per file (1,000 unchanged files beside 50 trashed memories: 71 s, now 1.2 s).
    target = replace(target, trashed=cache(target.trashed), legacy=cache(target.legacy) if target.legacy else None)
    reader = ocr.Reader(ocr_settings or ocr.OcrSettings())  # Tesseract is looked for once, when first needed
    report = ImportReport()
    tracker = Tracker(len(files), progress, cancel)
    now = utcnow()
    for path, kind in files:
        try:
            tracker.check()
        except Cancelled:
            report.cancelled = True
            break
        if not _utf8(str(path)):  # a name in bytes from another system: no id, no JSON for the report
            kind, path = NOT_UTF8, Path(os.fsencode(path).decode("utf-8", "replace"))
        result = FileResult(str(path))
        report.files.append(result)
        try:
            if kind is None:
                result.status = SKIPPED
                result.error = f"not a file type that can be imported ({path.suffix or 'no suffix'})"
            elif kind == LINK:
                result.status = SKIPPED
                result.error = "is a link: links in a folder are not followed; import the file it points to by name"
            elif kind == NOT_UTF8:
                result.status = SKIPPED
                result.error = "is named in bytes that are not UTF-8: rename it to import it"
            elif vault_root is not None and path.is_relative_to(vault_root):
                result.status = SKIPPED
                result.error = "is inside this vault already"
            else:
                _import_file(result, path, kind, target, category, max_text_bytes, now, cancel, reader,
                             replace_edited)
            if on_file is not None:
                on_file(result)
            tracker.step(1, path.name)
        except Cancelled:
            report.cancelled = True
            break
    return report


def _import_file(result: FileResult, path: Path, kind: str, target: Target, category: str | None,
                 max_text_bytes: int, now: datetime, cancel: CancelToken | None, reader: ocr.Reader,
                 replace_edited: bool = False) -> None:
    """Fill in ``result`` for one file. Raises Cancelled (with ``result`` telling what was saved)."""
    try:
        if not path.exists():
            raise ImportFileError("does not exist")
        items, mode = _parse(path, kind, category, max_text_bytes, now, result, reader)
        if mode == DOCUMENT:
            import_document(result, items, target, cancel, replace_edited)
            return
    except ImportFileError as exc:
        result.status, result.error = FAILED, str(exc)
        return
    except Exception as exc:  # a parser bug on a strange file must not stop the other files
        log.exception("Import of %s failed", path)
        result.status, result.error = FAILED, f"could not be imported ({type(exc).__name__}: {exc})"
        return
    here = target.get_many([it["id"] for it in items])
    fresh = []
    for item in items:
        if item["id"] in here:
            result.warnings.append(f"memory {item['id']} is already in this vault: kept as it is")
        else:
            fresh.append(item)
    if not fresh:
        if items:
            result.status = SKIPPED
            result.error = "every memory in it is already in this vault"
        elif result.status != FAILED:
            result.status, result.error = FAILED, result.error or "holds no memory to import"
        return
    try:
        batch = target.save(fresh, mode=mode, cancel=cancel)
    except Cancelled:
        # Files are written before embedding: what was written stays (reindex embeds the rest).
        result.memory_ids = list(target.get_many([it["id"] for it in fresh]))
        result.status = IMPORTED if result.memory_ids else SKIPPED
        raise
    except CuratorError as exc:
        result.status, result.error = FAILED, str(exc)
        return
    result.memory_ids = list(batch.created_ids)
    for err in batch.errors:
        failed = fresh[err["index"]]
        result.warnings.append(f"{failed.get('title') or failed['id']}: {err['error']}")
    if not result.memory_ids:
        result.status, result.error = FAILED, "no record in it could be saved"


def _parse(path: Path, kind: str, category: str | None, max_text_bytes: int, now: datetime,
           result: FileResult, reader: ocr.Reader) -> tuple[list[dict[str, Any]], str]:
    """The items to save for one file and the save_batch mode; DOCUMENT: a document's parent and parts, saved
    all or none, or updated when the file was imported before."""
    limit = {"pdf": MAX_PDF_BYTES, "json": MAX_JSON_BYTES, "jsonl": MAX_JSON_BYTES,
             "image": MAX_IMAGE_BYTES}.get(kind, max_text_bytes)
    data = read_bytes(path, limit)
    found = sniff(data)
    target = category or "context"
    if kind == "image":
        if ocr.image_kind(data) is None:
            raise ImportFileError("is not a PNG, JPEG, TIFF or WebP image (it does not start like one)")
        result.importer = "ocr"
        return document_items(ocr.parse_image(data, path, reader), target, now), DOCUMENT
    if found == "pdf":
        kind = "pdf"
    elif found is not None:
        raise ImportFileError(f"is {found}, not text: markdown, text, PDF, JSON and image files can be imported")
    elif kind == "pdf":
        raise ImportFileError("is not a readable PDF (it does not start like one)")
    elif len(data) > max_text_bytes and kind not in ("json", "jsonl"):
        raise ImportFileError(f"is too large ({mib(len(data))}; the limit is {mib(max_text_bytes)})")
    result.importer = "json" if kind == "jsonl" else kind
    if kind == "pdf":
        doc = parse_pdf(data, path, reader)
        result.warnings.extend(doc.notes)
        return document_items(doc, target, now), DOCUMENT
    text, encoding = decode_text(data)
    if encoding == "cp1252":
        result.warnings.append("not UTF-8: read as Windows-1252/Latin-1; check accented letters")
    if kind in ("json", "jsonl"):
        return _records(text, kind == "jsonl", target, result, str(path)), "skip"
    parsed = parse_markdown(text, path, category) if kind == "markdown" else parse_text(text, path, encoding)
    if isinstance(parsed, MemoryItem):
        return [exports.save_fields(parsed)], "rollback"
    return document_items(parsed, target, now), DOCUMENT


def _records(text: str, jsonl: bool, category: str, result: FileResult, source: str) -> list[dict[str, Any]]:
    items = []
    for n, rec in enumerate(exports.parse_records(text, jsonl), start=1):
        try:
            if isinstance(rec, Exception):
                raise rec
            # A record without an id takes one from its place in the file: importing the file again finds it.
            item = exports.save_fields(exports.record_item(rec, category, file_id(source, -n)))
        except ValueError as exc:
            result.warnings.append(f"record {n}: {exc}")
            continue
        items.append(item)
    return items


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
