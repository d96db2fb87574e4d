"""A search's recalls written in batches, off the path of most searches.

A search's access record (``access.record``: the stats upsert, the log rows, the importance refresh, the daily
prune) is one write transaction: 0.1-3.2 ms at 1,000,000 memories, paid by every search after its ranking. Here
the search queues its recall (the ids, the kind, the time of the search) and returns. The queue is written in
one transaction, each recall with the time its search stamped, so the rows are the ones the searches wrote
themselves before (same times, counts, kinds and importance, in the same order):
- by the engine's own connection, at the end of the first search that finds the oldest queued recall
  ``batch_s`` old (``write_due``), and wherever the engine settles (below);
- by this unit's thread, on a connection of its own, when the engine has left the queue unwritten
  ``batch_s + LAG_S`` (no search came since, or the engine thread is busy elsewhere).
Why not the thread for every batch: a commit on another connection empties the engine connection's page cache
and its memory map (SQLite's pager starts again when the WAL changed under it): +4.7 ms of CPU for the next
search at 100,000 memories, +1.7 at 1,000,000 (less of its file is mapped), where the record in place costs
0.6-0.8. Written by a thread after each search, searches were 1.44 x slower at the median; batches left to the
thread, against the engine's own, in one process (rounds of 50 rotating, load 9-11): search-thread CPU per
round 1.02 vs 0.93 x the record in place at 100,000 (mean; p95 13.2 vs 11.2 ms), 0.98 vs 0.95 x at 1,000,000.
So the thread writes only what the engine leaves waiting.

What the engine reads sees the recalls queued before it, written or not:
- memories read with their statistics (get, lists, a search's hits: IndexStore's item reads) count the queued
  recalls in (``overlay``: the count, the last time, the importance as the write will compute it), under
  ``reading``, which a batch holds from taking the queue to its commit, so no recall is counted twice;
- what SQL sorts or sums by them (lists by access count, importance, decay, stats) and every write transaction
  of the engine has the queue written first (``settle``, through IndexStore.settle);
- ``close`` writes what is left. Other connections (another process, another engine of this process) see the
  recalls once written: within ``batch_s`` while searches come, ``batch_s + LAG_S`` after the last. A crash loses
  what was queued and not yet written: at most that much; while another program holds the index's write lock,
  up to the busy timeout's (15 s) worth.

Like the synchronous record it replaces, a batch takes SQLite's write lock (BEGIN IMMEDIATE, with the busy
timeout), not the vault's write lock: it writes no file. A batch that fails (a read-only index, the index locked
by another program past the busy timeout, a full disk) stays queued and is tried again after ``retry_s``;
meanwhile reads do not wait for it, and the search that queued it has already answered (it used to fail with
the record). At most ``MAX_QUEUED`` recalls wait; beyond that the oldest are dropped, with a warning.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from memory_curator.core.config import MemoryConfig
from memory_curator.core.errors import CuratorError
from memory_curator.core.index import lifecycle as rows
from memory_curator.core.index.db import BUSY_TIMEOUT_MS
from memory_curator.core.index.store import IndexStore, parse_dt
from memory_curator.core.kicked import Kicked
from memory_curator.core.lifecycle import access
from memory_curator.core.lifecycle.importance import score
from memory_curator.core.model import MemoryItem, utcnow
from memory_curator.core.vault.codec import format_dt

log = logging.getLogger(__name__)

BATCH_S = 0.5  # a batch is written by the first search this long after its first recall
LAG_S = 0.25  # ... or by the thread, this much later, when no search has
RETRY_S = 5.0  # after a failed batch: a read-only or locked index is not tried at every search
MAX_QUEUED = 100_000  # recalls kept while their writes fail (~100 bytes each with their ids)


@dataclass(frozen=True, slots=True)
class Recall:
    ids: tuple[str, ...]
    kind: str
    at: datetime


class RecallWriter(Kicked):
    """Queued recalls of one index: written by the engine (``write_due``, ``settle``), or by a daemon thread,
