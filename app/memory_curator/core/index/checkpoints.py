"""Copying the write-ahead log into the database ahead of the commit that would do it.

SQLite copies the WAL into the database (a checkpoint: the pages written since the last one, and an fsync) at
the end of whichever commit finds the WAL past 1,000 pages, and that commit starts the WAL again. A search's
commit is its access record (a few dozen pages; written since by the recalls' thread, core/lifecycle/recalls.py,
whose batches commit this way), so every ~30th search paid for the others' pages: at 100,000
memories the record's p99 was 30-43 ms where its p50 is 1-2 ms. After a commit that asks for it
(``IndexStore.transaction(checkpoint=False)``) this thread, on a connection of its own, runs a passive
checkpoint (it waits for no reader or writer) at most every ``GAP_S``; the commit past the threshold then
finds most pages copied. That commit still checkpoints: a checkpoint elsewhere cannot start the WAL again
while commits keep coming (the next writer starts it only when every frame is copied as it begins), and with
SQLite's own checkpoint off the WAL grew by 6 MB every 50 searches (47.5 MB after 400).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from memory_curator.core.index.db import connect
from memory_curator.core.kicked import Kicked

log = logging.getLogger(__name__)

GAP_S = 0.1  # searches every 10-20 ms: a checkpoint copies 5-10 records' pages (~200), the threshold's commit the rest


class Checkpointer(Kicked):
    """A daemon thread, started at the first ``committed``, that checkpoints ``path`` passively after commits."""

    CLOSE_S = 2.0  # a checkpoint under way ends before the thread does

    def __init__(self, path: Path | str, gap_s: float = GAP_S):
        super().__init__("memory-curator-checkpoint")
        self._path, self._gap_s = str(path), gap_s
        self.done = 0  # checkpoints run (tests read it)
        # The thread could not open its connection (or the database has no WAL): nothing is copied ahead.
        self.failed = self._path == ":memory:"

    def committed(self) -> None:
        """A commit that left its pages in the WAL: checkpoint them soon, on the thread."""
        with self._cond:
            if self._asked > self._served and self._thread is not None and not self._closing:
                self._asked += 1  # counted, not woken: the thread serves it after its gap (a wake-up costs the GIL)
                return
        self.kick()

    def _next(self, last: float) -> int | None:
        """Wait for a commit, then for the gap since the last checkpoint: the kicks it serves, or None to end."""
        with self._cond:
            while self._served >= self._asked and not self._closing:
                self._cond.wait()
            while not self._closing and (wait := last + self._gap_s - time.monotonic()) > 0:
                self._cond.wait(wait)
            return None if self._closing else self._asked  # commits from here on ask for the next checkpoint

    def _loop(self) -> None:
        try:
            conn = connect(self._path)
        except Exception:  # noqa: BLE001 - the commits past SQLite's threshold still checkpoint
            log.warning("The index's checkpoint thread could not open %s", self._path, exc_info=True)
            self.failed = True
            return
        last = time.monotonic()  # the first checkpoint waits the gap too: the commits meanwhile join it
        try:
            while (serving := self._next(last)) is not None:
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except Exception:  # noqa: BLE001 - a full or failing disk: the next commits say so to the user
                    log.warning("Checkpointing the index failed", exc_info=True)
                last = time.monotonic()
                self.done += 1
                with self._cond:
                    self._served = serving
        finally:
            conn.close()
