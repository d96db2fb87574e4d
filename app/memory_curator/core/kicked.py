"""A background unit woken by kicks: one daemon thread, started by the first kick, that serves them in turn.

Five units work this way: the embedding backfill (core/embed/background.py), the keyword postings' build
(core/index/postings_unit.py), the unreadable shares' fill (core/index/unreadable.py), the searches' recalls
(core/lifecycle/recalls.py) and the WAL's checkpoints after them (core/index/checkpoints.py). Writes, syncs and
polls kick them many times a second at worst; each kick only counts, and one serve answers every kick counted
before it began, so a burst of kicks costs one run. A process that never kicks a unit never starts its thread
(a one-shot CLI command starts the recalls' thread at most, when it searches): an index used only from the
command line keeps its unreadable shares unfilled (searches compute them from the text, as before) and its
keyword postings unbuilt or unfolded until ``memory-curator maintain`` runs them to the end
(core/index/upkeep.py; ``stats`` says when some is pending) or a rebuild writes them.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

HOLD_S = 0.5  # in the foreground, the write lock is held at most this long (steps' writes added up) ...
FREE_S = 0.15  # ... before it is left free this long: SQLite's busy handler retries every 0.1 s once it waits


class Pacer:
    """How long a stepped writer leaves the write lock free after each step, so the writers of every process
    (the app's saves, the CLI, the servers) get it.

    In the background (the app's and the servers' units) a step is followed by as long again, at least
    ``pause_s``: the work takes half the lock's time at most. In the foreground (``memory-curator maintain``,
    rebuild's upkeep: a user waits for it) the lock is left free ``FREE_S`` once it has been held ``HOLD_S``
    since it was last free that long (a build's reads, in transactions of their own, leave it free too): another
    process's save waits about a second at most, and the work pauses ~1/4 of its write time at most instead of
    as long again. At 1,000,000 memories (load 7-9) the postings' build paused 23-47 s of its 178-314 s in
    the background's way, 0.0 s in this one; saves from another process meanwhile p50 14 ms, max 0.8 s."""

    def __init__(self, pause_s: float, foreground: bool = False):
        self.pause_s, self.foreground = pause_s, foreground
        self._held = 0.0  # write time since the lock was last free FREE_S or more
        self._freed_at = -math.inf  # when the lock was last given up

    def free_for(self, since: float, now: float | None = None) -> float:
        """After a write step begun at ``since`` (and ended ``now``): how long to leave the lock free."""
        now = time.monotonic() if now is None else now
        if not self.foreground:
            wait = max(self.pause_s, now - since)
        else:
            if since - self._freed_at >= FREE_S:
                self._held = 0.0
            self._held += now - since
            wait = FREE_S if self._held >= HOLD_S else 0.0
            if wait:
                self._held = 0.0
        self._freed_at = now
        return wait


class Kicked:
    """The kick counters, the thread and closing. A subclass's ``_loop`` waits on ``_cond`` until
    ``_served < _asked`` or ``_closing``, serves, and sets ``_served`` to the ``_asked`` its run began at."""

    def __init__(self, thread_name: str):
        self._thread_name = thread_name
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._asked = 0  # kicks so far; a serve that started after kick n answers it
        self._served = 0
        self._closing = False

    def kick(self) -> None:
        with self._cond:
            if self._closing:
                return
            self._asked += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self._thread_name, daemon=True)
                self._thread.start()
            self._cond.notify_all()

    CLOSE_S = 1.0  # how long close() waits for the thread by default

    def close(self, timeout: float | None = None) -> None:
        """Ask the thread to stop (``_stop`` cuts its current step short) and wait at most ``timeout`` (default
        ``CLOSE_S``)."""
        with self._cond:
            self._closing = True
            self._stop()
            thread = self._thread
            self._cond.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(self.CLOSE_S if timeout is None else timeout)

    def _stop(self) -> None:
        """Called under ``_cond`` when closing: interrupt what the thread is doing (it must not block)."""

    def _loop(self) -> None:
        raise NotImplementedError


IDLE, CLOSED = "idle", "closed"


@dataclass(frozen=True)
class Progress:
    """A stepped unit's ``state`` (idle, closed, or one of the unit's own) and ``done`` of ``total`` in its run."""

    state: str
    done: int = 0
    total: int = 0


class Closing(Exception):
    """A step found its unit closing."""


class SteppedUnit(Kicked):
    """A unit that serves kicks in short write steps on a database connection of its own (the keyword postings'
    build, the unreadable shares' fill). ``_serve`` runs the steps, calling ``_pause`` after each so the writers
    of every process get the lock; a close interrupts the statement running (its transaction rolls back).
    After a failure (a read-only vault, a full disk) the kicks of the next ``retry_s`` only count."""

    WHAT = "the unit's work"  # for the log: "Building ... failed"
    SHOWN: dict[str, str] = {}  # the states a window shows how far they are, with its words (the status bar)
    MEANWHILE = ""  # what a window adds while it shows them (what works meanwhile)
    CLOSE_S = 2.0  # a close interrupts the statement running; its rollback may take a moment

    def __init__(self, thread_name: str, pause_s: float, retry_s: float):
        super().__init__(thread_name)
        self.pacer, self._retry_s = Pacer(pause_s), retry_s  # pacer.foreground: someone waits for the work
        self._conn: Any = None
        self.ended = False  # the thread has finished: closed, no connection, or nothing will be left to do
        self._progress = Progress(IDLE)

    @property
    def progress(self) -> Progress:
        """How far the unit is (thread-safe: a window reads it on a timer)."""
        with self._cond:
            return Progress(CLOSED) if self.ended else self._progress

    def _set(self, state: str, done: int = 0, total: int = 0) -> None:
        with self._cond:
            self._progress = Progress(state, done, total)
            self._cond.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every kick so far has been served (a test's, a benchmark's view); True if so."""
        deadline = time.monotonic() + timeout
        with self._cond:
            target = self._asked
            while self._served < target and not self.ended:
                if (left := deadline - time.monotonic()) <= 0:
                    return False
                self._cond.wait(min(0.1, left))
            return True

    def _stop(self) -> None:
        if self._conn is not None:
            self._conn.interrupt()

    def _open(self) -> Any:
        """The thread's connection."""
        raise NotImplementedError

    def _serve(self, conn: Any) -> bool:
        """Serve the kicks counted so far; True when nothing will ever be left to do (the thread ends)."""
        raise NotImplementedError

    def _check(self) -> None:
        with self._cond:
            if self._closing:
                raise Closing

    def _pause(self, since: float) -> None:
        """After a write step begun at ``since``: the lock left free as long as the pacer says."""
        until = time.monotonic() + self.pacer.free_for(since)
        with self._cond:
            while not self._closing and time.monotonic() < until:
                self._cond.wait(until - time.monotonic())
        self._check()

    def _loop(self) -> None:
        try:
            conn = self._open()
        except Exception:  # noqa: BLE001 - the work waits for the next process; logged once
            log.warning("%s: the index could not be opened", self.WHAT, exc_info=True)
            self._end()
            return
        with self._cond:
            self._conn = conn
        failed_at: float | None = None
        finished = False
        try:
            while not finished:
                with self._cond:
                    while self._served >= self._asked and not self._closing:
                        self._cond.wait()
                    if self._closing:
                        break
                    serving = self._asked
                try:
                    if failed_at is None or time.monotonic() - failed_at >= self._retry_s:
                        finished, failed_at = self._serve(conn), None
                except Closing:
                    break
                except Exception:  # noqa: BLE001 - a later kick tries again
                    if self._closing:
                        break
                    failed_at = time.monotonic()
                    log.warning("%s failed; trying again in %g s", self.WHAT, self._retry_s, exc_info=True)
                with self._cond:
                    self._served = serving
                    self._cond.notify_all()
        finally:
            self._end()
            conn.close()

    def _end(self) -> None:
        with self._cond:
            self._conn, self.ended = None, True
            self._cond.notify_all()
