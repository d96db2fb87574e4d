"""Opening an older index says what its migrations do (and how far a loop is), and a cancel stops them with the
finished ones kept and the running one rolled back."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from memory_curator import AsyncMemoryService
from memory_curator.core.errors import Cancelled
from memory_curator.core.index import db, migrations
from memory_curator.core.progress import CancelToken
from memory_curator.core.service import MemoryService
from old_index import old_vault, schema


def test_an_older_index_says_what_each_migration_does(vault_dir, config):
    memory_id = old_vault(vault_dir, config)
    heard: list[tuple[int, int, str]] = []
    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False,
                            progress=lambda done, total, message: heard.append((done, total, message))) as svc:
        assert svc.get(memory_id, record_access=False) is not None
    messages = [m for _, _, m in heard]
    assert messages[0] == "Upgrading the index (1 of 4, migration 16): indexing the sessions' filter columns"
    assert "Upgrading the index (2 of 4, migration 17): adding the unreadable share's column" in messages
    assert messages.index("Upgrading the index (3 of 4, migration 18): giving each memory's link names a table "
                          "of their own") > 1
    # The loop of migration 18 says how far it is (one memory: done at once), then its last statements.
    assert (1, 1, "Upgrading the index (3 of 4, migration 18): the names links use, memory by memory") in heard
    assert heard[-2:] == [
        (0, 0, "Upgrading the index (3 of 4, migration 18): copying the links into a table of their own"),
        (0, 0, "Upgrading the index (4 of 4, migration 19): moving the unreadable shares' index into a table")]


def test_a_new_index_says_it_is_created_not_upgraded(vault_dir, config):
    heard: list[tuple[int, int, str]] = []
    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False,
                            progress=lambda done, total, message: heard.append((done, total, message))) as svc:
        assert svc.store.conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == 19
    assert heard and set(heard) == {(0, 0, "Creating the index")}


def test_a_current_index_says_nothing(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config):
        pass
    heard = []
    with MemoryService.open(vault_dir, embedder="none", config=config, progress=lambda *a: heard.append(a)):
        pass
    assert heard == []


def test_a_cancel_keeps_the_finished_migrations_and_rolls_the_running_one_back(vault_dir, config):
    memory_id = old_vault(vault_dir, config)
    token = CancelToken()

    def progress(done: int, total: int, message: str) -> None:
        if "migration 18" in message:
            token.cancel()

    with pytest.raises(Cancelled) as caught:
        MemoryService.open(vault_dir, embedder="none", config=config, sync=False, progress=progress, cancel=token)
    assert (caught.value.done, caught.value.total) == (2, 4)
    assert schema(vault_dir) == 17  # 16 and 17 stay; 18 was rolled back
    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False) as svc:  # goes on from there
        assert svc.store.conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == 19
        assert svc.get(memory_id, record_access=False).title == "Launch"


def test_a_cancel_interrupts_a_long_statement(tmp_path):
    """A statement running long (an index made over 1,000,000 rows) stops at SQLite's next progress tick."""
    conn = db.connect(tmp_path / "x.db")
    token = CancelToken()
    report = migrations.Report(conn, None, token, 1)
    token.cancel()
    try:
        with pytest.raises(db.DatabaseError) as caught:
            conn.execute("WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 100000000) "
                         "SELECT count(*) FROM r").fetchone()
        assert isinstance(report.cancelled(caught.value), Cancelled)
    finally:
        report.close()
    assert conn.execute("SELECT 1").fetchone() == (1,)  # the handler is gone with the report
    conn.close()


def test_ctrl_c_stops_the_upgrade_as_a_cancel_does(vault_dir, config):
    """Ctrl-C raises KeyboardInterrupt where Python runs: in a loop's step, or in SQLite's tick during a long
    statement (where sqlite3 swallows it and stops the statement): either way the upgrade stops as a cancel."""
    old_vault(vault_dir, config)

    def progress(done: int, total: int, message: str) -> None:
        if "migration 18" in message:
            raise KeyboardInterrupt

    with pytest.raises(Cancelled, match=r"2 of 4 migrations done \(kept\)"):
        MemoryService.open(vault_dir, embedder="none", config=config, sync=False, progress=progress)
    assert schema(vault_dir) == 17


def test_the_async_service_passes_the_upgrade_on(vault_dir, config):
    old_vault(vault_dir, config)
    heard = []

    async def scenario():
        async with await AsyncMemoryService.open(vault_dir, embedder="none", config=config, sync=False,
                                                 progress=lambda *a: heard.append(a)) as svc:
            return await svc.call(lambda s: s.count())

    assert asyncio.run(scenario()) == 1
    assert heard[0] == (0, 0, "Upgrading the index (1 of 4, migration 16): indexing the sessions' filter columns")


WAITING = "Upgrading the index: waiting for another process writing to it (perhaps upgrading it too)"


def opening_while_locked(vault_dir, config, cancel: CancelToken | None = None):
    """Open the vault on a thread while another connection holds the write lock; (the thread, what it heard,
    what it ended with)."""
    heard: list[tuple[int, int, str]] = []
    ended: list[object] = []

    def run() -> None:
        try:
            with MemoryService.open(vault_dir, embedder="none", config=config, sync=False,
                                    progress=lambda *a: heard.append(a), cancel=cancel) as svc:
                ended.append(svc.count())
        except Exception as exc:  # noqa: BLE001 - the test looks at it
            ended.append(exc)

    return threading.Thread(target=run), heard, ended


def test_an_upgrade_waiting_for_another_writer_says_so_and_goes_on(vault_dir, config):
    """Another process upgrading the same index holds the lock for a minute at 1,000,000 memories: longer than the
    usual busy timeout (15 s), so the wait is said, and the upgrade goes on when the lock is free."""
    old_vault(vault_dir, config)
    holder = db.connect(vault_dir / "index.db")
    holder.execute("BEGIN IMMEDIATE")
    thread, heard, ended = opening_while_locked(vault_dir, config)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while (0, 0, WAITING) not in heard and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (0, 0, WAITING) in heard
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    thread.join(60)
    assert ended == [1] and schema(vault_dir) == 19


def test_a_cancel_while_waiting_for_the_lock_stops_at_once(vault_dir, config):
    old_vault(vault_dir, config)
    holder = db.connect(vault_dir / "index.db")
    holder.execute("BEGIN IMMEDIATE")
    token = CancelToken()
    thread, heard, ended = opening_while_locked(vault_dir, config, token)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while (0, 0, WAITING) not in heard and time.monotonic() < deadline:
            time.sleep(0.05)
        token.cancel()
        thread.join(30)
        assert len(ended) == 1 and isinstance(ended[0], Cancelled)
        assert "0 of 4 migrations done" in str(ended[0])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert schema(vault_dir) == 15
