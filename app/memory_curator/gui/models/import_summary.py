"""What an import did, in words: the import dialog's headline says what was imported, updated, skipped,
failed and cancelled (never "Imported ..." over files that all failed), and each file's reason in full."""

from __future__ import annotations

from pathlib import Path

from memory_curator.core.ingest.report import FAILED, IMPORTED, SKIPPED, UPDATED


def _files(n: int) -> str:
    return f"{n:,} file" + ("" if n == 1 else "s")


def _memories(n: int) -> str:
    return f"{n:,} memor" + ("y" if n == 1 else "ies")


def headline(report, total: int) -> str:
    """One or two sentences over the whole import; ``total`` is how many files there were to read."""
    c = {s: report.count(s) for s in (IMPORTED, UPDATED, SKIPPED, FAILED)}
    parts = []
    if c[IMPORTED]:
        parts.append(f"{_files(c[IMPORTED])} imported ({_memories(len(report.memory_ids))})")
    if c[UPDATED]:
        parts.append(f"{_files(c[UPDATED])} updated (their memories took the files' new text)")
    if c[SKIPPED]:
        parts.append(f"{_files(c[SKIPPED])} skipped")
    if c[FAILED]:
        parts.append(f"{_files(c[FAILED])} failed")
    what = ", ".join(parts) or "no file was read"
    reasons = " The reasons are listed below." if c[SKIPPED] or c[FAILED] else ""
    read = len(report.files)
    total = max(total, read)
    if report.cancelled:
        rest = total - read
        left = (f" The other {_files(rest)} were not read: import again to add them (what is here already is "
                f"skipped)." if rest else "")
        return f"Cancelled after {read:,} of {_files(total)}: {what}.{left}{reasons}"
    if not c[IMPORTED] and not c[UPDATED]:
        return f"Nothing was imported: {what}.{reasons}"
    return f"{what[0].upper()}{what[1:]}.{reasons}"


def reason(f) -> str:
    """A file's result in full: why it was skipped or failed, and every warning."""
    lines = [f.error] if f.error else []
    lines += f.warnings
    if not lines and f.status == IMPORTED:
        lines.append(f"read as {f.importer}" if f.importer else "imported")
    if not lines and f.status == UPDATED:
        lines.append(f"{_memories(len(f.updated_ids))} took the file's new text")
    return "\n".join(lines)


def details(f) -> str:
    """The selected file, for the dialog's wrapping details pane."""
    return f"{Path(f.path).name} — {f.status}\n{f.path}\n\n{reason(f)}"
