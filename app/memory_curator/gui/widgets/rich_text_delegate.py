"""Paints a cell's HTML (the highlighted snippet) on one line, elided by the cell's width."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QAbstractTextDocumentLayout, QPalette, QTextDocument
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem


class RichTextDelegate(QStyledItemDelegate):
    def __init__(self, html_role: int, parent=None):
        super().__init__(parent)
        self._role = html_role

    def paint(self, painter, option, index) -> None:
        html = index.data(self._role)
        if not html:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        doc = QTextDocument()
        doc.setDefaultFont(opt.font)
        doc.setDocumentMargin(2)
        doc.setHtml(html)
        doc.setTextWidth(10_000)  # one line; the clip below cuts it at the cell
        ctx = QAbstractTextDocumentLayout.PaintContext()
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        group = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        ctx.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(group))
        painter.save()
        painter.setClipRect(opt.rect)
        y = opt.rect.top() + max(0.0, (opt.rect.height() - doc.size().height()) / 2)
        painter.translate(opt.rect.left(), y)
        ctx.clip = QRectF(0, 0, opt.rect.width(), opt.rect.height())
        doc.documentLayout().draw(painter, ctx)
        painter.restore()

    def sizeHint(self, option, index) -> QSize:
        size = super().sizeHint(option, index)
        return QSize(size.width(), max(size.height(), option.fontMetrics.height() + 6))

