"""What the composition roots (CLI, desktop app, servers) read from the environment. Core never does."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from platformdirs import user_cache_dir, user_data_dir

from memory_curator.core.config import MemoryConfig

APP_NAME = "memory-curator"
VAULT_ENV = "MEMORY_CURATOR_VAULT"
TIMEOUT_ENV = "MEMORY_CURATOR_OLLAMA_TIMEOUT"  # how long to wait for one Ollama request, in seconds
LOCAL_MODEL_ENV = "MEMORY_CURATOR_LOCAL_MODEL"  # all-MiniLM-L6-v2: the offline model as it ships, not quantized


def default_vault_dir() -> Path:
    """``$MEMORY_CURATOR_VAULT`` or the platform's user data folder (e.g. ~/.local/share/memory-curator/vault)."""
    env = os.environ.get(VAULT_ENV)
    if env:
        return Path(env).expanduser()
    return Path(user_data_dir(APP_NAME, appauthor=False)) / "vault"


def config_from_env(base: MemoryConfig | None = None) -> MemoryConfig:
    config = base or MemoryConfig()
    if config.model_cache_dir is None:  # the quantized offline model, derived once (XDG_CACHE_HOME on Linux)
        config = replace(config, model_cache_dir=str(Path(user_cache_dir(APP_NAME, appauthor=False)) / "models"))
    local_model = os.environ.get(LOCAL_MODEL_ENV)
    if local_model:
        config = replace(config, local_model=local_model)
    host = os.environ.get("OLLAMA_HOST")
    if host:  # as Ollama reads it: "127.0.0.1" means port 11434 (the engine normalises it)
        config = replace(config, ollama_host=host)
    model = os.environ.get("MEMORY_CURATOR_OLLAMA_MODEL")
    if model:
        config = replace(config, ollama_model=model)
    timeout = _seconds(os.environ.get(TIMEOUT_ENV))
    if timeout is not None:
        config = replace(config, ollama_timeout_s=timeout)
    return config


def _seconds(value: str | None) -> float | None:
    """A positive number of seconds, or None (unset or not a number: the default stands)."""
    try:
        seconds = float(value or "")
    except ValueError:
        return None
    return seconds if 0 < seconds < 86400 else None
