"""The bearer token of the HTTP API and of MCP over HTTP, in the settings: hidden until asked, copyable. Never
generated from here: the first `memory-curator serve` (or `mcp --http`) creates it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QHBoxLayout, QLineEdit, QPushButton, QWidget

from memory_curator.serving.auth import default_token_path, read_token


class ApiTokenField(QWidget):
    def __init__(self, path: Path | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("apiTokenField")
        self.path = path or default_token_path()
        self.token = read_token(self.path)
        self.edit = QLineEdit(self.token or "")
        self.edit.setReadOnly(True)
        self.edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.edit.setPlaceholderText("None yet: run memory-curator serve once")
        self.edit.setToolTip(f"Bearer token of the local HTTP API and MCP over HTTP, kept in {self.path}. The first "
                             "`memory-curator serve` (or `memory-curator mcp --http`) creates it.")
        # Wide enough for the whole placeholder: a cut-off hint is no hint.
        self.edit.setMinimumWidth(self.edit.fontMetrics().horizontalAdvance(self.edit.placeholderText()) + 24)
        self.show_button = QPushButton("Show")
        self.show_button.setCheckable(True)
        self.show_button.toggled.connect(self._toggle)
        self.copy_button = QPushButton("Copy")
        self.copy_button.clicked.connect(lambda: QApplication.clipboard().setText(self.token or ""))
        for b in (self.show_button, self.copy_button):
            b.setEnabled(self.token is not None)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.edit, 1)
        lay.addWidget(self.show_button)
        lay.addWidget(self.copy_button)

    def _toggle(self, shown: bool) -> None:
        self.edit.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.show_button.setText("Hide" if shown else "Show")