started at the first ``queue``, when the engine leaves them waiting."""

    # close writes what is queued: a batch may wait SQLite's busy timeout for another program's write lock.
    CLOSE_S = BUSY_TIMEOUT_MS / 1000 + 5.0

    def __init__(self, index_path: Path, root: Path, config: MemoryConfig, *, batch_s: float = BATCH_S,
                 retry_s: float = RETRY_S):
        super().__init__("memory-curator-recalls")
        self._path, self._root, self._config = index_path, root, config
        self._batch_s, self._retry_s = batch_s, retry_s
        # Held by a batch from taking the queue to its commit, or by a read being overlaid; re-entrant: the engine's
        # own batch may read memories (nothing does today) without locking itself out.
        self._gate = threading.RLock()
        self._queue: list[Recall] = []
        self._pending: dict[str, tuple[int, datetime]] = {}  # memory id -> (queued recalls, the last one's time)
        self._first_at: float | None = None  # when the oldest queued recall came (monotonic)
        self._queued = 0  # recalls queued so far; they are written (or dropped) in that order
        self._done = 0  # recalls written or dropped so far
        self._failed_at: float | None = None  # when the last batch failed; None after one succeeds
        self._ended = False
        self.batches = 0  # transactions written (tests, benchmarks)

    # -- the engine's side ----------------------------------------------------------------------------

    def queue(self, memory_ids: Sequence[str], kind: str, at: datetime | None = None) -> None:
        """A recall of each memory, at ``at`` (default now: the search's time, not the write's)."""
        recall = Recall(tuple(dict.fromkeys(memory_ids)), kind, at or utcnow())
        with self._cond:
            if self._closing:
                log.warning("A recall came after the vault was closed; it is not logged")
                return
            self._queue.append(recall)
            self._queued += 1
            self._count_in(recall)
            if len(self._queue) > MAX_QUEUED:  # a tenth at a time: the recount is not paid at every search
                dropped = len(self._queue) - MAX_QUEUED * 9 // 10
                del self._queue[:dropped]
                self._done += dropped
                self._recount()
                log.warning("%d recalls could not be written to the index and were dropped", dropped)
            first = self._first_at is None
            if first:
                self._first_at = time.monotonic()
        if first:  # the thread sleeps until the batch is due: later recalls need not wake it
            self.kick()

    @property
    def pending(self) -> int:
        """Recalls queued and not yet written."""
        with self._cond:
            return self._queued - self._done

    def settle(self, store: IndexStore) -> None:
        """Write every recall queued so far now, on ``store`` (the engine's connection), after the batch the
        thread may be writing. While writing fails (the recalls are kept and tried again later) nothing is
        tried before ``retry_s``, and a failure is logged, not raised: reads go on."""
        with self._cond:
            if self._done >= self._queued or self._retrying():
                return
        try:
            self._write(store)
        except Exception as exc:  # noqa: BLE001 - the user's environment or our bug: kept, tried again
            self._failed(exc)

    def write_due(self, store: IndexStore) -> None:
        """After a search: the store settles when the oldest queued recall is ``batch_s`` old (not inside a
        transaction of the caller's, which the recalls would join)."""
        with self._cond:
            due = self._first_at is not None and time.monotonic() - self._first_at >= self._batch_s
        if due:
            store.settle()

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Around a read of memories and its ``overlay``: no batch is being written meanwhile, so each queued
        recall is either in the rows read or still queued, never both."""
        with self._gate:
            yield

    def overlay(self, store: IndexStore, items: list[MemoryItem]) -> list[MemoryItem]:
        """``items`` as read (inside ``reading``), with the recalls queued for them counted in: the count, the
        last time, and the importance the write will store (computed at that time, as ``access.record`` does)."""
        with self._cond:
            hits = {it.id: self._pending[it.id] for it in items if it.id in self._pending}
        if not hits:
            return items
        by_time: dict[datetime, list[str]] = {}
        for mid, (_, at) in hits.items():
            by_time.setdefault(at, []).append(mid)
        computed: dict[str, float] = {}
        for at, ids in by_time.items():
            for mid, created, override, _, logged in rows.importance_inputs(store, access.window_start(
                    self._config, at), ids):
                computed[mid] = score(mid, recent_accesses=logged + hits[mid][0], created_at=parse_dt(created),  # type: ignore[arg-type]
                                      last_accessed=parse_dt(format_dt(at)), now=at, override=override).computed
        out = []
        for it in items:
            if it.id in hits and it.id in computed:
                n, at = hits[it.id]
                it = replace(it, access_count=it.access_count + n, last_accessed=parse_dt(format_dt(at)),
                             importance=it.importance if it.importance_override is not None else computed[it.id])
            out.append(it)
        return out

    # -- writing --------------------------------------------------------------------------------------

    def _count_in(self, recall: Recall) -> None:
        for mid in recall.ids:
            n, _ = self._pending.get(mid, (0, recall.at))
            self._pending[mid] = (n + 1, recall.at)

    def _recount(self) -> None:
        self._pending = {}
        for recall in self._queue:
            self._count_in(recall)

    def _retrying(self) -> bool:
        return self._failed_at is not None and time.monotonic() - self._failed_at < self._retry_s

    def _loop(self) -> None:
        store: IndexStore | None = None
        try:
            while self._next():
                try:
                    if store is None:
                        store = IndexStore.open(self._path, self._root)
                    self._write(store)
                except Exception as exc:  # noqa: BLE001 - the user's environment or our bug: kept, tried again
                    self._failed(exc)
        finally:
            with self._cond:
                self._ended = True
                self._cond.notify_all()
            if store is not None:
                store.close()

    def _next(self) -> bool:
        """Block until the engine has left a batch unwritten ``batch_s + LAG_S`` (``retry_s`` after a failure;
        at once when the unit closes); False to end."""
        with self._cond:
            while True:
                if not self._queue:
                    if self._closing:
                        return False
                    self._cond.wait()
                    continue
                if self._failed_at is not None:
                    due = self._failed_at + self._retry_s
                else:
                    due = (self._first_at or 0.0) + self._batch_s + LAG_S
                wait = due - time.monotonic()
                if self._closing or wait <= 0:
                    return True
                self._cond.wait(wait)

    def _write(self, store: IndexStore) -> None:
        """One batch: everything queued, in one transaction. The gate is taken once SQLite's write lock is ours
        (the engine and the thread take them in that order), so a read waits for the batch's writing, never for
        another program's lock."""
        batch: list[Recall] = []
        gated = False
        try:
            with store.transaction(checkpoint=False, settle=False):  # the WAL is copied on a thread of its own
                self._gate.acquire()
                gated = True
                with self._cond:
                    batch, self._queue, self._pending = self._queue, [], {}
                    self._first_at = None
                for recall in batch:
                    access.record(store, list(recall.ids), recall.kind, self._config, recall.at)
            with self._cond:
                self._done += len(batch)
                self._failed_at = None
                self.batches += bool(batch)
                self._cond.notify_all()
        except BaseException:
            with self._cond:  # back in front: the recalls are written in the order they came
                self._queue[:0] = batch
                self._recount()
                if self._queue and self._first_at is None:
                    self._first_at = time.monotonic()
            raise
        finally:
            if gated:
                self._gate.release()

    def _failed(self, exc: Exception) -> None:
        """After a failed batch (back in the queue): tried again after ``retry_s``; when closing, that was the last
        try: what is left is lost, and said so."""
        with self._cond:
            first, closing = self._failed_at is None, self._closing
            self._failed_at = time.monotonic()
            lost = len(self._queue) if closing else 0
            if closing:
                self._done += lost
                self._queue, self._pending = [], {}
            self._cond.notify_all()
        if first or closing:
            what = f"{lost} are lost" if closing else f"trying again every {self._retry_s:g} s"
            # The user's environment (a read-only or locked index, a full disk) is a message; a bug keeps its traceback.
            log.warning("Recalls of searches could not be written to the index (%s): %s", what, exc,
                        exc_info=not isinstance(exc, CuratorError))
