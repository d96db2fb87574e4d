"""Memory a bulk step freed goes back to the system (core/heap.py): glibc kept it in its arenas otherwise."""

from __future__ import annotations

import sys
import threading

import pytest

from memory_curator.core import heap

pytestmark = pytest.mark.skipif(heap._TRIM is None, reason="no malloc_trim: not glibc")


def _anon_mb() -> float:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("RssAnon:")) / 1024


def _fragment(held: list) -> None:
    """200 MB of 2 KB blocks (past pymalloc: glibc's), one in 64 kept: the rest is free, in pages nothing holds,
    between blocks that pin the heap's top, so that free() alone returns nothing."""
    blocks = [bytes(2048) for _ in range(100_000)]
    held.extend(blocks[63::64])


def test_give_back_returns_the_free_pages_of_a_threads_arena():
    assert sys.platform.startswith("linux")
    held: list = []
    worker = threading.Thread(target=_fragment, args=(held,))  # a thread of its own: not the main arena
    worker.start()
    worker.join()
    before = _anon_mb()
    assert heap.give_back()
    after = _anon_mb()
    assert before - after > 100, (before, after)
    assert len(held) == 1562 and all(len(b) == 2048 for b in held)


def test_a_connections_page_cache_is_given_back_after_a_scan(tmp_path):
    """IndexStore.drop_cache after a scan of every row (a full sync, Vault health): the 64 MB page cache the scan
    filled is emptied, and given back with the arenas' free pages. Unmapped, as the app's writer reads a large
    index: mapped pages never enter the cache."""
    from memory_curator.core.index import db
    from memory_curator.core.index.store import IndexStore

    conn = db.connect(tmp_path / "index.db")
    conn.execute("PRAGMA mmap_size = 0")
    conn.execute("CREATE TABLE t (a BLOB)")
    conn.executemany("INSERT INTO t VALUES (randomblob(3000))", [()] * 30_000)  # ~100 MB: past the cache
    store = IndexStore(conn, tmp_path)

    assert sum(len(a) for (a,) in conn.execute("SELECT a FROM t")) == 90_000_000
    heap.give_back()  # only what the cache holds is left
    full = _anon_mb()
    store.drop_cache()
    heap.give_back()
    assert full - _anon_mb() > 40, full
    store.close()
