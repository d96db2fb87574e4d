"""After a search's access record a thread of its own copies the WAL into the database (core/index/checkpoints.py),
so the commit that finds the WAL past SQLite's threshold has little left to copy; that commit still checkpoints,
which keeps the WAL bounded while commits keep coming."""

from __future__ import annotations

import time

from memory_curator.core.index.store import IndexStore

PAGE = 4096


def _write(store: IndexStore, pages: int, checkpoint: bool) -> None:
    with store.transaction(checkpoint=checkpoint):
        store.conn.execute("CREATE TABLE IF NOT EXISTS filler (b BLOB)")
        store.conn.execute("INSERT INTO filler VALUES (zeroblob(?))", (pages * PAGE,))


def _until(check, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not check() and time.monotonic() < deadline:
        time.sleep(0.05)
    return check()


def test_the_thread_copies_a_commits_pages_into_the_database(tmp_path):
    store = IndexStore.open(tmp_path / "index.db", tmp_path, checkpoint_gap_s=0.2)
    try:
        db = tmp_path / "index.db"
        before = db.stat().st_size
        _write(store, 200, checkpoint=False)  # below SQLite's 1,000 pages: no commit would copy them
        assert db.stat().st_size < before + 200 * PAGE
        assert _until(lambda: store._checkpointer.done >= 1)
        assert db.stat().st_size >= before + 200 * PAGE  # copied, with no other commit
    finally:
        store.close()


def test_the_wal_stays_bounded_while_commits_keep_coming(tmp_path):
    # A checkpoint elsewhere cannot start the WAL again while commits keep coming; the commit past the
    # threshold does (with SQLite's own checkpoint off, the WAL grew 6 MB every 50 searches).
    store = IndexStore.open(tmp_path / "index.db", tmp_path)  # the default gap
    try:
        for _ in range(200):
            _write(store, 30, checkpoint=False)
        wal = tmp_path / "index.db-wal"
        assert wal.stat().st_size < 4000 * (PAGE + 24)  # 6,000 pages written: a commit past ~1,000 started it again
        # The thread copies within its gap after the last record: 200 writes can all come inside one gap.
        assert _until(lambda: store._checkpointer.done >= 1)
    finally:
        store.close()


def test_searches_recording_access_keep_counts_exact(svc):
    m = svc.save("the checkpoint thread copies the write-ahead log", keywords=["wal"])
    for n in range(1, 4):  # a get is a recall too, counted before it returns
        assert svc.search("checkpoint", mode="keyword").results[0].memory.access_count == 2 * (n - 1)
        assert svc.get(m.id).access_count == 2 * n
