"""Embedding after the write: the memories without vectors are embedded on a thread of their own.

A save writes its file and index row and returns; embedding a memory can take seconds (a busy Ollama) or
fail (Ollama down), and neither may hold a save up. This unit runs the backfill (``Embedding.reindex_missing``)
on its own thread, with its own SQLite connection and its own embedder (never the caller's: one Ollama
client per thread). It is woken by writes, syncs and opens (``kick``); it can be paused, resumed and retried;
a failing embedder is retried after ``config.embedder_retry_s``. Explicit "embed now" requests (``run``) go
through it too, so two embedding loops never race over the same memories.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from memory_curator.core.errors import Cancelled, CuratorError, EmbedderUnavailable, EmbeddingError
from memory_curator.core.kicked import Kicked
from memory_curator.core.progress import CancelToken, PartFn, ProgressFn

log = logging.getLogger(__name__)

BATCH = 32  # memories read per round (a long memory's chunks are embedded a provider batch at a time)
WAIT_SLICE_S = 0.1  # waits are cut in slices so that Ctrl+C (a signal another thread may receive) acts at once

# States of the unit, as the status bar shows them.
IDLE, EMBEDDING, PAUSED, WAITING, STOPPED, CLOSED = "idle", "embedding", "paused", "waiting", "stopped", "closed"


class ModelChanged(EmbedderUnavailable):
    """The vault's model (vault.json) is not the one this process holds: it stops embedding, keeps vectors."""


@dataclass(frozen=True)
class EmbedProgress:
    """A snapshot of the unit: ``state`` is one of idle, embedding, paused, waiting (the embedder failed;
    retried later), stopped (another program changed the vault's model) or closed; ``done`` of ``total``
    memories in the current run; ``message`` says why it waits or stopped. ``part_done`` of ``part_total``: the
    chunks embedded so far of a long memory under way (its vectors are written once all are there)."""

    state: str
    done: int = 0
    total: int = 0
    message: str = ""
    part_done: int = 0
    part_total: int = 0

    @property
    def left(self) -> int:
        return max(0, self.total - self.done)


class Worker(Protocol):
    """What the unit runs on its thread: an ``Embedding`` over the thread's own connection."""

    def reindex_missing(self, *, progress: ProgressFn | None = None, cancel: CancelToken | None = None,
                        batch: int = 256, part: PartFn | None = None) -> int: ...

    def close(self) -> None: ...


