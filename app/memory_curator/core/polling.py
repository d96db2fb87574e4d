"""What a poller (the servers' change polling, the app's poll timer) does with a poll that failed: it logs it
once per run of failures, as the user's environment (a message) or our bug (its traceback), and polls again.
One failure never ends polling."""

from __future__ import annotations

import logging

from memory_curator.core.errors import CuratorError

log = logging.getLogger(__name__)


class PollFailures:
    def __init__(self, what: str = "Checking the vault for changes"):
        self._what = what
        self._last: str | None = None

    def failed(self, exc: Exception) -> None:
        key = f"{type(exc).__name__}: {exc}"
        if key != self._last:
            if isinstance(exc, CuratorError):  # the user's environment: a message, no traceback
                log.warning("%s failed (trying again at the next poll): %s", self._what, exc)
            else:  # a bug of ours
                log.error("%s failed (trying again at the next poll)", self._what, exc_info=exc)
        self._last = key

    def succeeded(self) -> None:
        if self._last is not None:
            log.info("%s works again.", self._what)
        self._last = None
