"""The engine on a QThread. Widgets never call MemoryService: they submit requests here and get one
uniform result/error signal back on the main thread.

A request is a function of the service, run on a worker thread in submission order. Two lanes, each a
thread with its own MemoryService (its own SQLite connection; WAL lets readers run beside a writer):
changes and long operations go to the writer; searches, list pages and counts (``read=True``) go to the
reader, so a search is answered while a 1,000-file import is running (and reads that take seconds on a large
vault, Vault health, go to a lane of their own, opened at the first). Imports and relabelling
(``job=True``) run on a third lane, opened at the first job, so an edit saved meanwhile waits for one file or
batch (the cross-process write lock, handed over between them), not for the whole run. Requests that share
a ``key`` (e.g. "search") supersede each other: an older one still queued is skipped and its result, if it
was already running, is dropped, so a slow search never overwrites a newer one.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from memory_curator.core.config import MemoryConfig
from memory_curator.core.embed.base import Embedder
from memory_curator.core.embed.resolve import fork
from memory_curator.core.embedding import Embedding
from memory_curator.core.errors import Cancelled, CuratorError, ValidationError
from memory_curator.core.model import VaultProblem
from memory_curator.core.polling import PollFailures
from memory_curator.core.progress import CancelToken
from memory_curator.core.service import MemoryService

log = logging.getLogger(__name__)

PROGRESS_INTERVAL_S = 0.05  # at most ~20 progress signals a second reach the main thread
POLL_MS = 700  # how often the worker checks for changes made by other processes and programs
# The window hears how far a poll's sync is once it has lasted this long. Each sync reads the unreadable files
# again (one may have been fixed), so a quick one after the window's own save said "Reading files other programs
# changed: 13 of 13" about them; the message is for the long ones (~20 s at 1,000,000 files).
POLL_PROGRESS_AFTER_S = 1.0


class Request(QObject):
    """One call into the engine, living on the main thread. Connect to ``done``/``failed`` and ``progress``."""

    done = Signal(object)  # the function's return value
    failed = Signal(object)  # the exception; str(exc) is fit to show a user when it is a CuratorError
    progress = Signal(int, int, str)  # done, total, message

    def __init__(self, rid: int, key: str | None, parent: QObject | None = None):
        super().__init__(parent)
        self.id = rid
        self.key = key
        self.token = CancelToken()
        self.finished = False

    def cancel(self) -> None:
        self.token.cancel()


class _Executor(QObject):
    """Lives on the worker thread; owns the one MemoryService."""

    finished = Signal(int, bool, object)  # request id, ok, value or exception
    progressed = Signal(int, int, int, str)
    changed_elsewhere = Signal(object)  # a ChangeReport: another process or program changed the vault
    # A poll's sync reading changed files (done, total), emitted on this thread: at 1,000,000 files a poll's
    # full sync takes ~20 s, and the window says what the writer is busy with.
    poll_progressed = Signal(int, int)

    def __init__(self, engine: Engine):
        super().__init__()
        self._engine = engine
        self.service: MemoryService | None = None
        self._poll_timer: QTimer | None = None
        self._poll_failures = PollFailures()
        self.poll_cancel = CancelToken()  # set by Engine.shutdown: a poll's sync stops at its next batch
        self._poll_emitted = 0.0
        self.poll_started = 0.0  # time.monotonic() when the poll under way began

    def start_polling(self) -> None:
        """On the worker thread, between requests: never blocks the window, never counts as busy."""
        self._poll_timer = QTimer(self)
        self._poll_timer.setInterval(POLL_MS)
        self._poll_timer.timeout.connect(self.poll_once)
        self._poll_timer.start()

    def stop_polling(self) -> None:
        if self._poll_timer is not None:
            self._poll_timer.stop()

    def poll_once(self) -> None:
        if self.service is None:
            return
        self.poll_started = time.monotonic()
        try:
            report = self.service.poll_changes(progress=self._poll_progress, cancel=self.poll_cancel)
        except Cancelled:
            return  # the engine is closing; what the sync committed stays, the next one (a next run) does the rest
        except Exception as exc:  # noqa: BLE001 - logged once per run of failures; the timer polls again
            self._poll_failures.failed(exc)
            return
        self._poll_failures.succeeded()
        if report.changed:
            self.changed_elsewhere.emit(report)

    def _poll_progress(self, done: int, total: int, _message: str = "") -> None:
        now = time.monotonic()
        if now - self._poll_emitted >= PROGRESS_INTERVAL_S or done >= total:
            self._poll_emitted = now
            self.poll_progressed.emit(done, total)

    @Slot(int, object, object)
    def execute(self, rid: int, fn: Callable[..., Any], token: CancelToken) -> None:
        if self._engine._superseded(rid):
            self.finished.emit(rid, False, Cancelled())
            return
        last = [0.0]

        def progress(done: int, total: int, message: str = "") -> None:
            now = time.monotonic()
            if now - last[0] >= PROGRESS_INTERVAL_S or done >= total:
                last[0] = now
                self.progressed.emit(rid, done, total, message)

        try:
            if self.service is None and fn not in (_open_service, _open_searcher, _open_reader, _open_jobs, _close_service):
                raise CuratorError("The vault is not open yet.")
            value = fn(self, _Context(progress, token))
            self.finished.emit(rid, True, value)
        except CuratorError as exc:  # the user's environment or input: a message to show
            self.finished.emit(rid, False, exc)
        except Exception as exc:  # our bug: keep the traceback in the log
            log.exception("Engine request %d failed", rid)
            self.finished.emit(rid, False, exc)


class _Context:
    """What a long operation receives: ``progress(done, total, message)`` and a ``cancel`` token."""

    def __init__(self, progress: Callable[[int, int, str], None], cancel: CancelToken):
        self.progress = progress
        self.cancel = cancel


def _open_service(executor: _Executor, ctx: _Context) -> MemoryService:
    engine = executor._engine
    spec = engine.spec
    try:
        # No sync here: the window shows the index at once and asks for a sync next (with progress). A new index
        # (a vault cloned with git has none) is filled by that sync too, in bulk, where the open did it unseen.
        # An older index is upgraded here (~35 s at 1,000,000 memories): the window shows what each migration does
        # and offers Cancel (Engine.opening).
        # Searches go to the reader: the writer maps no part of a large index (see MemoryService.open).
        executor.service = MemoryService.open(spec["vault"], embedder=spec["embedder"], config=spec["config"],
                                              sync=False, fill=False, progress=ctx.progress, cancel=ctx.cancel,
                                              searches=False)
        # File events from before the window's opening sync: that sync is then the polls' first full scan (at
        # 1,000,000 files a second one, ~20 s, ran at the first poll), and what changes while it runs is seen.
        executor.service.start_watching()
    finally:
        engine._writer_ready.set()
    executor.start_polling()
    return executor.service


def _open_reader(executor: _Executor, ctx: _Context, *, searches: bool = False) -> MemoryService:
    """The reader opens once the writer has (migrations and the first sync are the writer's), with an embedder
    of the writer's model but its own (one provider client per thread; the offline model's weights are loaded
    once). It never embeds in the background: the writer's unit does. Vault health's lane opens it so."""
    engine = executor._engine
    engine._writer_ready.wait()
    writer = engine._writer.executor.service
    if writer is None:
        raise CuratorError("The vault could not be opened.")
    own = fork(writer.embedder, engine.spec["config"]) if writer.embedder is not None else "none"
    try:
        executor.service = MemoryService.open(engine.spec["vault"], embedder=own, config=engine.spec["config"],
                                              sync=False, background=False, searches=searches)
    except ValidationError:  # the writer switched the vault's model meanwhile: take the vault's own
        executor.service = MemoryService.open(engine.spec["vault"], embedder="auto", config=engine.spec["config"],
                                              sync=False, background=False, searches=searches)
    return executor.service


def _open_searcher(executor: _Executor, ctx: _Context) -> MemoryService:
    """The reader lane's open: searches run there, so a large vault's vector codes load in the background from
    now on. (Vault health's lane opens as a plain reader: it never searches, and a second copy of the codes
    would cost ~0.9 GB at 1,000,000 chunks.)"""
    service = _open_reader(executor, ctx, searches=True)
    service.warm_search()
    return service


def _open_jobs(executor: _Executor, ctx: _Context) -> MemoryService:
    """The jobs lane writes like another process of the same vault: it never embeds (what it writes is embedded
    by the writer's background unit, which the writer's poll wakes) and commits the vault's history itself."""
    engine = executor._engine
    engine._writer_ready.wait()
    if engine._writer.executor.service is None:
        raise CuratorError("The vault could not be opened.")
    executor.service = MemoryService.open(engine.spec["vault"], embedder="none", config=engine.spec["config"],
                                          sync=False, background=False, searches=False)
    return executor.service


