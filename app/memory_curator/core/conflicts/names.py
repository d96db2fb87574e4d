"""The names sync tools give the copies they leave when two machines changed one file at once.

Syncthing  ``note.sync-conflict-20261123-082800-ABCDEFG.md``
Dropbox    ``note (conflicted copy).md``, ``note (Jane's conflicted copy 2026-11-23).md``
iCloud     ``note 2.md`` (only a copy when it carries the id of ``note.md``: the name alone is common)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PATTERNS = (
    ("Syncthing", re.compile(r"^(?P<stem>.+?)\.sync-conflict-\d{8}-\d{6}-[A-Z0-9]{7}(?P<ext>\.md)$")),
    ("Dropbox", re.compile(r"^(?P<stem>.+?) \((?:[^()/]*'s )?conflicted copy(?: \d{4}-\d{2}-\d{2})?(?: \(\d+\))?\)"
                           r"(?P<ext>\.md)$", re.I)),
    ("iCloud", re.compile(r"^(?P<stem>.+?) (?:[2-9]|[1-9]\d{1,2})(?P<ext>\.md)$")),
)


@dataclass(frozen=True)
class CopyName:
    tool: str  # "Syncthing" | "Dropbox" | "iCloud"
    original: str  # the path the tool copied from (same folder)


def copy_name(rel: str) -> CopyName | None:
    """What made ``rel`` (a vault path) if its name is a sync tool's conflict copy, and of which file."""
    folder, _, name = rel.rpartition("/")
    for tool, pattern in _PATTERNS:
        m = pattern.match(name)
        if m:
            original = m.group("stem") + m.group("ext")
            return CopyName(tool, f"{folder}/{original}" if folder else original)
    return None
