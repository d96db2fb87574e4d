"""The engine on one thread, for asynchronous servers (HTTP, MCP).

MemoryService owns a SQLite connection bound to the thread that opened it, so every call runs on one
dedicated thread; requests wait their turn there, in order. Between requests the thread polls for changes made
by other processes (and commits pending git history), so a long-running server never serves a stale index.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from memory_curator.core.errors import Cancelled
from memory_curator.core.polling import PollFailures
from memory_curator.core.progress import CancelToken
from memory_curator.core.service import MemoryService

log = logging.getLogger(__name__)
T = TypeVar("T")
POLL_S = 1.0


class ServiceWorker:
    def __init__(self, opener: Callable[[], MemoryService]):
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-curator-engine")
        self.svc: MemoryService = self._executor.submit(opener).result()
        # A large vault's vector codes load in the background from now on (14-17 s at 1,000,000 chunks; the first
        # semantic search held this one thread 30 s loading them); searches answer by keyword meanwhile, with a
        # VECTORS_LOADING notice.
        self._executor.submit(self.svc.warm_search).result()
        self._closed = False
        # Set by close: a poll's sync running then stops at its next batch (a full sync of 1,000,000 files takes
        # ~20 s, which a SIGTERM'd server waited for before closing).
        self.poll_cancel = CancelToken()

    def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn(svc, *args, **kwargs)`` on the engine thread and wait for it (from a non-async caller)."""
        return self._executor.submit(fn, self.svc, *args, **kwargs).result()

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn(svc, *args, **kwargs)`` on the engine thread without blocking the event loop."""
        return await asyncio.wrap_future(self._executor.submit(fn, self.svc, *args, **kwargs))

    async def poll_forever(self, every_s: float = POLL_S) -> None:
        """Keep the index in step with other processes and commit history; runs until cancelled. A poll that
        fails (the index locked by another program for a while, a full disk, or a bug of ours) is logged once
        per run of failures and the next poll tries again (core/polling.py)."""
        failures = PollFailures()
        while True:
            await asyncio.sleep(every_s)
            try:
                await self.call(MemoryService.poll_changes, cancel=self.poll_cancel)
            except Cancelled:
                return  # closing
            except Exception as exc:  # noqa: BLE001 - logged (a message or a traceback) and polled again
                failures.failed(exc)
            else:
                failures.succeeded()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.poll_cancel.cancel()
        self._executor.submit(self.svc.close).result()
        self._executor.shutdown(wait=True)
