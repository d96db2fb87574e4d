"""What a conflict is, its two versions, and what resolving it did (enough to take it back)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memory_curator.core.conflicts.merge import Merge
from memory_curator.core.model import MemoryItem

CHOICES = ("ours", "theirs", "both", "merged")


@dataclass(frozen=True)
class Conflict:
    memory_id: str
    title: str
    kind: str  # "git": both versions in one file (markers) | "copy": a second file with the same id
    tool: str  # "git" | "Syncthing" | "Dropbox" | "iCloud" | "duplicate id"
    path: str  # the file the memory is listed from (this machine's version)
    copy_path: str | None = None  # the other file, for a copy

    @property
    def key(self) -> str:
        """Unique among the conflicts (one memory may have several copies)."""
        return self.copy_path or self.path

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.memory_id, "title": self.title, "kind": self.kind, "tool": self.tool,
                "path": self.path, "copy_path": self.copy_path}


@dataclass(frozen=True)
class Version:
    label: str  # "This machine", "Other machine (Syncthing copy)"
    path: str
    text: str  # the version's whole file
    item: MemoryItem | None  # None when that version is not a readable memory


@dataclass(frozen=True)
class Sides:
    conflict: Conflict
    ours: Version
    theirs: Version
    base: MemoryItem | None  # the common ancestor, when git knows it
    merge: Merge | None  # None when a side cannot be read
    proposal: str  # a starting point for "Edit merge": the merged fields, this machine's choice where both changed

    @property
    def automatic(self) -> bool:
        return self.merge is not None and self.merge.clean


@dataclass(frozen=True)
class Resolution:
    memory_id: str
    choice: str  # one of CHOICES, or "automatic"
    path: str  # the clean file written
    trashed: tuple[tuple[str, str], ...]  # (where a file was, where it is in the trash): what undo puts back
    new_id: str | None = None  # keep both: the other version's new memory
    new_path: str | None = None
    note: str = ""
    written: str = ""  # the clean file's text: undo refuses when the file has changed since (it would lose that)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.memory_id, "choice": self.choice, "path": self.path, "new_id": self.new_id,
                "new_path": self.new_path, "trashed": [list(t) for t in self.trashed], "note": self.note}
