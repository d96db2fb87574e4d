"""A self-check of an installed or built app: with ``MEMORY_CURATOR_SMOKE_TEST=QUERY`` set, the app opens its
main window as usual, runs one keyword search for QUERY the way the search bar does (worker thread, results
list), prints what it found, closes the window (which stops the worker) and quits with 0 — or 1 if the vault
could not be opened, 2 if nothing answered in time. packaging/smoke.py drives it against the built program.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

from memory_curator.gui.widgets.search_bar import SearchQuery
from memory_curator.gui.windows.main_window import MainWindow

SMOKE_ENV = "MEMORY_CURATOR_SMOKE_TEST"
TIMEOUT_MS = 120_000  # a cold start of a frozen build on a busy machine; far above what it needs


class SmokeCheck(QObject):
    """Starts once the event loop turns (the window is shown by then); reports on stdout, then ``finish(code)``."""

    def __init__(self, window: MainWindow, query: str, finish: Callable[[int], None]):
        super().__init__(window)
        self._window = window
        self._query = query
        self._finish = finish
        self.exit_code: int | None = None
        QTimer.singleShot(0, self, self._search)  # with self as context: no call once the window is gone
        QTimer.singleShot(TIMEOUT_MS, self, lambda: self._report(2, f"no answer within {TIMEOUT_MS // 1000} s"))

    def _search(self) -> None:
        print(f"smoke: window shown ({self._window.windowTitle()})", flush=True)
        engine = self._window.engine
        if engine is None:
            self._report(1, "no vault is open")
            return
        engine.open_failed.connect(lambda exc: self._report(1, f"the vault did not open: {exc}"))
        self._window.search_finished.connect(self._on_results)
        self._window.search_flow.run(SearchQuery(self._query, mode="keyword"))

    def _on_results(self, count: int) -> None:
        self._report(0, f"keyword search {self._query!r}: {count} results")

    def _report(self, code: int, message: str) -> None:
        if self.exit_code is not None:
            return
        self.exit_code = code
        print(f"smoke: {message}", flush=True)
        self._finish(code)


def start_smoke_check(app: QApplication, window: MainWindow, query: str) -> SmokeCheck:
    """Quit with the check's code once it has reported, after the window closed its vault and worker."""
    app.setQuitOnLastWindowClosed(False)  # closing the window must not quit with 0 before the code is set

    def finish(code: int) -> None:
        window.close()
        app.exit(code)

    return SmokeCheck(window, query, finish)
