"""The status bar: which embedder is active, the background embedding (progress, Pause/Resume, Embed now),
the index's background upkeep (the keyword index a large vault builds, an upgraded index's fill), sync
conflicts waiting for a choice, and the progress of a long operation with its cancel button.

The background embedding runs in the engine's own unit (core/embed/background.py); its ``progress``,
``pause``, ``resume`` and ``retry`` are thread-safe, so the bar reads them on a timer from the main thread
instead of queueing requests behind an import on the engine's thread."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QStatusBar

from memory_curator.core.index.migrations import CREATING, UPGRADING
from memory_curator.core.model import EmbedderStatus

POLL_MS = 300  # how often the background embedding's progress is shown


class EngineStatusBar(QStatusBar):
    embed_requested = Signal()
    cancel_requested = Signal()
    conflicts_requested = Signal()
    embedding_settled = Signal()  # a background embedding run ended: counts and the embedder's state changed

    def __init__(self, parent=None):
        super().__init__(parent)
        self.embedder = QLabel("Opening vault…")
        self.embedder.setObjectName("embedderStatus")
        self.pending = QLabel()
        self.pending.setObjectName("embeddingStatus")
        self.embed_button = QPushButton("Embed now")
        self.embed_button.setVisible(False)
        self.embed_button.setToolTip("Embed the memories that have no vectors yet (also retries a failed embedder)")
        self.embed_progress = QProgressBar(maximumWidth=140)
        self.embed_progress.setObjectName("embeddingProgress")
        self.embed_progress.setVisible(False)
        self.pause_button = QPushButton("Pause")
        self.pause_button.setVisible(False)
        self.progress = QProgressBar(maximumWidth=220)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setVisible(False)
        self.conflicts_button = QPushButton(objectName="conflictsButton", visible=False, flat=True)
        self.conflicts_button.setToolTip("Memories that two machines changed at once: click to choose what to keep")
        self.conflicts_button.clicked.connect(self.conflicts_requested)
        self.addPermanentWidget(self.conflicts_button)
        # The index's stepped units (core/kicked.SteppedUnit): the keyword postings' build (minutes at 1,000,000
        # memories), the unreadable shares' fill after an upgrade; each says what it does and how far.
        self.upkeep = QLabel(objectName="upkeepStatus", visible=False)
        self.addPermanentWidget(self.upkeep)
        for label in (self.embedder, self.pending):
            label.setContentsMargins(8, 0, 8, 0)
        for widget in (self.progress, self.cancel_button, self.pending, self.embed_progress, self.pause_button,
                       self.embed_button, self.embedder):
            self.addPermanentWidget(widget)
        self.embed_button.clicked.connect(self.embed_now)
        self.pause_button.clicked.connect(self._pause_or_resume)
        self.cancel_button.clicked.connect(self.cancel_requested)
        self._unit: Callable[[], Any] | None = None
        self._upkeep: Callable[[], Sequence[Any]] | None = None
        self._state = "off"
        self._unembedded = 0
        self._available = False
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.poll_embedding)

    # -- the embedder and the count (refreshed by the window) ------------------------------------------

    def show_embedder(self, status: EmbedderStatus, unembedded: int) -> None:
        self.embedder.setText(status.detail)
        self.embedder.setToolTip(f"Embedder: {status.provider} {status.model or ''}".strip())
        self._unembedded, self._available = unembedded, status.available and status.provider != "none"
        if self._state in ("off", "idle"):
            self._show_count()

    def _show_count(self) -> None:
        n = self._unembedded
        self.pending.setText(f"{n} not embedded" if n else "all embedded")
        self.pending.setToolTip("")
        self.embed_button.setText("Embed now")
        self.embed_button.setVisible(n > 0 and self._unit is not None and self._unit() is not None
                                     and self._unit().embedder is not None)
        self.embed_button.setEnabled(self._available)

    # -- the background embedding ---------------------------------------------------------------------

    def watch_embedding(self, unit: Callable[[], Any]) -> None:
        """``unit()`` returns the engine's ``Embedding`` (or None while no vault is open)."""
        self._unit = unit
        self._state = "off"
        self._timer.start()
        self.poll_embedding()

    def watch_upkeep(self, units: Callable[[], Sequence[Any]]) -> None:
        """``units()`` returns the engine's stepped units (SteppedUnit: ``progress`` is thread-safe; none while
        no vault is open): those in a state they show (``SHOWN``) are shown with how far they are."""
        self._upkeep = units
        self._timer.start()
        self.poll_embedding()

    def _poll_upkeep(self) -> None:
        shown = []
        for unit in self._upkeep() if self._upkeep is not None else ():
            now = unit.progress
            if now.state in unit.SHOWN and now.total > 0:
                shown.append((f"{unit.SHOWN[now.state]}: {100 * now.done // now.total} %", unit.MEANWHILE))
        self.upkeep.setVisible(bool(shown))
        if shown:
            self.upkeep.setText(" · ".join(text for text, _ in shown))
            self.upkeep.setToolTip("\n".join(meanwhile for _, meanwhile in shown))

    def poll_embedding(self) -> None:
        self._poll_upkeep()
        unit = self._unit() if self._unit is not None else None
        progress = unit.progress if unit is not None else None
        state = progress.state if progress is not None else "off"
        was, self._state = self._state, state
        self.embed_progress.setVisible(state == "embedding")
        self.pause_button.setVisible(state in ("embedding", "paused"))
        self.pause_button.setText("Resume" if state == "paused" else "Pause")
        if state == "embedding":
            # in hundredths of a memory, so the bar moves while a long memory's chunks are embedded
            part = 100 * progress.part_done // progress.part_total if progress.part_total else 0
            self.embed_progress.setMaximum(max(100 * progress.total, 0))
            self.embed_progress.setValue(100 * progress.done + part)
            text = f"Embedding {progress.done} of {progress.total}…" if progress.total else "Embedding…"
            if progress.part_total:
                text += f" (a long memory: {part} %)"
            self.pending.setText(text)
            self.pending.setToolTip("New and changed memories get their vectors in the background; click Pause "
                                    "to stop for now.")
            self.embed_button.setVisible(False)
        elif state == "paused":
            left = progress.left
            self.pending.setText(f"Embedding paused ({left} left): click Resume" if left else
                                 "Embedding paused: click Resume")
            self.pending.setToolTip("")
            self.embed_button.setVisible(False)
        elif state in ("waiting", "stopped"):
            self.pending.setText("Embedding stopped: the vault's model changed" if state == "stopped" else
                                 "Embedding waits for the embedder: click Embed now to try again")
            self.pending.setToolTip(progress.message)
            self.embed_button.setText("Embed now")
            self.embed_button.setVisible(state == "waiting")
            self.embed_button.setEnabled(True)
        elif was != state:
            self._show_count()
        if was in ("embedding", "waiting", "paused") and state != was:
            self.embedding_settled.emit()

    def embed_now(self) -> None:
        unit = self._unit() if self._unit is not None else None
        if unit is not None:
            unit.retry()  # the same unit as the background: never a second loop over the same memories
        self.embed_requested.emit()
        self.poll_embedding()

    def _pause_or_resume(self) -> None:
        unit = self._unit() if self._unit is not None else None
        if unit is None:
            return
        if self._state == "paused":
            unit.resume()
        else:
            unit.pause()
        self.poll_embedding()

    def show_conflicts(self, count: int) -> None:
        self.conflicts_button.setText(f"⚠ {count} sync conflict{'s' if count != 1 else ''}")
        self.conflicts_button.setVisible(count > 0)

    # -- long operations ------------------------------------------------------------------------------

    def show_progress(self, done: int, total: int, message: str = "") -> None:
        self.progress.setVisible(True)
        self.cancel_button.setVisible(True)
        self.progress.setMaximum(max(total, 0))
        self.progress.setValue(done)
        if message:
            self.showMessage(message)

    def watch_opening(self, request: Any) -> None:
        """The vault's opening (the engine's ``opening`` Request): an older index's migrations say what they do,
        with a busy bar while one statement runs and how far a loop is (Cancel is the opening dialog's); a new
        index says it is being created."""

        def progress(done: int, total: int, message: str) -> None:
            self.embedder.setText(f"{CREATING if message.startswith(CREATING) else UPGRADING}…")
            self.progress.setVisible(True)
            self.progress.setMaximum(max(total, 0))
            self.progress.setValue(done)
            self.showMessage(message)

        request.progress.connect(progress)
        request.done.connect(self.hide_progress)
        request.failed.connect(self.hide_progress)

    def hide_progress(self) -> None:
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)
