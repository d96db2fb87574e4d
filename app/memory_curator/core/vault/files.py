"""Atomic file writes: a crash or a full disk leaves the old file or the new one, never half of one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from memory_curator.core.errors import StorageError


def atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".md~")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise StorageError(f"Could not write {path}: {exc.strerror or exc}. Check free disk space and permissions.") from exc


def unique_path(path: Path) -> Path:
    """``path`` if free, else ``stem_2.md``, ``stem_3.md`` ..."""
    if not path.exists():
        return path
    n = 2
    while True:
        candidate = path.with_name(f"{path.stem}_{n}{path.suffix}")
        if not candidate.exists():
            return candidate
        n += 1
