"""A one-line label that ends in "…" where its text does not fit, and shows the whole text as its tooltip.

The results line below the list holds the query, of any length, beside the selection's salience control: clipped
at the pane's edge it read '2 results for "database choice" (hybri' in a 1280 px window with a memory selected.
``text()`` stays the whole text (what is read aloud and what the tests read); only the painting is shortened.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel


class ElidedLabel(QLabel):
    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        super().setText(text)
        self.setToolTip(text)

    def shown_text(self) -> str:
        """What is painted: the text, cut with "…" at the label's width when it does not fit."""
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, self.contentsRect().width())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.drawText(self.contentsRect(), int(self.alignment() | Qt.AlignmentFlag.AlignVCenter), self.shown_text())
