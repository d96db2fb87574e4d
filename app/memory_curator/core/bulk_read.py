"""Reading many vault files at once (a rebuild) into index rows, in helper processes when there are cores.

Parsing frontmatter and preparing rows (full-text stems, entity names) costs about twice what writing them to
SQLite does, so helper processes share the reading (each takes every n-th chunk of files) while this one
writes: on 2 cores two helpers and the writer keep both busy, where one helper left the writer waiting half
of the time. The helper is ``python -m memory_curator.core.bulk_read``
talking over pipes, not ``multiprocessing``: that would run the caller's main script again in the helper,
and a library cannot ask every script that rebuilds an index for an ``if __name__ == "__main__"`` guard.

Small vaults, one-core machines and frozen builds read in-process, and so does whatever is left when the
helper cannot start or dies: the rows are the same either way.
"""

from __future__ import annotations

import gc
import itertools
import logging
import os
import pickle
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, NamedTuple

from memory_curator.core.errors import ConflictedFile, VaultFileError
from memory_curator.core.index.rows import MemoryRow, memory_row
from memory_curator.core.vault.store import FileStat, Vault

log = logging.getLogger(__name__)

HELPER_MIN_FILES = 5000  # fewer are read before a helper process would have started
CHUNK = 1000  # files per hand-over: the writer waits for one chunk at the start, no longer
MAX_HELPERS = 3  # with more, the writer is what the rebuild waits for
AHEAD = 3  # chunks per helper taken off its pipe before the writer asks for them


class FileRow(NamedTuple):  # not a dataclass: a rebuild makes one per file on both sides of the pipe
    rel: str
    row: MemoryRow | None  # None when the file could not be used
    problem: str | None = None  # with a row: a file in conflict, the row being this machine's side


def read_rows(root: str, stats: Sequence[FileStat]) -> list[FileRow]:
    """Read and convert the files of ``stats``; broken files come back with the reason, as ``Vault.read`` gives
    it. A row records the modification time and size of the file as read (the stats may be a scan's names only)."""
    vault = Vault(Path(root))
    out = []
    for st in stats:
        try:
            item, got = vault.read_stat(st.rel)
        except ConflictedFile as exc:
            got = exc.file_stat
            row = None if exc.item is None else memory_row(exc.item, st.rel, got.mtime_ns, got.size)
            out.append(FileRow(st.rel, row, exc.reason))
        except VaultFileError as exc:
            out.append(FileRow(st.rel, None, exc.reason))
        else:
            out.append(FileRow(st.rel, memory_row(item, st.rel, got.mtime_ns, got.size)))
    return out


def helper_wanted(n_files: int) -> bool:
    return n_files >= HELPER_MIN_FILES and (os.cpu_count() or 1) >= 2 and not getattr(sys, "frozen", False)


def helper_count() -> int:
    """Helper processes for a large read: as many as cores (up to MAX_HELPERS). On 2 cores that is one more
    process than cores, on purpose: the writer spends most of its time waiting for rows."""
    return max(1, min(MAX_HELPERS, os.cpu_count() or 1))


class Chunks:
    """Rows of ``stats`` in order, a chunk at a time, read by ``helpers`` processes (0: in this one; None: decided by
    the number of files and cores). The helpers start when this is made, not at the first chunk asked for: a
    rebuild makes it before it empties the index, so their start (an interpreter and its imports each) overlaps
    that. Close it (``contextlib.closing``) when done or stopping early, so the helper processes stop too."""

    def __init__(self, vault: Vault, stats: Sequence[FileStat], *, helpers: int | None = None):
        self._root = str(vault.root)
        self._parts = [stats[i : i + CHUNK] for i in range(0, len(stats), CHUNK)]
        self._done = 0  # chunks handed to the caller
        if helpers is None:
            helpers = helper_count() if helper_wanted(len(stats)) else 0
        n = min(helpers, len(self._parts))
        self._procs: list[subprocess.Popen] = []
        for k in range(n):  # helper k reads chunks k, k + n, k + 2n... and sends them in that order
            proc = _start_helper(self._root, [st for part in self._parts[k::n] for st in part])
            if proc is None:
                break
            self._procs.append(proc)
        self._takers: list[_Taker] = []
        if len(self._procs) == n:
            self._takers = [_Taker(proc, len(self._parts[k::n])) for k, proc in enumerate(self._procs)]
        else:
            self._stop()
        self._rows = self._taken()

    def __iter__(self) -> Iterator[list[FileRow]]:
        return self

    def __next__(self) -> list[FileRow]:
        return next(self._rows)

    def close(self) -> None:
        self._rows.close()
        self._stop()

    def _taken(self) -> Iterator[list[FileRow]]:
        parts, takers = self._parts, self._takers
        while takers and self._done < len(parts):
            try:
                rows = takers[self._done % len(takers)].get()
            except Exception as exc:  # noqa: BLE001 - whatever a dying helper left half-written, read here instead
                log.warning("A helper process stopped (%s); reading the remaining files here.", exc or "exited")
                break
            self._done += 1
            yield rows
        self._stop()
        for part in parts[self._done :]:
            yield read_rows(self._root, part)

    def _stop(self) -> None:
        finished = self._done == len(self._parts)
        for proc, taker in itertools.zip_longest(self._procs, self._takers):
            if taker is not None:
                taker.stopping.set()
            _stop(proc, finished=finished, reader=None if taker is None else taker.thread)
        self._procs, self._takers = [], []


