"""A vault whose vectors come from another model than the one chosen in Settings.

Opening asks once whether to switch (every memory is embedded again) or keep the vault's model; the vault
opens either way. "Keep" is remembered for that vault and that model, so the question does not come back at
every start, and the switch stays one click away in the window (File › Switch this vault to ...), never a
command to type.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox, QToolButton

from memory_curator.core.errors import ValidationError


def requested_model(window) -> tuple[str, str | None]:
    """(provider, model) the window asked for when the vault refused it."""
    requested = window._requested_embedder
    if not isinstance(requested, str):  # an Embedder object (tests, the smoke check)
        return requested.provider, requested.model
    model = window.settings.memory_config().ollama_model if requested == "ollama" else None
    return requested, model


class ModelSwitch:
    def __init__(self, window):
        self.w = window
        self.box: QMessageBox | None = None
        self.pending: tuple[Path, str, str | None] | None = None  # the vault and the model kept away from it
        self.action = QAction("Switch this vault's embedding model…", window)
        self.action.setEnabled(False)
        self.action.triggered.connect(lambda _checked=False: self.switch_now())
        # While the vault keeps its own model, the status bar says so and offers the switch.
        self.button = QToolButton()
        self.button.setObjectName("modelSwitchButton")
        self.button.setDefaultAction(self.action)
        self.button.setVisible(False)
        window.status.addPermanentWidget(self.button)

    def _offer(self, name: str | None) -> None:
        self.action.setText(f"Switch this vault to {name}…" if name else "Switch this vault's embedding model…")
        self.action.setToolTip(f"This vault keeps the model its vectors come from; Settings ask for {name}. "
                               "Switching embeds every memory again." if name else "")
        self.action.setEnabled(name is not None)
        self.button.setVisible(name is not None)

    @staticmethod
    def _key(provider: str, model: str | None) -> str:
        return f"{provider}:{model or ''}"

    def refused(self, path: Path, exc: ValidationError) -> None:
        """The vault refused the chosen model: ask (unless "Keep" was answered before), then open it with its
        own model; a switch chosen here runs once it is open."""
        provider, model = requested_model(self.w)
        name = model or provider
        self.pending = (path, provider, model)
        self._offer(name)
        if self.w.settings.kept_model(path) == self._key(provider, model):
            self.w.open_vault(path, embedder="auto")
            return
        first = str(exc).split(" Open it with")[0]  # the engine's advice names a command; the window has a button
        box = QMessageBox(QMessageBox.Icon.Question, "Another embedding model",
                          f"{first}\n\nSwitch this vault to {name}? Every memory is embedded again in the "
                          "background; until then search works by keyword. If you keep the vault's model, "
                          f"this is not asked again: File › Switch this vault to {name} does it later.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self.w)
        box.button(QMessageBox.StandardButton.Yes).setText(f"Switch to {name}")
        box.button(QMessageBox.StandardButton.No).setText("Keep the vault's model")
        box.finished.connect(lambda result: self._answered(path, provider, model, result))
        self.box = box
        box.open()

    def _answered(self, path: Path, provider: str, model: str | None, result: int) -> None:
        self.box = None
        switch = result == QMessageBox.StandardButton.Yes
        self.w.settings.set_kept_model(path, "" if switch else self._key(provider, model))
        self.w._switch_model_after_open = (provider, model) if switch else None
        if switch:
            self.pending = None
            self._offer(None)
        self.w.open_vault(path, embedder="auto")  # the vault's own model (or keyword search while it is away)

    def switch_now(self) -> None:
        """File › Switch this vault to ...: the question again, answered by the menu choice itself."""
        if self.pending is None or self.w.engine is None:
            return
        path, provider, model = self.pending
        name = model or provider
        answer = QMessageBox.question(self.w, "Switch the embedding model",
                                      f"Embed every memory of this vault again with {name}? It runs in the "
                                      "background (Cancel in the status bar); search works by keyword until then.")
        if answer != QMessageBox.StandardButton.Yes:
            return
        self.w.settings.set_kept_model(path, "")
        self.pending = None
        self._offer(None)
        self.w.run_long("change_embedder", f"Embedding every memory with {name}…", provider=provider, model=model)
