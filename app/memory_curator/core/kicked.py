"""A background unit woken by kicks: one daemon thread, started by the first kick, that serves them in turn.

Three units work this way: the embedding backfill (core/embed/background.py), the keyword postings' build
(core/index/postings_unit.py) and the WAL's checkpoints after searches (core/index/checkpoints.py). Writes, syncs and polls kick them many times a second at worst; each kick only
counts, and one serve answers every kick counted before it began, so a burst of kicks costs one run. A process
that never kicks (a one-shot CLI command) never starts the thread.
"""

from __future__ import annotations

import threading


class Kicked:
    """The kick counters, the thread and closing. A subclass's ``_loop`` waits on ``_cond`` until
    ``_served < _asked`` or ``_closing``, serves, and sets ``_served`` to the ``_asked`` its run began at."""

    def __init__(self, thread_name: str):
        self._thread_name = thread_name
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._asked = 0  # kicks so far; a serve that started after kick n answers it
        self._served = 0
        self._closing = False

    def kick(self) -> None:
        with self._cond:
            if self._closing:
                return
            self._asked += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self._thread_name, daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def close(self, timeout: float = 1.0) -> None:
        """Ask the thread to stop (``_stop`` cuts its current step short) and wait at most ``timeout``."""
        with self._cond:
            self._closing = True
            self._stop()
            thread = self._thread
            self._cond.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _stop(self) -> None:
        """Called under ``_cond`` when closing: interrupt what the thread is doing (it must not block)."""

    def _loop(self) -> None:
        raise NotImplementedError
