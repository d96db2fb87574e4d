"""A search's access record commits without copying the WAL into the database; a thread of its own does that
after it (core/index/checkpoints.py), while every other commit still checkpoints as SQLite does."""

from __future__ import annotations

import time

from memory_curator.core.index.store import IndexStore

PAGES = 1500  # past SQLite's 1,000-page threshold: a commit checkpoints them itself


def _write(store: IndexStore, checkpoint: bool) -> None:
    with store.transaction(checkpoint=checkpoint):
        store.conn.execute("CREATE TABLE IF NOT EXISTS filler (b BLOB)")
        store.conn.execute("INSERT INTO filler VALUES (zeroblob(?))", (PAGES * 4096,))


def test_commit_without_checkpoint_leaves_it_to_the_thread(tmp_path):
    store = IndexStore.open(tmp_path / "index.db", tmp_path, checkpoint_gap_s=2.0)
    try:
        db = tmp_path / "index.db"
        before = db.stat().st_size
        _write(store, checkpoint=False)
        assert db.stat().st_size < before + PAGES * 4096  # the pages are still only in the WAL
        deadline = time.monotonic() + 60
        while store._checkpointer.done == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert store._checkpointer.done == 1
        assert db.stat().st_size >= before + PAGES * 4096  # the thread copied them into the database
        assert store.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000  # other commits: as before
    finally:
        store.close()


def test_other_commits_checkpoint_themselves(tmp_path):
    store = IndexStore.open(tmp_path / "index.db", tmp_path, checkpoint_gap_s=60.0)
    try:
        before = (tmp_path / "index.db").stat().st_size
        _write(store, checkpoint=True)
        assert (tmp_path / "index.db").stat().st_size >= before + PAGES * 4096
        assert store._checkpointer.done == 0
    finally:
        store.close()


def test_searches_recording_access_keep_counts_exact(svc):
    # The record is committed when search returns, whoever checkpoints it: the next read sees every recall.
    m = svc.save("the checkpoint thread copies the write-ahead log", keywords=["wal"])
    for n in range(1, 4):  # a get is a recall too, counted before it returns
        assert svc.search("checkpoint", mode="keyword").results[0].memory.access_count == 2 * (n - 1)
        assert svc.get(m.id).access_count == 2 * n
