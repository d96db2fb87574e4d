"""Settings: the Ollama host and model, the embedder, and decay rates per category.

Each value says where it comes from (the environment for this run, saved, or the default), and Save writes
only what the user changed: a host that came from ``OLLAMA_HOST`` never becomes a saved setting by pressing
Save, so it does not outlive the variable."""

from __future__ import annotations

from collections.abc import Iterable
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
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from memory_curator.core.config import MemoryConfig
from memory_curator.core.graph.labelling import label_set_of, save_label_set
from memory_curator.core.vault.settings import VaultSettings
from memory_curator.gui.accessibility import name_from_labels
from memory_curator.gui.settings import AppSettings
from memory_curator.gui.widgets.api_token import ApiTokenField
from memory_curator.gui.windows.label_set_tab import LabelSetTab

NEVER = 1.0  # a category without a rate never decays


def origin_text(settings: AppSettings, key: str) -> str:
    where, var = settings.origin(key)
    if where == "environment":
        return f"From the environment ({var}) for this run: it wins over a saved value and is not saved"
    return "Saved" if where == "saved" else "Default"


class SettingsDialog(QDialog):
    def __init__(self, settings: AppSettings, parent=None, categories: Iterable[str] = (),
                 vault_settings: VaultSettings | None = None):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.settings = settings
        config = settings.memory_config()
        defaults = MemoryConfig()
        self.host = QLineEdit(config.ollama_host)
        self.host.setPlaceholderText(defaults.ollama_host)
        self.model = QLineEdit(config.ollama_model)
        self.model.setPlaceholderText(defaults.ollama_model)
        self.origins = {key: QLabel(origin_text(settings, key)) for key in ("ollama_host", "ollama_model", "embedder")}
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
        form.addRow("Embedder", self._with_origin(self.embedder, self.origins["embedder"]))
        form.addRow("Ollama host", self._with_origin(self.host, self.origins["ollama_host"]))
        form.addRow("Ollama model", self._with_origin(self.model, self.origins["ollama_model"]))
        self.api_token = ApiTokenField()
        form.addRow("HTTP API token", self.api_token)
        rates = {**dict.fromkeys(categories, NEVER), **config.category_decay_rates}
        saved = settings.decay_rates
        for category, rate in sorted(rates.items()):
            spin = QDoubleSpinBox(minimum=0.5, maximum=1.0, singleStep=0.01, decimals=3, value=rate)
            spin.setSuffix("  (saved)" if category in saved else "  (default)")
            spin.setToolTip("Salience is multiplied by this per decay period of disuse (1.0: never decays). "
                            + ("You saved this rate." if category in saved else "The default rate."))
            self.rates[category] = spin
            form.addRow(f"Decay rate: {category}", spin)
        self._initial = self._values()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        # The open vault's own settings (its label set) get their own tab: label_set_tab.py.
        self.vault_settings = vault_settings
        self.labels_tab = LabelSetTab(label_set_of(vault_settings)) if vault_settings is not None else None
        if self.labels_tab is None:
            lay.addLayout(form)
        else:
            self.tabs = QTabWidget()
            general = QWidget()
            general.setLayout(form)
            self.tabs.addTab(general, "&General")
            self.tabs.addTab(self.labels_tab, "&Labels")
            lay.addWidget(self.tabs)
        lay.addWidget(QLabel("Save keeps only what you changed. Changes take effect when the vault is reopened "
                             "(done for you on Save)."))
        lay.addWidget(buttons)
        name_from_labels(self)

    @staticmethod
    def _with_origin(edit: QWidget, origin: QLabel) -> QWidget:
        box = QWidget()
        col = QVBoxLayout(box)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(2)
        origin.setWordWrap(True)
        origin.setEnabled(False)  # drawn as secondary text
        col.addWidget(edit)
        col.addWidget(origin)
        return box

    def _values(self) -> dict:
        return {"ollama_host": self.host.text().strip(), "ollama_model": self.model.text().strip(),
                "embedder": self.embedder.currentData(),
                "decay_rates": {c: round(s.value(), 3) for c, s in self.rates.items()}}

    def changes(self) -> dict:
        """What the user changed since the dialog opened (only that is saved)."""
        now, before = self._values(), self._initial
        out = {k: v for k, v in now.items() if k != "decay_rates" and v != before[k]}
        rates = {c: v for c, v in now["decay_rates"].items() if v != before["decay_rates"].get(c)}
        if rates:
            out["decay_rates"] = rates
        return out

    def _choose_vault(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Vault folder", self.vault.text())
        if folder:
            self.vault.setText(folder)

    def chosen_vault(self) -> Path | None:
        return Path(self.vault.text()) if self.vault.text() else None

    def accept(self) -> None:
        if self.labels_tab is not None and not self.labels_tab.check():
            self.tabs.setCurrentWidget(self.labels_tab)  # where the message says what to fix
            return
        self.settings.save(**self.changes())
        labels = self.labels_tab.changes() if self.labels_tab is not None else None
        if labels is not None and self.vault_settings is not None:
            save_label_set(self.vault_settings, labels)
        super().accept()
