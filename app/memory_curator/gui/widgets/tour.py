"""A three-step first-run tour (search, edit, import): a small card beside the part of the window it is
about. Finishing or skipping it (Skip, or Escape) dismisses it for good; Help › Show the tour brings it back."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget


@dataclass(frozen=True)
class Step:
    target: QWidget
    title: str
    text: str


class Tour(QFrame):
    finished = Signal()  # done or skipped: not shown again at start

    def __init__(self, steps: list[Step], parent: QWidget):
        super().__init__(parent)
        self.setObjectName("firstRunTour")
        self.setAccessibleName("Tour")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.steps = steps
        self.index = 0
        self.heading = QLabel()
        self.heading.setObjectName("tourHeading")
        self.body = QLabel(wordWrap=True)
        self.counter = QLabel()
        self.skip_button = QPushButton("Skip tour")
        self.back_button = QPushButton("Back")
        self.next_button = QPushButton("Next")
        self.next_button.setDefault(True)
        self.skip_button.clicked.connect(self.finish)
        self.back_button.clicked.connect(lambda: self.go(self.index - 1))
        self.next_button.clicked.connect(self._next)
        buttons = QHBoxLayout()
        buttons.addWidget(self.counter, 1)
        buttons.addWidget(self.skip_button)
        buttons.addWidget(self.back_button)
        buttons.addWidget(self.next_button)
        lay = QVBoxLayout(self)
        lay.addWidget(self.heading)
        lay.addWidget(self.body)
        lay.addLayout(buttons)
        self.setFixedWidth(340)
        # Escape closes the tour as Skip does, wherever the focus is in the window: the window sees the key once
        # no widget claimed it (the search box, the list and the editor do not), before Edit › Find's Escape.
        parent.installEventFilter(self)
        self.go(0)

    def go(self, index: int) -> None:
        self.index = max(0, min(len(self.steps) - 1, index))
        step = self.steps[self.index]
        self.heading.setText(f"<b>{step.title}</b>")
        self.body.setText(step.text)
        self.counter.setText(f"{self.index + 1} of {len(self.steps)}")
        self.back_button.setEnabled(self.index > 0)
        self.next_button.setText("Done" if self.index == len(self.steps) - 1 else "Next")
        # A wrapped label's height depends on the width: adjustSize alone leaves the text cut off.
        self.setFixedHeight(max(self.minimumSizeHint().height(), self.heightForWidth(self.width())))
        self._place(step.target)
        self.raise_()
        self.next_button.setFocus()

    def _next(self) -> None:
        if self.index == len(self.steps) - 1:
            self.finish()
        else:
            self.go(self.index + 1)

    def _place(self, target: QWidget) -> None:
        """Just below the target when there is room; else to its left, level with its top; else over its
        middle. Always inside the window, never over the part it is about when it can be helped."""
        parent = self.parentWidget()
        top_left = target.mapTo(parent, QPoint(0, 0))
        w, h, margin = self.width(), self.height(), 8
        if top_left.y() + target.height() + 6 + h <= parent.height() - margin:
            x, y = top_left.x(), top_left.y() + target.height() + 6
        elif top_left.x() - w - margin >= margin:
            x, y = top_left.x() - w - margin, top_left.y() + 30
        else:
            x, y = top_left.x() + (target.width() - w) // 2, top_left.y() + (target.height() - h) // 2
        self.move(max(margin, min(parent.width() - w - margin, x)), max(margin, min(parent.height() - h - margin, y)))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) and self.isVisible() and \
                isinstance(event, QKeyEvent) and event.key() == Qt.Key.Key_Escape:
            event.accept()  # an accepted override: the key is not Find's shortcut, it comes as a key press
            if event.type() == QEvent.Type.KeyPress:
                self.finish()
            return True
        return False

    def finish(self) -> None:
        self.parentWidget().removeEventFilter(self)
        self.hide()
        self.finished.emit()
        self.deleteLater()