def _committing(fn: Callable[[_Executor, _Context], Any]) -> Callable[[_Executor, _Context], Any]:
    """A job whose changes go into the vault's history when it ends, cancelled or not: nothing polls the jobs
    lane's service, whose pending history no other lane knows of."""

    def job(executor: _Executor, ctx: _Context) -> Any:
        try:
            return fn(executor, ctx)
        finally:
            try:
                if executor.service is not None:
                    executor.service.commit_history(force=True)
            except (CuratorError, OSError) as exc:  # the job's result stands; the next change commits again
                log.warning("Could not commit the vault's history after a job: %s", exc)

    return job


def _close_service(executor: _Executor, ctx: _Context) -> None:
    try:
        executor.stop_polling()
        if executor.service is not None:
            executor.service.close()
            executor.service = None
    finally:
        executor.thread().quit()  # the last request: stop the loop only after the close ran


class _Lane(QObject):
    """One worker thread with its executor; ``submit`` queues a request on it."""

    submit = Signal(int, object, object)

    def __init__(self, engine: Engine, name: str):
        super().__init__()
        self.thread = QThread()
        self.thread.setObjectName(name)
        self.executor = _Executor(engine)
        self.executor.moveToThread(self.thread)
        self.submit.connect(self.executor.execute)
        self.executor.finished.connect(engine._on_finished)
        self.executor.progressed.connect(engine._on_progress)
        self.thread.start()


