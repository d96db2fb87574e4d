"""A salience slider and spin box kept in step; arrow keys and Page Up/Down adjust it.

``changed`` fires on every step; ``committed`` fires once the user pauses (so holding an arrow key makes one
engine write, not twenty)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QSlider, QWidget

COMMIT_DELAY_MS = 400


class SalienceControl(QWidget):
    changed = Signal(float)
    committed = Signal(float)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.slider = QSlider(Qt.Orientation.Horizontal, minimum=0, maximum=100, singleStep=1, pageStep=10)
        self.slider.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.slider.setAccessibleName("Salience")
        self.slider.setToolTip("Salience: how important this memory is (arrow keys ±0.01, Page Up/Down ±0.1)")
        self.spin = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.01, decimals=2)
        self.spin.setAccessibleName("Salience value")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.slider, 1)
        lay.addWidget(self.spin)
        self._timer = QTimer(self, singleShot=True, interval=COMMIT_DELAY_MS)
        self._timer.timeout.connect(lambda: self.committed.emit(self.value()))
        self.slider.valueChanged.connect(self._from_slider)
        self.spin.valueChanged.connect(self._from_spin)

    def value(self) -> float:
        return round(self.spin.value(), 2)

    def set_value(self, value: float) -> None:
        """Show a value without emitting anything (loading a memory is not a change)."""
        for w in (self.slider, self.spin):
            w.blockSignals(True)
        self.spin.setValue(value)
        self.slider.setValue(round(value * 100))
        for w in (self.slider, self.spin):
            w.blockSignals(False)
        self._timer.stop()

    def _from_slider(self, v: int) -> None:
        self.spin.blockSignals(True)
        self.spin.setValue(v / 100)
        self.spin.blockSignals(False)
        self._changed()

    def _from_spin(self, v: float) -> None:
        self.slider.blockSignals(True)
        self.slider.setValue(round(v * 100))
        self.slider.blockSignals(False)
        self._changed()

    def _changed(self) -> None:
        self.changed.emit(self.value())
        self._timer.start()

    def commit_now(self) -> None:
        if self._timer.isActive():
            self._timer.stop()
            self.committed.emit(self.value())
