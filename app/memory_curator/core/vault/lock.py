"""A cross-process write lock for one vault.

The desktop app, the CLI and the servers may write to one vault at the same time. Each change reads a file,
writes it and updates the index; holding this lock around that sequence means two processes never interleave
it (no lost update, no file without its row). Readers never take it. The lock is an advisory ``flock`` on
``.memory-curator/write.lock`` (``msvcrt.locking`` on Windows), released by the OS if a process dies.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt

LOCK_NAME = "write.lock"


class VaultLock:
    """Re-entrant within one process (a service's nested calls), exclusive between processes."""

    def __init__(self, state_dir: Path):
        self.path = Path(state_dir) / LOCK_NAME
        self._local = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    @contextmanager
    def hold(self, *, wait: bool = True) -> Iterator[bool]:
        """Yields True while held. With ``wait=False`` it yields False at once (holding nothing) when another
        process or thread has the lock: for background work that can simply try again later."""
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
                    self._release()
        finally:
            self._local.release()

    def _acquire(self, wait: bool) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            else:  # pragma: no cover - Windows
                msvcrt.locking(fd, msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
        except BlockingIOError:
            os.close(fd)
            return False
        except OSError:
            os.close(fd)
            if not wait:  # pragma: no cover - Windows reports a held lock as a plain OSError
                return False
            raise
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return True

    def _release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_UN)
            else:  # pragma: no cover - Windows
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        finally:
            os.close(fd)
