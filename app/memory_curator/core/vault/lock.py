"""A cross-process write lock for one vault.

The desktop app, the CLI and the servers may write to one vault at the same time. Each change reads a file,
writes it and updates the index; holding this lock around that sequence means two processes never interleave
it (no lost update, no file without its row). Readers never take it. The lock is ``filelock``'s lock on
``.memory-curator/write.lock``: ``flock`` on POSIX, ``LockFileEx`` on Windows (where the hand-written
``msvcrt.locking`` it replaces gave up after 10 s of waiting), released by the OS if a process dies.

A waiting writer retries every ``POLL_S``, so a long run that releases the lock between its batches and takes it
again at once would keep it from a writer forever (a save waited 13 s, the whole relabel run, in
bench/graph_bench.py --relabel). So a writer that has to wait touches ``write.lock.waiting`` while it does; the
run asks ``waited`` as it goes (ending its batch early when a writer waits) and calls ``let_waiters_in`` between
batches, which pauses one poll when a writer has waited since it last looked.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from memory_curator.core.vault.files import storage_error

LOCK_NAME = "write.lock"
WAITING_NAME = "write.lock.waiting"  # touched by a writer while it waits for the lock
POLL_S = 0.05  # how often a waiting writer tries the lock again
PAUSE_S = 1.2 * POLL_S  # a run's pause for a waiting writer: one of its polls, and a margin


class VaultLock:
    """Re-entrant within one process (a service's nested calls), exclusive between threads and processes."""

    def __init__(self, state_dir: Path):
        self.path = Path(state_dir) / LOCK_NAME
        # One thread at a time reaches the file lock (the RLock decides among this process's threads), so the
        # file lock's own state need not be per thread.
        self._local = threading.RLock()
        self._depth = 0
        self._file = FileLock(self.path, mode=0o644, thread_local=False)
        self._waiting = Path(state_dir) / WAITING_NAME
        self._seen_waiting = self._waiting_mtime()  # when a writer last said it waits, as this lock last saw it
        self._owed = False  # a writer waited: let_waiters_in pauses for it

    @contextmanager
    def hold(self, *, wait: bool = True) -> Iterator[bool]:
        """Yields True while held. With ``wait=False`` it yields False at once (holding nothing) when another
        process or thread has the lock: for background work that can simply try again later. Waiting has no
        time limit: a writer holds the lock for one change."""
        if not self._local.acquire(blocking=False):
            if not wait:
                yield False
                return
            self._announce()  # another thread of this process holds it
            self._local.acquire()
        try:
            if self._depth == 0 and not self._acquire(wait):
                yield False
                return
            self._depth += 1
            try:
                yield True
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._file.release()
        finally:
            self._local.release()

    def _acquire(self, wait: bool) -> bool:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            while True:
                try:
                    self._file.acquire(blocking=False)
                    return True
                except Timeout:
                    if not wait:
                        return False
                    self._announce()
                    # This thread's own wait is no reason for it to end its batches early once it holds the
                    # lock (a thread of this process waiting on the RLock above is: it is seen).
                    self._seen_waiting = self._waiting_mtime()
                    time.sleep(POLL_S)
        except OSError as exc:  # a read-only vault: every write stops here, with a message saying so
            raise storage_error(self.path, exc, "lock") from exc

    def _announce(self) -> None:
        try:
            with open(self._waiting, "a"):
                pass
            os.utime(self._waiting)
        except OSError:
            pass  # nobody learns that this writer waits: it gets the lock when the run ends, as before

    def _waiting_mtime(self) -> int | None:
        try:
            return self._waiting.stat().st_mtime_ns
        except OSError:
            return None

    def waited(self) -> bool:
        """Whether a writer of another thread or process has waited for the lock since ``let_waiters_in`` last
        paused (one stat: cheap enough to ask between the items of a batch)."""
        mtime = self._waiting_mtime()
        if mtime is not None and mtime != self._seen_waiting:
            self._seen_waiting = mtime
            self._owed = True
        return self._owed

    def let_waiters_in(self) -> bool:
        """Between the batches of a long run, holding nothing: when a writer has waited (``waited``), pause long
        enough (one of its polls) for it to take the lock. True if it paused. A writer that misses the pause
        (descheduled on a busy machine) ends the next batch after one memory, and gets the next pause."""
        if not self.waited():
            return False
        self._owed = False
        time.sleep(PAUSE_S)
        return True
