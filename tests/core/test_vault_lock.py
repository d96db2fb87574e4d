"""The vault's cross-process write lock (filelock): exclusive between real processes and threads, waited for
while another process holds it, and freed by the OS when its holder is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from memory_curator.core.vault.lock import VaultLock

HOLDER = """
import sys
from pathlib import Path
from memory_curator.core.vault.lock import VaultLock
lock = VaultLock(Path(sys.argv[1]))
with lock.hold() as held:
    assert held
    print("held", flush=True)
    sys.stdin.readline()  # until the test says so (or kills us)
    with open(sys.argv[2], "a") as log:
        log.write("holder released\\n")
"""


@pytest.fixture
def holder(tmp_path):
    """Start a process holding the lock; yields (process, state dir, log path)."""
    state = tmp_path / ".memory-curator"
    log = tmp_path / "order.log"
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(state), str(log)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        yield proc, state, log
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)


def _waiter(state, log, acquired: threading.Event, errors: list) -> threading.Thread:
    def run():
        try:
            with VaultLock(state).hold() as held:
                assert held
                with open(log, "a") as f:
                    f.write("waiter acquired\n")
                acquired.set()
        except BaseException as exc:  # noqa: BLE001 - reported to the test thread
            errors.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_another_process_holding_the_lock_is_waited_for(holder):
    proc, state, log = holder
    with VaultLock(state).hold(wait=False) as held:
        assert held is False
    acquired, errors = threading.Event(), []
    waiter = _waiter(state, log, acquired, errors)
    assert not acquired.wait(0.5)  # still held by the other process
    proc.stdin.write("go\n")
    proc.stdin.flush()
    waiter.join(timeout=60)
    assert not errors and acquired.is_set()
    assert log.read_text().splitlines() == ["holder released", "waiter acquired"]


def test_a_killed_holder_frees_the_lock(holder):
    proc, state, log = holder
    acquired, errors = threading.Event(), []
    waiter = _waiter(state, log, acquired, errors)
    os.kill(proc.pid, signal.SIGKILL if hasattr(signal, "SIGKILL") else signal.SIGTERM)
    proc.wait(timeout=60)
    waiter.join(timeout=60)
    assert not errors and acquired.is_set()
    assert log.read_text().splitlines() == ["waiter acquired"]  # the holder never got to release it


def test_re_entrant_in_one_thread_exclusive_between_threads(tmp_path):
    lock = VaultLock(tmp_path)
    other = VaultLock(tmp_path)
    with lock.hold() as outer, lock.hold() as inner:
        assert outer and inner
        result = []

        def try_other():
            with other.hold(wait=False) as held:
                result.append(held)

        t = threading.Thread(target=try_other)
        t.start()
        t.join()
        assert result == [False]
    with other.hold(wait=False) as free:
        assert free


def test_a_long_run_lets_a_waiting_writer_in_between_its_batches(tmp_path):
    """Released and taken again at once, the lock would go to the run every time (a waiter retries every
    POLL_S); let_waiters_in gives it to the writer that waits, before the run's next batch."""
    run, other = VaultLock(tmp_path), VaultLock(tmp_path)
    got_in_after: list[int] = []
    batches = 0

    def writer() -> None:
        with other.hold():
            got_in_after.append(batches)

    waiter = threading.Thread(target=writer)
    while batches < 40 and not got_in_after:
        with run.hold():
            time.sleep(0.02)  # a batch's work
            if batches == 1:
                waiter.start()
                time.sleep(0.2)  # it waits now, and says so
        batches += 1
        run.let_waiters_in()
    waiter.join(timeout=60)
    assert got_in_after == [2]  # right after the batch during which it began to wait
    assert run.let_waiters_in() is False  # nobody has waited since: no pause


def test_a_run_learns_during_its_batch_that_a_writer_waits(tmp_path):
    """``waited`` is what lets a long run end its batch early: it turns true once a writer of another thread
    waits, stays true until ``let_waiters_in`` paused for it, and a lock's own wait never counts."""
    (tmp_path / "write.lock.waiting").write_text("")  # left by an earlier run: not a writer waiting now
    run, other = VaultLock(tmp_path), VaultLock(tmp_path)
    assert run.waited() is False
    got_in = threading.Event()

    def writer() -> None:
        with other.hold():
            got_in.set()

    with run.hold():
        waiter = threading.Thread(target=writer)
        waiter.start()
        deadline = time.monotonic() + 30
        while not run.waited() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert run.waited() and not got_in.is_set()
    assert run.let_waiters_in() is True and got_in.wait(30)
    waiter.join(timeout=60)
    assert other.waited() is False  # its own wait
    assert run.waited() is False and run.let_waiters_in() is False
