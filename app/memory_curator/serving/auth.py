"""The HTTP API's bearer token: generated on first start, kept in the user's config folder (never in the vault,
which may be shared through git), shown by `memory-curator serve --show-token` and in the app's settings."""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

from platformdirs import user_config_dir

from memory_curator.core.vault.files import atomic_write_text

TOKEN_ENV = "MEMORY_CURATOR_TOKEN_FILE"


def default_token_path() -> Path:
    env = os.environ.get(TOKEN_ENV)
    if env:
        return Path(env).expanduser()
    return Path(user_config_dir("memory-curator", appauthor=False)) / "api-token"


def read_token(path: Path) -> str | None:
    """The token if one was generated (the first `memory-curator serve` does), else None."""
    try:
        token = path.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return token if len(token) >= 32 else None


def load_or_create_token(path: Path) -> str:
    token = read_token(path)
    if token is not None:
        return token
    token = secrets.token_urlsafe(32)
    atomic_write_text(path, token + "\n", mode=0o600)  # the token is a password: private from its first byte
    return token


def bearer_ok(header: str | None, token: str) -> bool:
    if not header:
        return False
    scheme, _, value = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), token.encode())
