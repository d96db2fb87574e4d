"""A second connection to the index on a thread of its own, so that a hybrid search can rank by keywords
there while the caller's thread ranks by vectors: SQLite and numpy both let go of the GIL while they work,
so the two legs overlap and the search costs about the slower of them, not their sum.

The connection is opened, used and closed on that one thread. It sees what the owner has committed, so the
owner uses it only outside a transaction of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from memory_curator.core.index.db import connect
from memory_curator.core.index.store import IndexStore

T = TypeVar("T")


class SideReader:
    def __init__(self, path: Path, root: Path):
        self._path, self._root = path, root
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="index-side-reader")
        self._store: IndexStore | None = None

    def submit(self, fn: Callable[..., T], *args) -> Future[T]:
        """Run ``fn(store, *args)`` on the side thread, with its own store."""
        return self._pool.submit(self._call, fn, args)

    def _call(self, fn: Callable[..., T], args: tuple) -> T:
        if self._store is None:
            self._store = IndexStore(connect(self._path), self._root)  # the owner has run the migrations
        return fn(self._store, *args)

    def close(self) -> None:
        self._pool.submit(self._close_store).result()
        self._pool.shutdown()

    def _close_store(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