class Backfill(Kicked):
    def __init__(self, make_worker: Callable[[], Worker], retry_s: float, name: str = "memory-curator-embedding"):
        super().__init__(name)
        self._make_worker = make_worker
        self._retry_s = max(0.5, retry_s)
        self._token = CancelToken()
        self._paused = False
        self._retry_at: float | None = None
        self._progress = EmbedProgress(IDLE)
        self._embedded = 0  # memories embedded by this unit since it started

    # -- asking ---------------------------------------------------------------------------------------

    def pause(self) -> None:
        """Stop after the provider call in progress (``config.embed_batch_size`` chunks); what was written stays (a
        long memory's chunks are written together, so one paused midway is embedded again from its start)."""
        with self._cond:
            self._paused = True
            self._token.cancel()
            if self._progress.state != EMBEDDING:
                self._set(PAUSED, self._progress.done, self._progress.total, "")
            self._cond.notify_all()

    def resume(self) -> None:
        with self._cond:
            self._paused = False
            if self._progress.state == PAUSED:
                self._set(IDLE, self._progress.done, self._progress.total, "")
        self.kick()

    def retry(self) -> None:
        """Try the embedder again now, without waiting for the retry interval (also after a model change)."""
        with self._cond:
            self._retry_at = None
        self.resume()

    @property
    def progress(self) -> EmbedProgress:
        with self._cond:
            return self._progress

    @property
    def embedded(self) -> int:
        with self._cond:
            return self._embedded

    # -- waiting --------------------------------------------------------------------------------------

    def run(self, progress: ProgressFn | None = None, cancel: CancelToken | None = None) -> int:
        """Embed everything without vectors now and wait for it: returns how many were embedded. Raises
        EmbedderUnavailable when the embedder fails (the unit retries later), Cancelled when ``cancel`` is
        set (the unit is then paused, until ``resume``)."""
        self.resume()  # an explicit request overrides a pause and the retry interval
        with self._cond:
            self._retry_at = None
            target, start = self._asked, self._embedded
        shown = (0, 0)
        while True:
            with self._cond:
                snap, served, embedded = self._progress, self._served, self._embedded
                if served >= target and snap.state not in (EMBEDDING,):
                    if snap.state in (WAITING, STOPPED):
                        raise (ModelChanged if snap.state == STOPPED else EmbedderUnavailable)(snap.message)
                    return embedded - start
                if snap.state == CLOSED:
                    raise EmbedderUnavailable("The vault was closed while embedding.")
            if progress is not None and snap.total and (snap.done, snap.total) != shown:
                shown = (snap.done, snap.total)
                progress(snap.done, snap.total, "embedding")
            if cancel is not None and cancel.cancelled:
                self.pause()
                raise Cancelled(snap.done, snap.total)
            with self._cond:
                self._cond.wait(WAIT_SLICE_S)

    def wait(self, timeout: float) -> bool:
        """Wait (at most ``timeout`` seconds) until every kick so far has been served; True if so and nothing
        failed. Returns at once while paused, waiting for the embedder, or stopped."""
        deadline = time.monotonic() + timeout
        with self._cond:
            target = self._asked
        while True:
            with self._cond:
                state = self._progress.state
                if self._served >= target and state != EMBEDDING:
                    return state not in (WAITING, STOPPED)
                retry_late = self._retry_at is not None and self._retry_at > deadline
                if state in (PAUSED, CLOSED) or (state == WAITING and retry_late):
                    return False  # nothing will be served before a resume, or before the deadline
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(WAIT_SLICE_S, left))

    def _stop(self) -> None:
        # close() stops after the round in progress; a thread stuck in a slow provider call is left to finish
        # on its own (it is a daemon, and closes its own connection when it ends)
        self._token.cancel()

    # -- the thread -----------------------------------------------------------------------------------

    def _set(self, state: str, done: int = 0, total: int = 0, message: str = "") -> None:
        self._progress = EmbedProgress(state, done, total, message)
        self._cond.notify_all()

    def _on_progress(self, done: int, total: int, message: str = "") -> None:
        with self._cond:
            self._set(EMBEDDING, done, total)

    def _on_part(self, done: int, total: int) -> None:
        with self._cond:
            snap = self._progress
            self._progress = EmbedProgress(EMBEDDING, snap.done, snap.total, "", done, total)
            self._cond.notify_all()

    def _next(self) -> int | None:
        """Block until there is something to do; the kick count it serves, or None to end."""
        with self._cond:
            while True:
                if self._closing:
                    return None
                pending = self._served < self._asked
                due = self._retry_at is not None and time.monotonic() >= self._retry_at
                if not self._paused and (pending or due) and (self._retry_at is None or due):
                    self._retry_at = None
                    self._token = CancelToken()
                    self._set(EMBEDDING, 0, 0)
                    return self._asked
                timeout = None if self._retry_at is None else max(0.0, self._retry_at - time.monotonic())
                self._cond.wait(timeout if timeout is not None else 5.0)

    def _loop(self) -> None:
        worker: Worker | None = None
        try:
            while (target := self._next()) is not None:
                try:
                    if worker is None:
                        worker = self._make_worker()
                    n = worker.reindex_missing(progress=self._on_progress, cancel=self._token, batch=BATCH,
                                               part=self._on_part)
                except Cancelled as exc:
                    with self._cond:
                        self._set(PAUSED if self._paused else IDLE, exc.done, exc.total)
                    continue
                except ModelChanged as exc:
                    self._failed(target, STOPPED, str(exc), retry=False)
                    continue
                except EmbeddingError as exc:
                    self._failed(target, WAITING, str(exc), retry=True)
                    continue
                except CuratorError as exc:  # the index busy or the disk full: try again later
                    log.warning("Embedding in the background failed: %s", exc)
                    self._failed(target, WAITING, str(exc), retry=True)
                    continue
                except Exception as exc:  # our bug: logged; the unit stays alive and tries again later
                    log.exception("Embedding in the background failed")
                    self._failed(target, WAITING, f"embedding failed ({type(exc).__name__}: {exc})", retry=True)
                    continue
                with self._cond:
                    self._embedded += n
                    self._served = max(self._served, target)
                    snap = self._progress
                    self._set(IDLE, snap.total, snap.total)
        finally:
            with self._cond:
                self._set(CLOSED)
            if worker is not None:
                try:
                    worker.close()
                except Exception:  # noqa: BLE001 - closing a connection at exit: nothing left to do about it
                    log.exception("Closing the embedding thread's connection failed")

    def _failed(self, target: int, state: str, message: str, *, retry: bool) -> None:
        with self._cond:
            self._served = max(self._served, target)
            self._retry_at = time.monotonic() + self._retry_s if retry else None
            snap = self._progress
            if self._paused:  # paused while the round was failing: paused it stays (Resume tries again at once)
                state, message, self._retry_at = PAUSED, "", None
            self._set(state, snap.done, snap.total, message)
