"""Names for screen readers: every control a user can reach says what it is.

Qt names a button by its text, but a line edit, list or combo box only by ``accessibleName``; a label beside
it is read only when it is the control's buddy, which a form row whose field is a small layout (a line edit
with a "Choose…" button) does not make. ``name_from_labels`` gives each unnamed control the text of the label
it sits beside (its form row's label, or the label just above it), else its tooltip's first sentence.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QBoxLayout,
    QComboBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLayout,
    QLayoutItem,
    QLineEdit,
    QPlainTextEdit,
    QSlider,
    QTextEdit,
    QWidget,
)

CONTROLS = (QAbstractButton, QLineEdit, QComboBox, QAbstractSpinBox, QSlider, QAbstractItemView, QPlainTextEdit,
            QTextEdit)


def _named(control: QWidget) -> bool:
    text = getattr(control, "text", None)
    return bool(control.accessibleName() or (isinstance(control, QAbstractButton) and text and text()))


def _is_part(control: QWidget) -> bool:
    """A header is read with its table; a combo box's or spin box's inner editor with its box."""
    return isinstance(control, QHeaderView) or isinstance(control.parent(), (QComboBox, QAbstractSpinBox))


def unnamed_controls(root: QWidget) -> list[QWidget]:
    """The controls under ``root`` that a screen reader could only call by their kind."""
    return [c for kind in CONTROLS for c in root.findChildren(kind)
            if c.isVisibleTo(root) and not _named(c) and not _is_part(c)]


def _label_text(label: QLabel) -> str:
    return label.text().replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip(":").strip()


def _controls_in(item: QLayoutItem | None) -> list[QWidget]:
    if item is None:
        return []
    widget = item.widget()
    if widget is not None:
        if isinstance(widget, CONTROLS):
            return [widget]
        return [c for c in widget.findChildren(QWidget) if isinstance(c, CONTROLS)]  # in the order made
    layout: QLayout | None = item.layout()
    if layout is None:
        return []
    return [c for i in range(layout.count()) for c in _controls_in(layout.itemAt(i))]


def _name(control: QWidget, text: str) -> None:
    if text and not _named(control) and not _is_part(control):
        control.setAccessibleName(text)


def name_from_labels(root: QWidget) -> None:
    """Name the unnamed controls under ``root`` from the labels they sit beside (see the module's doc)."""
    for form in root.findChildren(QFormLayout):
        for row in range(form.rowCount()):
            label = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
            if label is not None and isinstance(label.widget(), QLabel):
                for control in _controls_in(form.itemAt(row, QFormLayout.ItemRole.FieldRole))[:1]:
                    _name(control, _label_text(label.widget()))
    for box in root.findChildren(QBoxLayout):
        for i in range(1, box.count()):
            above = box.itemAt(i - 1).widget()
            if isinstance(above, QLabel) and box.direction() == QBoxLayout.Direction.TopToBottom:
                for control in _controls_in(box.itemAt(i))[:1]:
                    _name(control, _label_text(above))
    for control in unnamed_controls(root):
        hint = control.toolTip().split(". ")[0].rstrip(".")
        placeholder = control.placeholderText() if isinstance(control, QLineEdit) else ""
        _name(control, hint or placeholder)
