"""AsyncMemoryService: the engine for asyncio code, as seed 000's API is written (``await svc.save(...)``).

MemoryService is synchronous and owns a SQLite connection bound to the thread that opened it, so this face
opens it on a thread of its own and runs every call there, off the event loop: a save that embeds, or a
search over a large vault, never stalls the loop, and calls from many tasks wait their turn in order. It
lives beside the engine, not in it (nothing in core/ imports the service facade).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from memory_curator.core.config import MemoryConfig
from memory_curator.core.embed.base import Embedder
from memory_curator.core.progress import CancelToken, ProgressFn
from memory_curator.core.service import MemoryService

T = TypeVar("T")


def _off_loop(name: str, engine_name: str | None = None) -> Callable[..., Any]:
    """An async method running ``MemoryService.<engine_name>`` on the engine thread (same signature, same
    docstring)."""
    target = getattr(MemoryService, engine_name or name)

    @functools.wraps(target)
    async def method(self: AsyncMemoryService, *args: Any, **kwargs: Any) -> Any:
        return await self.call(lambda svc: getattr(svc, engine_name or name)(*args, **kwargs))

    method.__name__ = name
    return method


class AsyncMemoryService:
    """``svc = await AsyncMemoryService.open(vault)``; every method of the seed's interface is awaitable."""

    def __init__(self, executor: ThreadPoolExecutor, svc: MemoryService):
        self._executor = executor
        self._svc = svc
        self._closed = False

    @classmethod
    async def open(cls, vault_dir: str | Path, embedder: str | Embedder = "auto",
                   config: MemoryConfig | None = None, *, sync: bool = True, progress: ProgressFn | None = None,
                   cancel: CancelToken | None = None) -> AsyncMemoryService:
        """``MemoryService.open`` on a new engine thread (the vault is read there, not on the loop). ``progress``
        hears an older index's migrations, on that thread; a cancel (or this task cancelled) stops them."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-curator-async")
        token = cancel or CancelToken()
        try:
            svc = await asyncio.wrap_future(executor.submit(MemoryService.open, vault_dir, embedder, config,
                                                            sync=sync, progress=progress, cancel=token))
        except BaseException:
            token.cancel()  # the task was cancelled while the index upgrades: the upgrade stops too
            executor.shutdown(wait=False)
            raise
        return cls(executor, svc)

    async def call(self, fn: Callable[[MemoryService], T]) -> T:
        """Run ``fn(service)`` on the engine thread: for the parts of the engine without a method here
        (``svc.graph``, ``svc.sources``, ``svc.inbox``)."""
        if self._closed:
            raise RuntimeError("This AsyncMemoryService is closed.")
        return await asyncio.wrap_future(self._executor.submit(fn, self._svc))

    async def close(self) -> None:
        if self._closed:
            return
        await self.call(MemoryService.close)
        self._closed = True
        self._executor.shutdown(wait=True)

    async def __aenter__(self) -> AsyncMemoryService:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # Seed 000's interface, in its order: CRUD, search, session, lifecycle, utility, its v1.2 additions.
    save = _off_loop("save")
    get = _off_loop("get")
    update = _off_loop("update")
    delete = _off_loop("delete")
    search = _off_loop("search")
    search_by_keywords = _off_loop("search_by_keywords")
    get_session_context = _off_loop("get_session_context")
    get_raw_session_content = _off_loop("get_raw_session_content")
    get_session_token_count = _off_loop("get_session_token_count")
    decay_salience = _off_loop("decay_salience")
    cleanup = _off_loop("cleanup")
    get_stats = _off_loop("get_stats", "stats")
    export_memories = _off_loop("export_memories")
    import_memories = _off_loop("import_memories")
    reindex_missing = _off_loop("reindex_missing")
    save_batch = _off_loop("save_batch")
    # The rest of the engine that callers of the seed's interface reach for.
    stats = _off_loop("stats")
    save_checked = _off_loop("save_checked")
    store_direct = _off_loop("store_direct")
    update_batch = _off_loop("update_batch")
    get_batch = _off_loop("get_batch")
    list_memories = _off_loop("list_memories")
    count = _off_loop("count")
    clear_expired = _off_loop("clear_expired")
    get_score = _off_loop("get_score")
    set_score = _off_loop("set_score")
    consolidate = _off_loop("consolidate")
    rebuild_index = _off_loop("rebuild_index")
    health = _off_loop("health")
    problems = _off_loop("problems")
    embedder_status = _off_loop("embedder_status")
    poll_changes = _off_loop("poll_changes")
