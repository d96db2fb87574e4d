"""Settings: the Ollama host and model, the embedder, and decay rates per category."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
)

from memory_curator.gui.settings import AppSettings
from memory_curator.gui.widgets.api_token import ApiTokenField


class SettingsDialog(QDialog):
    def __init__(self, settings: AppSettings, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.settings = settings
        config = settings.memory_config()
        self.host = QLineEdit(settings.ollama_host or config.ollama_host)
        self.model = QLineEdit(settings.ollama_model or config.ollama_model)
        self.embedder = QComboBox()
        for key, label in (("auto", "Automatic (the vault's model, or the best available)"),
                           ("ollama", "Ollama"), ("local", "Bundled offline model"), ("none", "None: keyword only")):
            self.embedder.addItem(label, key)
        self.embedder.setCurrentIndex(max(0, self.embedder.findData(settings.embedder)))
        self.rates: dict[str, QDoubleSpinBox] = {}
        form = QFormLayout()
        self.vault = QLineEdit(str(settings.vault or ""), readOnly=True)
        choose = QPushButton("Choose…")
        choose.clicked.connect(self._choose_vault)
        vault_row = QHBoxLayout()
        vault_row.addWidget(self.vault, 1)
        vault_row.addWidget(choose)
        form.addRow("Vault folder", vault_row)
        form.addRow("Embedder", self.embedder)
        form.addRow("Ollama host", self.host)
        form.addRow("Ollama model", self.model)
        self.api_token = ApiTokenField()
        form.addRow("HTTP API token", self.api_token)
        for category, rate in sorted(config.category_decay_rates.items()):
            spin = QDoubleSpinBox(minimum=0.5, maximum=1.0, singleStep=0.01, decimals=3, value=rate)
            spin.setToolTip("Salience is multiplied by this per decay period of disuse (1.0: never decays)")
            self.rates[category] = spin
            form.addRow(f"Decay rate: {category}", spin)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(QLabel("Changes take effect when the vault is reopened (done for you on Save)."))
        lay.addWidget(buttons)

    def _choose_vault(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Vault folder", self.vault.text())
        if folder:
            self.vault.setText(folder)

    def chosen_vault(self) -> Path | None:
        return Path(self.vault.text()) if self.vault.text() else None

    def accept(self) -> None:
        self.settings.save(ollama_host=self.host.text(), ollama_model=self.model.text(),
                           embedder=self.embedder.currentData(),
                           decay_rates={c: s.value() for c, s in self.rates.items()})
        super().accept()
