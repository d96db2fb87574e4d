"""Copying the write-ahead log back into the database where nobody waits for it.

SQLite copies the WAL into the database (a checkpoint: ~1,000 pages and an fsync) at the end of whichever commit
finds the WAL past 1,000 pages. A search's commit is its access record (a few dozen pages), so every ~30th
search paid for the others' pages: at 100,000 memories the record's p99 was 38-42 ms where its p50 is 1-2 ms.
A transaction that asks for it (``IndexStore.transaction(checkpoint=False)``) commits without that, and this
thread, on a connection of its own, runs a passive checkpoint (it waits for no reader or writer) at most every
``GAP_S`` after such commits. Every other commit still checkpoints as SQLite does, so a long write (a rebuild,
an import) keeps the WAL bounded by itself.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from memory_curator.core.index.db import connect

log = logging.getLogger(__name__)

GAP_S = 0.5  # searches every 20 ms give a checkpoint ~25 records' pages, fewer than SQLite's 1,000 by itself


class Checkpointer:
    """A daemon thread, started at the first ``committed``, that checkpoints ``path`` passively after commits."""

    def __init__(self, path: Path | str, gap_s: float = GAP_S):
        self._path, self._gap_s = str(path), gap_s
        self._cond = threading.Condition()
        self._asked = self._closing = False
        self._thread: threading.Thread | None = None
        self.done = 0  # checkpoints run (tests read it)
        # The thread could not open its connection (or the database has no WAL): commits checkpoint as SQLite does.
        self.failed = self._path == ":memory:"

    def committed(self) -> None:
        """A commit that left its pages in the WAL: checkpoint them soon, on the thread."""
        with self._cond:
            if self._closing or self._asked:  # already asked: waking the thread again would only cost the GIL
                return
            self._asked = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="memory-curator-checkpoint", daemon=True)
                self._thread.start()
            self._cond.notify()

    def close(self, timeout: float = 2.0) -> None:
        """Stop the thread (a checkpoint under way ends first); the connection's close checkpoints the rest."""
        with self._cond:
            self._closing = True
            self._cond.notify()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _next(self, last: float) -> bool:
        """Wait for a commit, then for the gap since the last checkpoint; False when closing."""
        with self._cond:
            while not self._asked and not self._closing:
                self._cond.wait()
            while not self._closing and (wait := last + self._gap_s - time.monotonic()) > 0:
                self._cond.wait(wait)
            self._asked = False  # commits from here on ask for the next checkpoint
            return not self._closing

    def _loop(self) -> None:
        try:
            conn = connect(self._path)
        except Exception:  # noqa: BLE001 - the index's own commits checkpoint again (see IndexStore.transaction)
            log.warning("The index's checkpoint thread could not open %s", self._path, exc_info=True)
            self.failed = True
            return
        last = time.monotonic()  # the first checkpoint waits the gap too: the commits meanwhile join it
        try:
            while self._next(last):
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except Exception:  # noqa: BLE001 - a full or failing disk: the next commits say so to the user
                    log.warning("Checkpointing the index failed", exc_info=True)
                last = time.monotonic()
                self.done += 1
        finally:
            conn.close()
