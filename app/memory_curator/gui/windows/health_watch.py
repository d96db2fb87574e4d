"""Vault health kept current: checked when a vault opens (after its opening sync), after imports, deletes and
long operations, after changes by other programs, and whenever its pane comes forward, so the Vault health pane never shows a stale "healthy"; problems a
user has to act on (files that could not be read, memories whose file is gone) show in the status bar, and a
click there opens the pane. Checks are coalesced: a burst of changes runs one check."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QToolButton

from memory_curator.core.health import VaultHealth
from memory_curator.core.model import VaultProblem

DELAY_MS = 400  # a burst of changes (an import, a git pull) is checked once


def problems_text(report: VaultHealth) -> str:
    """The status bar's words for what needs the user, or "" when nothing does."""
    parts = []
    if report.unreadable:
        n = len(report.unreadable)
        parts.append(f"{n} file{'s' if n != 1 else ''} could not be read")
    if report.missing_files:
        n = len(report.missing_files)
        parts.append(f"{n} memor{'ies' if n != 1 else 'y'} without a file")
    return "⚠ " + ", ".join(parts) if parts else ""


def with_skipped(report: VaultHealth, skipped: list[VaultProblem]) -> VaultHealth:
    """The report with the files and folders the writer's scan skipped (see Engine.skipped_names) as unreadable."""
    known = {p.path for p in report.unreadable}
    extra = [p for p in skipped if p.path not in known]
    return replace(report, unreadable=[*report.unreadable, *extra]) if extra else report


class HealthWatch:
    def __init__(self, window):
        self.w = window
        self.last: VaultHealth | None = None
        self.indicator = QToolButton()
        self.indicator.setObjectName("healthIndicator")
        self.indicator.setAutoRaise(True)
        self.indicator.setVisible(False)
        self.indicator.setToolTip("Open Vault health: what could not be read, and why")
        self.indicator.clicked.connect(lambda: window.show_pane(window.health))
        window.status.addPermanentWidget(self.indicator)
        self._timer = QTimer(window)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DELAY_MS)
        self._timer.timeout.connect(self.check_now)
        # An edit or a salience change made here cannot make a file unreadable, and a check reads every file's
        # stat (0.7 s at 20,000 memories, on the thread searches use): those are checked when the pane is shown.
        window.changed.connect(lambda kind: self.check() if kind not in ("edit", "salience") else None)
        window.side.currentChanged.connect(lambda _i: self.check() if window.side.currentWidget() is window.health
                                           else None)

    def check(self) -> None:
        """Check soon (several calls in a row make one check)."""
        self._timer.start()

    def check_now(self) -> None:
        self._timer.stop()
        if self.w.engine is None:
            return
        engine = self.w.engine
        req = engine.call("health", key="health", slow_read=True)  # seconds at 1,000,000: not before searches
        req.done.connect(lambda report: self.show(with_skipped(report, engine.skipped_names())))

    def show(self, report: VaultHealth) -> None:
        self.last = report
        self.w.health.show_health(report)
        text = problems_text(report)
        self.indicator.setText(text)
        self.indicator.setVisible(bool(text))
