"""A timer on the main thread that records its longest stall: how long the UI could not respond, and how much
of it the main thread spent working (its CPU time) rather than waiting for the GIL or for a core."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer


class Heartbeat(QObject):
    def __init__(self, interval_ms: int = 5, parent=None):
        super().__init__(parent)
        self.interval_ms = interval_ms
        self.longest_ms = 0.0
        self.longest_busy_ms = 0.0  # the main thread's CPU time within the longest stall
        self.beats = 0
        self._last = 0.0
        self._cpu = 0.0
        self._timer = QTimer(self, interval=interval_ms)
        self._timer.timeout.connect(self._beat)

    def start(self) -> None:
        self._last, self._cpu = time.perf_counter(), time.thread_time()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _beat(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        stall = (now - self._last) * 1000 - self.interval_ms
        if stall > self.longest_ms:
            self.longest_ms, self.longest_busy_ms = stall, (cpu - self._cpu) * 1000
        self._last, self._cpu = now, cpu
        self.beats += 1