class Engine(QObject):
    """The main thread's handle on the workers. ``call`` / ``run`` return a Request to connect to."""

    opened = Signal(object)  # the writer's MemoryService (do not call it from the main thread; identity only)
    open_failed = Signal(object)
    busy_changed = Signal(bool)
    changed_elsewhere = Signal(object)  # a ChangeReport, on the main thread
    syncing = Signal(int, int)  # a poll's sync reading files changed by other programs: done, total

    def __init__(self, vault: Path, config: MemoryConfig, embedder: str | Embedder = "auto",
                 parent: QObject | None = None):
        super().__init__(parent)
        self.spec = {"vault": Path(vault), "config": config, "embedder": embedder}
        self.vault = Path(vault)
        self._ids = itertools.count(1)
        self._pending: dict[int, Request] = {}
        self._latest: dict[str, int] = {}
        self._lock = threading.Lock()
        self._writer_ready = threading.Event()
        self._writer = _Lane(self, "memory-curator-engine")
        self._reader = _Lane(self, "memory-curator-reader")
        self._jobs: _Lane | None = None  # opened at the first job
        self._slow: _Lane | None = None  # opened at the first slow read
        self._closing = False
        self._writer.executor.changed_elsewhere.connect(self.changed_elsewhere)
        self._writer.executor.poll_progressed.connect(self._poll_progressed)
        req = self._enqueue(_open_service, None, self._writer)
        # Its ``progress``: an older index's migrations (done, total, what; total 0 while one statement runs);
        # its ``cancel`` stops them (the vault is then not opened: open_failed with Cancelled).
        self.opening = req
        self._enqueue(_open_searcher, None, self._reader)
        req.done.connect(self.opened)
        req.failed.connect(self.open_failed)

    def _poll_progressed(self, done: int, total: int) -> None:
        if time.monotonic() - self._writer.executor.poll_started >= POLL_PROGRESS_AFTER_S:
            self.syncing.emit(done, total)

    # -- submitting -----------------------------------------------------------------------------------

    def call(self, method: str, *args: Any, key: str | None = None, long: bool = False, read: bool = False,
             job: bool = False, slow_read: bool = False, **kwargs: Any) -> Request:
        """``svc.<method>(*args, **kwargs)`` on the writer (the reader when ``read``: only for calls that
        change nothing in the vault; the jobs lane when ``job``: long runs of small writes, see the module;
        the slow-reads lane when ``slow_read``: a read that takes seconds on a large vault, such as Vault
        health at 1,000,000 memories, which searches and list pages must not wait behind).
        ``long=True`` passes ``progress`` and ``cancel``."""

        def fn(executor: _Executor, ctx: _Context) -> Any:
            if long:
                kwargs.update(progress=ctx.progress, cancel=ctx.cancel)
            return getattr(executor.service, method)(*args, **kwargs)

        return self._submit(fn, key, read, job, slow_read)

    def run(self, fn: Callable[..., Any], *, key: str | None = None, long: bool = False,
            read: bool = False, job: bool = False, slow_read: bool = False) -> Request:
        """``fn(svc)`` on the worker (or ``fn(svc, progress, cancel)`` when ``long``): for a few calls that
        belong together, such as a page of rows and the total count."""

        def call(executor: _Executor, ctx: _Context) -> Any:
            if long:
                return fn(executor.service, ctx.progress, ctx.cancel)
            return fn(executor.service)

        return self._submit(call, key, read, job, slow_read)

    def _submit(self, fn: Callable[[_Executor, _Context], Any], key: str | None, read: bool, job: bool,
                slow_read: bool = False) -> Request:
        if slow_read and (self._slow is not None or not self._closing):
            if self._slow is None:  # never opened once shutting down: its thread would outlive the engine
                self._slow = _Lane(self, "memory-curator-slow-reads")
                self._enqueue(_open_reader, None, self._slow)
            return self._enqueue(fn, key, self._slow)
        if not job or (self._jobs is None and self._closing):
            return self._enqueue(fn, key, self._reader if read else self._writer)
        if self._jobs is None:
            self._jobs = _Lane(self, "memory-curator-jobs")
            self._enqueue(_open_jobs, None, self._jobs)
        return self._enqueue(_committing(fn), key, self._jobs)

    def _enqueue(self, fn: Callable[..., Any], key: str | None, lane: _Lane) -> Request:
        req = Request(next(self._ids), key, self)
        with self._lock:
            if key is not None:
                self._latest[key] = req.id
            self._pending[req.id] = req
        if len(self._pending) == 1:
            self.busy_changed.emit(True)
        lane.submit.emit(req.id, fn, req.token)
        return req

    def _superseded(self, rid: int) -> bool:
        """Called on the worker thread: is a newer request with the same key waiting?"""
        with self._lock:
            req = self._pending.get(rid)
            if req is None or req.key is None:
                return False
            return self._latest.get(req.key, rid) != rid

    # -- results (main thread) ------------------------------------------------------------------------

    @Slot(int, bool, object)
    def _on_finished(self, rid: int, ok: bool, value: object) -> None:
        with self._lock:
            req = self._pending.pop(rid, None)
        if not self._pending:
            self.busy_changed.emit(False)
        if req is None:
            return
        req.finished = True
        stale = req.key is not None and self._latest.get(req.key) != rid
        if not stale:
            (req.done if ok else req.failed).emit(value)
        req.deleteLater()

    @Slot(int, int, int, str)
    def _on_progress(self, rid: int, done: int, total: int, message: str) -> None:
        req = self._pending.get(rid)
        if req is not None:
            req.progress.emit(done, total, message)

    @property
    def busy(self) -> bool:
        return bool(self._pending)

    def skipped_names(self) -> list[VaultProblem]:
        """What the writer's last scan skipped for its name or as a linked folder. Only the writer scans (the
        other lanes open without a sync) and these live in its Vault, not in the index: Vault health, read on the
        slow-reads lane, never listed them. The scan replaces the dict whole, so reading it here is safe."""
        svc = self._writer.executor.service
        return svc.vault.name_problems() if svc is not None else []

    @property
    def embedding(self) -> Embedding | None:
        """The writer's embedding unit: its ``progress``, ``pause``, ``resume`` and ``retry`` are thread-safe,
        so the status bar reads and drives them from the main thread. None until the vault is open."""
        service = self._writer.executor.service
        return None if service is None else service.embedding

    @property
    def upkeep_units(self) -> list[Any]:
        """The writer's stepped units (the keyword postings' build, the unreadable shares' fill: ``progress`` is
        thread-safe), none until the vault is open."""
        service = self._writer.executor.service
        if service is None:
            return []
        return [unit for unit in (service.postings, service.syncing.fill) if unit is not None]

    def shutdown(self, timeout_ms: int = 5000) -> None:
        """Cancel what is running (requests and a poll's sync, which stop at their next batch), close each
        service on its own thread, and wait for the threads to stop. A thread still running after ``timeout_ms``
        is logged and waited for: Qt aborts the process when a QThread object goes while its thread runs, which
        closing during a poll's full sync at 1,000,000 files did (it ran ~20 s and took no cancel). An embedder
        stuck on the network is never waited for: the background embedding is a daemon thread and searches
        wait for it only briefly."""
        self._closing = True
        for req in list(self._pending.values()):
            req.cancel()
        self._writer.executor.poll_cancel.cancel()
        embedding = self.embedding
        if embedding is not None:
            embedding.pause()  # stop the background round at once, before the close request is even reached
        lanes = [lane for lane in (self._jobs, self._slow, self._reader, self._writer)
                 if lane and lane.thread.isRunning()]
        for lane in lanes:
            self._enqueue(_close_service, None, lane)
        deadline = time.monotonic() + timeout_ms / 1000
        for lane in lanes:
            left = max(0, int((deadline - time.monotonic()) * 1000))
            if not lane.thread.wait(left):
                log.warning("The engine thread %s did not stop within %d ms; waiting for it to finish its step.",
                            lane.thread.objectName(), timeout_ms)
                lane.thread.wait()
