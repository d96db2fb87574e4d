"""Reading many vault files at once (a rebuild) into index rows, in a helper process when a core is free.

Parsing frontmatter and preparing rows is half of a rebuild, writing SQLite the other half; a helper process
does the first while this one does the second. The helper is ``python -m memory_curator.core.bulk_read``
talking over pipes, not ``multiprocessing``: that would run the caller's main script again in the helper,
and a library cannot ask every script that rebuilds an index for an ``if __name__ == "__main__"`` guard.

Small vaults, one-core machines and frozen builds read in-process, and so does whatever is left when the
helper cannot start or dies: the rows are the same either way.
"""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from memory_curator.core.errors import ConflictedFile, VaultFileError
from memory_curator.core.index.store import MemoryRow, memory_row
from memory_curator.core.vault.store import FileStat, Vault

log = logging.getLogger(__name__)

HELPER_MIN_FILES = 5000  # fewer are read before a helper process would have started
CHUNK = 1000  # files per hand-over: the writer waits for one chunk at the start, no longer


@dataclass(frozen=True)
class FileRow:
    rel: str
    row: MemoryRow | None  # None when the file could not be used
    problem: str | None = None  # with a row: a file in conflict, the row being this machine's side


def read_rows(root: str, stats: Sequence[FileStat]) -> list[FileRow]:
    """Read and convert ``stats``; broken files come back with the reason, as ``Vault.read`` gives it."""
    vault = Vault(Path(root))
    out = []
    for st in stats:
        try:
            item = vault.read(st.rel)
        except ConflictedFile as exc:
            row = None if exc.item is None else memory_row(exc.item, st.rel, st.mtime_ns, st.size)
            out.append(FileRow(st.rel, row, exc.reason))
        except VaultFileError as exc:
            out.append(FileRow(st.rel, None, exc.reason))
        else:
            out.append(FileRow(st.rel, memory_row(item, st.rel, st.mtime_ns, st.size)))
    return out


def helper_wanted(n_files: int) -> bool:
    return n_files >= HELPER_MIN_FILES and (os.cpu_count() or 1) >= 2 and not getattr(sys, "frozen", False)


def chunks(vault: Vault, stats: Sequence[FileStat], *, helper: bool | None = None) -> Iterator[list[FileRow]]:
    """Rows of ``stats`` in order, a chunk at a time. Close the iterator (``contextlib.closing``) when
    stopping early, so the helper process stops too."""
    root = str(vault.root)
    parts = [stats[i : i + CHUNK] for i in range(0, len(stats), CHUNK)]
    done = 0  # chunks handed to the caller
    proc = _start_helper(root, stats) if (helper_wanted(len(stats)) if helper is None else helper) else None
    if proc is not None:
        try:
            while done < len(parts):
                try:
                    rows = pickle.load(proc.stdout)  # type: ignore[arg-type]
                except Exception as exc:  # noqa: BLE001 - whatever a dying helper left half-written, read here instead
                    log.warning("The helper process stopped (%s); reading the remaining files here.", exc or "exited")
                    break
                done += 1
                yield rows
        finally:
            _stop(proc, finished=done == len(parts))
    for part in parts[done:]:
        yield read_rows(root, part)


def _start_helper(root: str, stats: Sequence[FileStat]) -> subprocess.Popen | None:
    package_parent = str(Path(__file__).resolve().parents[2])  # where `memory_curator` is importable from
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))}
    try:
        proc = subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                env=env, creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0))  # no console flash
    except OSError as exc:
        log.warning("No helper process for reading files (%s); reading them here.", exc)
        return None
    try:
        with proc.stdin:  # type: ignore[union-attr]
            work = (root, CHUNK, [(st.rel, st.mtime_ns, st.size) for st in stats])  # tuples pickle 5x faster
            pickle.dump(work, proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)  # type: ignore[arg-type]
    except OSError as exc:  # it died before taking its work
        log.warning("The helper process for reading files stopped (%s); reading them here.", exc)
        _stop(proc)
        return None
    return proc


def _stop(proc: subprocess.Popen, *, finished: bool = False) -> None:
    """Wait for a helper that has sent everything to exit on its own; kill one stopped early."""
    if finished:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def serve(inp: BinaryIO, out: BinaryIO) -> None:
    """The helper's side: read (root, chunk size, stats), write the rows a chunk at a time. The pipe's buffer is the
    read-ahead: the helper waits while the writer has a chunk in hand that it has not taken."""
    root, chunk, plain = pickle.load(inp)
    stats = [FileStat(*t) for t in plain]
    for i in range(0, len(stats), chunk):
        pickle.dump(read_rows(root, stats[i : i + chunk]), out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()


if __name__ == "__main__":
    # This module under its own name, so that rows unpickle as its FileRow, not as __main__'s.
    from memory_curator.core import bulk_read

    try:
        bulk_read.serve(sys.stdin.buffer, sys.stdout.buffer)
    except BrokenPipeError:  # the rebuild was cancelled
        pass
