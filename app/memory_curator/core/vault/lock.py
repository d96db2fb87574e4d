"""A cross-process write lock for one vault.

The desktop app, the CLI and the servers may write to one vault at the same time. Each change reads a file,
writes it and updates the index; holding this lock around that sequence means two processes never interleave
it (no lost update, no file without its row). Readers never take it. The lock is ``filelock``'s lock on
``.memory-curator/write.lock``: ``flock`` on POSIX, ``LockFileEx`` on Windows (where the hand-written
``msvcrt.locking`` it replaces gave up after 10 s of waiting), released by the OS if a process dies.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from memory_curator.core.vault.files import storage_error

LOCK_NAME = "write.lock"


class VaultLock:
    """Re-entrant within one process (a service's nested calls), exclusive between threads and processes."""

    def __init__(self, state_dir: Path):
        self.path = Path(state_dir) / LOCK_NAME
        # One thread at a time reaches the file lock (the RLock decides among this process's threads), so the
        # file lock's own state need not be per thread.
        self._local = threading.RLock()
        self._depth = 0
        self._file = FileLock(self.path, mode=0o644, thread_local=False)

    @contextmanager
    def hold(self, *, wait: bool = True) -> Iterator[bool]:
        """Yields True while held. With ``wait=False`` it yields False at once (holding nothing) when another
        process or thread has the lock: for background work that can simply try again later. Waiting has no
        time limit: a writer holds the lock for one change."""
        if not self._local.acquire(blocking=wait):
            yield False
            return
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
            self._file.acquire(blocking=wait)
        except Timeout:
            return False
        except OSError as exc:  # a read-only vault: every write stops here, with a message saying so
            raise storage_error(self.path, exc, "lock") from exc
        return True
