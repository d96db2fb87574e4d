"""What an import did, file by file: the desktop app lists it, the CLI prints it, ``--json`` emits it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

IMPORTED, SKIPPED, FAILED = "imported", "skipped", "failed"


@dataclass
class FileResult:
    path: str
    status: str = IMPORTED  # "imported" | "skipped" (nothing new in it) | "failed" (a clear reason in error)
    importer: str | None = None  # "markdown" | "text" | "pdf" | "json"
    memory_ids: list[str] = field(default_factory=list)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status != FAILED


@dataclass
class ImportReport:
    files: list[FileResult] = field(default_factory=list)
    cancelled: bool = False

    @property
    def memory_ids(self) -> list[str]:
        return [mid for f in self.files for mid in f.memory_ids]

    def count(self, status: str) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def failed(self) -> list[FileResult]:
        return [f for f in self.files if f.status == FAILED]

    def as_dict(self) -> dict[str, Any]:
        return {
            "imported_files": self.count(IMPORTED),
            "skipped_files": self.count(SKIPPED),
            "failed_files": self.count(FAILED),
            "memory_count": len(self.memory_ids),
            "cancelled": self.cancelled,
            "files": [asdict(f) for f in self.files],
        }


class ImportFileError(Exception):
    """One file cannot be imported; the message says why and what to do. Other files go on."""
