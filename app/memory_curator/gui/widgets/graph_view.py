"""The neighbourhood of one memory drawn with Qt Graphics View: the memory in the middle, the entities it
mentions on an inner ring, the memories linked to it on an outer ring. Drag to pan, wheel (or +/-) to zoom,
click a memory to open it."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
)

from memory_curator.core.graph.graph import Neighbourhood

MEMORY_ID = 0  # QGraphicsItem data key holding the memory id of a node
KIND_COLOURS = {"wikilink": "#2e7d32", "entity": "#9e9e9e", "supersedes": "#c62828", "superseded_by": "#c62828",
                "consolidated_from": "#6a1b9a", "part": "#1565c0", "parent": "#1565c0", "link": "#ef6c00"}


def _elide(text: str, n: int = 28) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


class GraphView(QGraphicsView):
    memory_clicked = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setAccessibleName("Graph of the selected memory")
        self.nodes: dict[str, QGraphicsItem] = {}  # memory id or "entity:<name>" -> its node
        self.show_message("Select a memory to see its entities and links.")

    # -- content --------------------------------------------------------------------------------------

    def show_message(self, text: str) -> None:
        self.scene().clear()
        self.nodes = {}
        self.scene().addSimpleText(text)

    def show_neighbourhood(self, hood: Neighbourhood) -> None:
        scene = self.scene()
        scene.clear()
        self.nodes = {}
        pal = self.palette()
        text_colour = pal.text().color()
        center = hood.memories.get(hood.center)
        if center is None:
            self.show_message("This memory is not in the index.")
            return
        self._memory_node(hood.center, center.title, QPointF(0, 0), "#90caf9", text_colour)
        entities = hood.entities.get(hood.center, [])
        for i, name in enumerate(entities):
            a = 2 * math.pi * i / max(1, len(entities))
            pos = QPointF(150 * math.cos(a), 150 * math.sin(a))
            self._line(QPointF(0, 0), pos, "#bdbdbd")
            node = self._box(pos, name, "#fff3e0", text_colour)
            self.nodes[f"entity:{name}"] = node
        others = [mid for mid in hood.memories if mid != hood.center]
        kinds: dict[str, str] = {}
        for lk in hood.links:
            other = lk.target if lk.source == hood.center else lk.source
            kinds.setdefault(other, lk.kind)
        for i, mid in enumerate(others):
            a = 2 * math.pi * i / max(1, len(others)) + 0.3
            pos = QPointF(330 * math.cos(a), 330 * math.sin(a))
            colour = KIND_COLOURS.get(kinds.get(mid, "entity"), "#9e9e9e")
            self._line(QPointF(0, 0), pos, colour)
            self._memory_node(mid, hood.memories[mid].title, pos, "#e3f2fd", text_colour,
                              tip=f"{kinds.get(mid, 'linked')}: {hood.memories[mid].title}")
        scene.setSceneRect(scene.itemsBoundingRect().adjusted(-40, -40, 40, 40))
        self.resetTransform()
        self.fitInView(scene.sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)

    def _line(self, a: QPointF, b: QPointF, colour: str) -> None:
        line = self.scene().addLine(a.x(), a.y(), b.x(), b.y(), QPen(QColor(colour), 1.5))
        line.setZValue(-1)

    def _memory_node(self, mid: str, title: str, pos: QPointF, fill: str, text_colour: QColor,
                     tip: str | None = None) -> None:
        node = QGraphicsEllipseItem(-70, -22, 140, 44)
        node.setPos(pos)
        node.setBrush(QBrush(QColor(fill)))
        node.setPen(QPen(QColor("#1565c0"), 1.2))
        node.setData(MEMORY_ID, mid)
        node.setCursor(Qt.CursorShape.PointingHandCursor)
        node.setToolTip(tip or title)
        label = QGraphicsSimpleTextItem(_elide(title), node)
        label.setBrush(QBrush(QColor("#0d1b2a")))
        r = label.boundingRect()
        label.setPos(-r.width() / 2, -r.height() / 2)
        self.scene().addItem(node)
        self.nodes[mid] = node

    def _box(self, pos: QPointF, name: str, fill: str, text_colour: QColor) -> QGraphicsItem:
        label = QGraphicsSimpleTextItem(_elide(name, 24))
        r = label.boundingRect()
        box = QGraphicsRectItem(-r.width() / 2 - 6, -r.height() / 2 - 3, r.width() + 12, r.height() + 6)
        box.setPos(pos)
        box.setBrush(QBrush(QColor(fill)))
        box.setPen(QPen(QColor("#ef6c00"), 1))
        box.setToolTip(f"Entity: {name}")
        label.setParentItem(box)
        label.setBrush(QBrush(QColor("#3e2723")))
        label.setPos(-r.width() / 2, -r.height() / 2)
        self.scene().addItem(box)
        return box

    # -- interaction ----------------------------------------------------------------------------------

    def zoom(self, factor: float) -> None:
        scale = self.transform().m11() * factor
        if 0.1 <= scale <= 8:
            self.scale(factor, factor)

    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.zoom(1.15 if event.angleDelta().y() > 0 else 1 / 1.15)
        event.accept()

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.key() in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(1.15)
        elif event.key() == Qt.Key.Key_Minus:
            self.zoom(1 / 1.15)
        else:
            super().keyPressEvent(event)

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self._pressed_at = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().mouseReleaseEvent(event)
        pressed = getattr(self, "_pressed_at", None)
        if pressed is not None and (event.position().toPoint() - pressed).manhattanLength() > 6:
            return  # the end of a drag (pan), not a click
        item = self.itemAt(event.position().toPoint())
        while item is not None and item.data(MEMORY_ID) is None:
            item = item.parentItem()
        if item is not None and event.button() == Qt.MouseButton.LeftButton:
            self.memory_clicked.emit(item.data(MEMORY_ID))
