"""Progress reporting and cancellation for long operations (batch save, rebuild, reindex, import)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from memory_curator.core.errors import Cancelled

# progress(done, total, message)
ProgressFn = Callable[[int, int, str], None]
# part(done, total): how far the item under way is, for one that takes many steps (a long memory's chunks)
PartFn = Callable[[int, int], None]


class CancelToken:
    """Thread-safe flag a UI sets to stop a long operation at the next item boundary."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


class Tracker:
    """Wraps an optional callback and token so engine loops stay one line per step."""

    def __init__(self, total: int, progress: ProgressFn | None = None, cancel: CancelToken | None = None,
                 part: PartFn | None = None):
        self.total = total
        self.done = 0
        self._progress = progress
        self._cancel = cancel
        self._part = part

    def check(self) -> None:
        if self._cancel is not None and self._cancel.cancelled:
            raise Cancelled(self.done, self.total)

    def step(self, n: int = 1, message: str = "") -> None:
        self.done += n
        if self._progress is not None:
            self._progress(self.done, self.total, message)
        self.check()

    def part(self, done: int, total: int) -> None:
        """The item under way is ``done`` of ``total`` steps along (it is not counted done yet)."""
        if self._part is not None:
            self._part(done, total)
        self.check()
