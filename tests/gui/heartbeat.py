"""A timer on the main thread that records its longest stall: how long the UI could not respond."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer


class Heartbeat(QObject):
    def __init__(self, interval_ms: int = 5, parent=None):
        super().__init__(parent)
        self.interval_ms = interval_ms
        self.longest_ms = 0.0
        self.beats = 0
        self._last = 0.0
        self._timer = QTimer(self, interval=interval_ms)
        self._timer.timeout.connect(self._beat)

    def start(self) -> None:
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _beat(self) -> None:
        now = time.perf_counter()
        self.longest_ms = max(self.longest_ms, (now - self._last) * 1000 - self.interval_ms)
        self._last = now
        self.beats += 1
