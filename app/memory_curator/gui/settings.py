"""What the desktop app remembers between runs (QSettings), turned into the engine's MemoryConfig."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QSettings

from memory_curator.core.config import MemoryConfig
from memory_curator.environment import config_from_env

MAX_RECENT = 8
# Settings the environment overrides for one run (as on the command line): shown, never saved from there.
ENVIRONMENT = {"ollama_host": "OLLAMA_HOST", "ollama_model": "MEMORY_CURATOR_OLLAMA_MODEL"}
_KEYS = {"ollama_host": "ollama/host", "ollama_model": "ollama/model", "embedder": "embedder"}


class AppSettings:
    """A thin typed view over QSettings. Tests pass their own QSettings (an ini file in a temp dir)."""

    def __init__(self, qsettings: QSettings | None = None):
        self.q = qsettings or QSettings("memory-curator", "Memory Curator")

    def _get(self, key: str, default: str = "") -> str:
        value = self.q.value(key, default)
        return default if value is None else str(value)

    @property
    def vault(self) -> Path | None:
        value = self._get("vault")
        return Path(value) if value else None

    @vault.setter
    def vault(self, path: Path) -> None:
        self.q.setValue("vault", str(path))
        recent = [str(path)] + [p for p in self.recent_vaults if p != str(path)]
        self.q.setValue("recent_vaults", json.dumps(recent[:MAX_RECENT]))

    @property
    def recent_vaults(self) -> list[str]:
        try:
            return [str(p) for p in json.loads(self._get("recent_vaults", "[]"))]
        except (ValueError, TypeError):
            return []

    @property
    def ollama_host(self) -> str:
        return self._get("ollama/host")

    @property
    def ollama_model(self) -> str:
        return self._get("ollama/model")

    @property
    def embedder(self) -> str:
        return self._get("embedder", "auto")

    @property
    def decay_rates(self) -> dict[str, float]:
        try:
            return {str(k): float(v) for k, v in json.loads(self._get("decay_rates", "{}")).items()}
        except (ValueError, TypeError, AttributeError):
            return {}

    def origin(self, key: str) -> tuple[str, str]:
        """Where the value of ``key`` in use comes from: ("environment", its variable), ("saved", "") or
        ("default", "")."""
        var = ENVIRONMENT.get(key)
        if var and os.environ.get(var):
            return "environment", var
        return ("saved", "") if self._get(_KEYS[key]) else ("default", "")

    def save(self, *, ollama_host: str | None = None, ollama_model: str | None = None, embedder: str | None = None,
             decay_rates: dict[str, float] | None = None) -> None:
        """Save what is given (what the user changed); an empty text forgets the saved value (back to the
        default). Decay rates are merged into the saved ones."""
        for key, value in (("ollama_host", ollama_host), ("ollama_model", ollama_model), ("embedder", embedder)):
            if value is None:
                continue
            if value.strip():
                self.q.setValue(_KEYS[key], value.strip())
            else:
                self.q.remove(_KEYS[key])
        if decay_rates:
            self.q.setValue("decay_rates", json.dumps({**self.decay_rates, **decay_rates}))
        self.q.sync()

    def kept_model(self, vault: Path) -> str:
        """The model the user chose not to switch ``vault`` to ("provider:model"), or ""."""
        return self._get(f"kept_model/{_vault_key(vault)}")

    def set_kept_model(self, vault: Path, key: str) -> None:
        if key:
            self.q.setValue(f"kept_model/{_vault_key(vault)}", key)
        else:
            self.q.remove(f"kept_model/{_vault_key(vault)}")

    def recent_memories(self, vault: Path) -> list[tuple[str, str]]:
        """The memories last viewed in ``vault``, newest first: (id, title)."""
        try:
            return [(str(i), str(t)) for i, t in json.loads(self._get(f"recent_memories/{_vault_key(vault)}", "[]"))]
        except (ValueError, TypeError):  # a settings file edited by hand: start the list again
            return []

    def set_recent_memories(self, vault: Path, items: list[tuple[str, str]]) -> None:
        self.q.setValue(f"recent_memories/{_vault_key(vault)}", json.dumps(items, ensure_ascii=False))

    @property
    def tour_done(self) -> bool:
        return self._get("tour/done") == "true"

    @tour_done.setter
    def tour_done(self, value: bool) -> None:
        self.q.setValue("tour/done", "true" if value else "false")

    def view_state(self, key: str) -> bytes | None:
        """A saved ``saveGeometry``/``saveState`` blob (window geometry, columns, splitters)."""
        value = self.q.value(key)
        return bytes(value) if value else None

    def set_view_state(self, key: str, data: bytes) -> None:
        self.q.setValue(key, data)

    def memory_config(self) -> MemoryConfig:
        """Settings first, then the environment (OLLAMA_HOST...) on top, as the command line does."""
        config = MemoryConfig()
        if self.ollama_host:
            config = replace(config, ollama_host=self.ollama_host)
        if self.ollama_model:
            config = replace(config, ollama_model=self.ollama_model)
        if self.decay_rates:
            config = replace(config, category_decay_rates={**config.category_decay_rates, **self.decay_rates})
        return config_from_env(config)


def _vault_key(vault: Path) -> str:
    # QSettings keys treat "/" as groups: a path would become nested groups, so it is kept as one hex key.
    return str(Path(vault).expanduser().resolve()).encode("utf-8").hex()
