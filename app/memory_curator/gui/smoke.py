"""A self-check of an installed or built app: with ``MEMORY_CURATOR_SMOKE_TEST=QUERY`` set, the app opens its
main window as usual, runs one keyword search for QUERY through the worker thread, prints what it found and
quits with 0 (1 if the search failed, 2 if nothing answered in time). packaging/smoke.py drives it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from memory_curator.gui.worker import Engine

SMOKE_ENV = "MEMORY_CURATOR_SMOKE_TEST"
TIMEOUT_MS = 120_000  # a cold start of a frozen build on a busy machine; far above what it needs


class SmokeCheck(QObject):
    """Runs once the event loop turns (the window is shown by then), reports on stdout, then calls ``finish``."""

    def __init__(self, engine: Engine, query: str, finish: Callable[[int], None], parent: QObject | None = None):
        super().__init__(parent)
        self._engine = engine
        self._query = query
        self._finish = finish
        self._done = False
        self.exit_code: int | None = None
        QTimer.singleShot(0, self._search)
        QTimer.singleShot(TIMEOUT_MS, lambda: self._report(2, f"no answer within {TIMEOUT_MS // 1000} s"))

    def _search(self) -> None:
        print("smoke: window shown", flush=True)
        request = self._engine.call("search", self._query, mode="keyword", limit=100, key="smoke-test")
        request.done.connect(
            lambda results: self._report(0, f"keyword search {self._query!r}: {len(results)} results"))
        request.failed.connect(lambda exc: self._report(1, f"search failed: {exc}"))

    def _report(self, code: int, message: str) -> None:
        if self._done:
            return
        self._done = True
        self.exit_code = code
        print(f"smoke: {message}", flush=True)
        self._finish(code)
