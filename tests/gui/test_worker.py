"""The engine thread: results come back on the main thread, stale requests are dropped, long operations
report progress and stop on cancel, errors arrive as values."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest
from PySide6.QtCore import QThread

from memory_curator.core.errors import Cancelled, ValidationError
from memory_curator.gui.worker import Engine


@pytest.fixture
def engine(qtbot, vault_dir, config, seeded):
    eng = Engine(vault_dir, config, "none")
    with qtbot.waitSignal(eng.opened, timeout=20000):
        pass
    yield eng
    eng.shutdown()


def test_requests_run_on_the_worker_and_answer_on_the_main_thread(qtbot, engine):
    seen = {}

    def probe(svc):
        seen["thread"] = threading.get_ident()
        return svc.count()

    req = engine.run(probe)
    with qtbot.waitSignal(req.done) as blocker:
        pass
    assert blocker.args == [7]
    assert seen["thread"] != threading.get_ident()
    assert QThread.currentThread() is engine.thread()


def test_a_newer_search_supersedes_an_older_one(qtbot, engine):
    gate = threading.Event()
    results: list[str] = []
    slow = engine.run(lambda svc: (gate.wait(5), "old")[1], key="search")
    queued = engine.run(lambda svc: "middle", key="search")
    newest = engine.run(lambda svc: "new", key="search")
    for req in (slow, queued, newest):
        req.done.connect(results.append)
    gate.set()
    with qtbot.waitSignal(newest.done):
        pass
    qtbot.waitUntil(lambda: not engine.busy)
    assert results == ["new"]  # the running one was dropped, the queued one never ran


def test_errors_come_back_as_values(qtbot, engine):
    req = engine.call("search", "   ", mode="keyword")
    with qtbot.waitSignal(req.failed) as blocker:
        pass
    assert isinstance(blocker.args[0], ValidationError) and "empty" in str(blocker.args[0])


def test_long_operation_reports_progress_and_cancels(qtbot, engine):
    started = threading.Event()

    def long_job(svc, progress, cancel):
        for i in range(1, 1001):
            if cancel.cancelled:
                raise Cancelled(i, 1000)
            progress(i, 1000, f"item {i}")
            started.set()
            threading.Event().wait(0.002)
        return "finished"

    req = engine.run(long_job, long=True)
    steps = []
    req.progress.connect(lambda d, t, m: steps.append((d, t)))
    qtbot.waitUntil(lambda: len(steps) >= 2, timeout=10000)
    req.cancel()
    with qtbot.waitSignal(req.failed, timeout=10000) as blocker:
        pass
    assert isinstance(blocker.args[0], Cancelled)
    assert all(t == 1000 for _, t in steps) and steps[-1][0] < 1000
    assert len(steps) < 200  # throttled: the main thread is not flooded with one signal per item


def test_reads_are_answered_while_the_writer_is_busy(qtbot, engine):
    gate = threading.Event()
    long_write = engine.run(lambda svc: gate.wait(10))
    count = engine.call("count", read=True)
    with qtbot.waitSignal(count.done, timeout=10000) as blocker:
        pass
    assert blocker.args == [7] and not long_write.finished  # the reader did not queue behind the writer
    gate.set()
    with qtbot.waitSignal(long_write.done, timeout=10000):
        pass


def test_searches_and_pages_are_answered_while_a_slow_read_runs(qtbot, engine):
    """Vault health takes seconds at 1,000,000 memories: on its own lane, a search or a list page never waits
    for it (on the reader lane searches queued behind it)."""
    gate = threading.Event()
    slow = engine.run(lambda svc: (gate.wait(10), svc.count())[1], slow_read=True)
    search = engine.call("search", "alpha", mode="keyword", read=True)
    page = engine.call("list_memories", limit=3, read=True)
    with qtbot.waitSignals([search.done, page.done], timeout=10000):
        pass
    assert not slow.finished  # both answered while the slow read still waited
    gate.set()
    with qtbot.waitSignal(slow.done, timeout=10000) as blocker:
        pass
    assert blocker.args == [7]
    health = engine.call("health", slow_read=True)  # the same lane's own service answers the engine's calls
    with qtbot.waitSignal(health.done, timeout=10000) as blocker:
        pass
    assert blocker.args[0].missing_files == []


def test_a_job_runs_beside_the_writer_and_commits_its_changes_to_the_history(qtbot, engine, vault_dir):
    """Imports and relabelling run on the jobs lane: an edit saved meanwhile is written at once (it waited for
    the whole run when both shared the writer's thread), and the job's changes reach the vault's history when
    it ends (nothing polls the jobs lane)."""
    history = engine.run(lambda svc: svc.versions.enable())
    with qtbot.waitSignal(history.done, timeout=20000):
        pass
    gate, threads = threading.Event(), {}

    def job(svc):
        threads["job"] = threading.get_ident()
        assert gate.wait(60)
        return svc.save("Written by the import.", title="Imported").id

    running = engine.run(job, job=True)
    save = engine.call("save", "Saved while the import runs.", title="Meanwhile")
    with qtbot.waitSignal(save.done, timeout=20000):
        pass
    assert not running.finished and "job" in threads
    writer = engine.run(lambda svc: threading.get_ident())
    with qtbot.waitSignal(writer.done, timeout=20000) as on_writer:
        pass
    assert on_writer.args[0] != threads["job"]
    gate.set()
    with qtbot.waitSignal(running.done, timeout=20000) as done:
        pass
    count = engine.run(lambda svc: svc.get(done.args[0], record_access=False).title, read=True)
    with qtbot.waitSignal(count.done, timeout=20000) as seen:
        pass
    assert seen.args == ["Imported"]
    status = subprocess.run(["git", "status", "--porcelain"], cwd=vault_dir, capture_output=True, text=True)
    log = subprocess.run(["git", "log", "--name-only", "--format="], cwd=vault_dir, capture_output=True, text=True)
    assert status.stdout == "" and "imported.md" in log.stdout.lower()


def test_emitting_signals_keeps_pythons_references():
    """PySide6 6.12.0 returned True from every ``emit`` without counting the reference: after a few thousand
    signals (progress, results) Python freed True and the app aborted ("bool_dealloc"). pyproject excludes it."""
    from PySide6.QtCore import QObject, Signal

    class Emitter(QObject):
        ping = Signal(int)

    emitter = Emitter()
    before = sys.getrefcount(True)
    for i in range(200):
        emitter.ping.emit(i)
    assert abs(sys.getrefcount(True) - before) < 50


def test_no_lane_opens_once_the_engine_shuts_down(engine):
    """A Vault health check or a job asked for while the window closes opens no thread: one opened then was never
    closed, and Qt aborted the process when the engine went ('QThread: Destroyed while thread ... is still
    running', seen in the smoke check)."""
    engine.shutdown()
    engine.call("health", slow_read=True)
    engine.run(lambda svc: None, job=True)
    assert engine._slow is None and engine._jobs is None

