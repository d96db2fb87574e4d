"""Atomic file writes: a crash or a full disk leaves the old file or the new one, never half of one."""

from __future__ import annotations

import os
import shutil
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


def atomic_create_text(path: Path, text: str) -> Path:
    """Write a new file at ``path`` or, when taken, at ``stem_2.md``, ``stem_3.md`` ... and return where.

    Creation is exclusive: the name is claimed with ``os.link``, which fails when the name exists, so two
    processes saving the same title at the same moment never overwrite each other's file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".md~")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        for candidate in _candidates(path):
            try:
                _claim(tmp, candidate)
            except FileExistsError:
                continue
            return candidate
    except OSError as exc:
        raise StorageError(f"Could not write {path}: {exc.strerror or exc}. Check free disk space and permissions.") from exc
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    raise AssertionError("unreachable: _candidates never ends")


def move_exclusive(src: Path, dst: Path) -> Path:
    """Move ``src`` to ``dst`` (or ``dst_2`` ...) without ever replacing a file another process put there."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    for candidate in _candidates(dst):
        try:
            _claim(src, candidate)
        except FileExistsError:
            continue
        os.unlink(src)
        return candidate
    raise AssertionError("unreachable: _candidates never ends")


def _claim(src: str | Path, name: Path) -> None:
    """Give ``src``'s data the name ``name``; FileExistsError when the name is taken."""
    try:
        os.link(src, name)
    except FileExistsError:
        raise
    except OSError:
        # No hard links here (FAT, some network shares): claim the name exclusively, then fill it.
        os.close(os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        shutil.copyfile(src, name)


def _candidates(path: Path):
    yield path
    n = 2
    while True:
        yield path.with_name(f"{path.stem}_{n}{path.suffix}")
        n += 1


def unique_path(path: Path) -> Path:
    """``path`` if free, else ``stem_2.md``, ``stem_3.md`` ..."""
    return next(c for c in _candidates(path) if not c.exists())