def _start_helper(root: str, stats: Sequence[FileStat]) -> subprocess.Popen | None:
    package_parent = str(Path(__file__).resolve().parents[2])  # where `memory_curator` is importable from
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))}
    try:
        proc = subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                env=env, creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0))  # no console flash
    except OSError as exc:
        log.warning("No helper process for reading files (%s); reading them here.", exc)
        return None
    work = (root, CHUNK, [(st.rel, st.mtime_ns, st.size) for st in stats])  # tuples pickle 5x faster
    # Sent from a thread: the helper takes it only once its imports are done, and the next helper can start
    # importing meanwhile. A helper that dies before taking it is noticed when its first rows do not come.
    threading.Thread(target=_send, args=(proc, work), daemon=True, name="bulk-read-work").start()
    return proc


def _send(proc: subprocess.Popen, work: tuple) -> None:
    try:
        with proc.stdin:  # type: ignore[union-attr]
            pickle.dump(work, proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)  # type: ignore[arg-type]
    except (OSError, ValueError) as exc:  # it died (or was stopped) before taking its work
        log.info("A helper process did not take its work (%s).", exc)


class _Taker:
    """Takes a helper's chunks off its pipe as they come, up to AHEAD of the writer, in a thread. The writer takes
    the helpers' chunks in turn; read only then, a helper that had finished its next chunk waited, unable to send
    it, while the writer waited for the other one (each helper blocked 7-9 s of a 45-54 s rebuild at load 5-6)."""

    def __init__(self, proc: subprocess.Popen, count: int):
        self.rows: queue.Queue[list[FileRow] | BaseException] = queue.Queue(maxsize=AHEAD)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._take, args=(proc.stdout, count), daemon=True, name="bulk-read-take")
        self.thread.start()

    def get(self) -> list[FileRow]:
        got = self.rows.get()
        if isinstance(got, BaseException):
            raise got
        return got

    def _take(self, pipe: BinaryIO, count: int) -> None:
        for _ in range(count):
            try:
                got: list[FileRow] | BaseException = _from_wire(pickle.load(pipe))
            except Exception as exc:  # noqa: BLE001 - handed to the writer, which reads the rest itself
                got = exc
            while not self.stopping.is_set():  # a writer that stopped early takes nothing more
                try:
                    self.rows.put(got, timeout=0.1)
                    break
                except queue.Full:
                    continue
            if isinstance(got, BaseException) or self.stopping.is_set():
                return


def _stop(proc: subprocess.Popen, *, finished: bool = False, reader: threading.Thread | None = None) -> None:
    """Wait for a helper that has sent everything to exit on its own; kill one stopped early. ``reader``, the
    thread reading its pipe, ends before the pipe is closed (a dead helper's pipe gives it the end of file)."""
    if finished:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    if reader is not None:
        reader.join()
    if proc.stdout is not None:
        proc.stdout.close()


def _to_wire(rows: list[FileRow]) -> list[tuple]:
    """Rows as plain tuples for the pipe: pickling the named tuples and dataclasses (a class reference with each
    of a row's dozen mentions and links) took four times as long, on both sides. (Mentions and links are plain.)"""
    return [(f.rel, None if f.row is None else tuple(f.row), f.problem) for f in rows]


def _from_wire(rows: list[tuple]) -> list[FileRow]:
    return [FileRow(rel, None if row is None else MemoryRow(*row), problem) for rel, row, problem in rows]


def serve(inp: BinaryIO, out: BinaryIO) -> None:
    """The helper's side: read (root, chunk size, stats), write the rows a chunk at a time. The writer takes them as
    they come, up to AHEAD chunks before it asks for them; past that the helper waits."""
    root, chunk, plain = pickle.load(inp)
    stats = [FileStat(*t) for t in plain]
    # Reading makes no reference cycles (none found in the bench vault or in hostile files), yet the collector
    # ran every 700 new rows' worth of tuples, over everything imported too: 3% of a helper's time. What is
    # there now is kept out of collections; the rest is collected a seventieth as often.
    gc.freeze()
    gc.set_threshold(50_000)
    for i in range(0, len(stats), chunk):
        pickle.dump(_to_wire(read_rows(root, stats[i : i + chunk])), out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()


if __name__ == "__main__":
    # This module under its own name, so that rows unpickle as its FileRow, not as __main__'s.
    from memory_curator.core import bulk_read

    try:
        bulk_read.serve(sys.stdin.buffer, sys.stdout.buffer)
    except BrokenPipeError:  # the rebuild was cancelled
        pass
