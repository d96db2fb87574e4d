"""What an import did, file by file: the desktop app lists it, the CLI prints it, ``--json`` emits it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

IMPORTED, SKIPPED, FAILED, UPDATED = "imported", "skipped", "failed", "updated"


@dataclass
class FileResult:
    path: str
    # "imported" | "updated" (imported before; the file changed, this vault had not) | "skipped" (nothing new
    # in it, or changed on both sides: the reason is in error) | "failed" (a clear reason in error)
    status: str = IMPORTED
    importer: str | None = None  # "markdown" | "text" | "pdf" | "json"
    memory_ids: list[str] = field(default_factory=list)  # new memories
    updated_ids: list[str] = field(default_factory=list)  # memories that took the file's new text
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    conflict: bool = False  # skipped because it changed both in the file and here: the user may choose the file's

    @property
    def ok(self) -> bool:
        return self.status != FAILED


class _Tally:
    """Totals over a report's entries (files, or items of another tool's source)."""

    def _entries(self) -> list[Any]:
        raise NotImplementedError

    @property
    def memory_ids(self) -> list[str]:
        return [mid for e in self._entries() for mid in e.memory_ids]

    def count(self, status: str) -> int:
        return sum(1 for e in self._entries() if e.status == status)


@dataclass
class ImportReport(_Tally):
    files: list[FileResult] = field(default_factory=list)
    cancelled: bool = False

    def _entries(self) -> list[FileResult]:
        return self.files

    @property
    def failed(self) -> list[FileResult]:
        return [f for f in self.files if f.status == FAILED]

    def as_dict(self) -> dict[str, Any]:
        return {
            "imported_files": self.count(IMPORTED),
            "updated_files": self.count(UPDATED),
            "skipped_files": self.count(SKIPPED),
            "failed_files": self.count(FAILED),
            "memory_count": len(self.memory_ids),
            "cancelled": self.cancelled,
            "files": [asdict(f) for f in self.files],
        }


class ImportFileError(Exception):
    """One file cannot be imported; the message says why and what to do. Other files go on."""



@dataclass
class ItemResult:
    """One item of another tool's source (a conversation, a section, a note): what its import did.
    ``status``: imported | updated (the source changed, this vault had not) | skipped | failed."""

    key: str
    title: str
    status: str = IMPORTED
    memory_ids: list[str] = field(default_factory=list)  # new memories
    updated_ids: list[str] = field(default_factory=list)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class SourceReport(_Tally):
    format: str
    path: str
    items: list[ItemResult] = field(default_factory=list)
    problems: list[dict[str, str]] = field(default_factory=list)  # entries of the source that could not be read
    cancelled: bool = False

    def _entries(self) -> list[ItemResult]:
        return self.items

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "path": self.path,
            "imported_items": self.count(IMPORTED),
            "updated_items": self.count(UPDATED),
            "skipped_items": self.count(SKIPPED),
            "failed_items": self.count(FAILED),
            "memory_count": len(self.memory_ids),
            "cancelled": self.cancelled,
            "items": [asdict(it) for it in self.items],
            "problems": self.problems,
        }
