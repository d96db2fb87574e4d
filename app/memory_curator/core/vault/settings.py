"""Per-vault settings in ``.memory-curator/vault.json``: which embedding model this vault's vectors use.

It lives in the vault (not in the index) so that a rebuilt index, another machine or another process opening
the same vault all agree on the model, and two models' vectors never mix.
"""

from __future__ import annotations

import json
from pathlib import Path

from memory_curator.core.embed.base import EmbedderSpec
from memory_curator.core.vault.files import atomic_write_text, read_regular

FORMAT_VERSION = 1
MAX_BYTES = 1024 * 1024  # a few hundred bytes are written here


class VaultSettings:
    def __init__(self, state_dir: Path):
        self.path = state_dir / "vault.json"

    def _read(self) -> dict:
        try:
            # The vault's own file, yet it may arrive by git: a link, a FIFO or /dev/zero is not read.
            data = json.loads(read_regular(self.path, MAX_BYTES)[:MAX_BYTES].decode("utf-8"))
        except (OSError, ValueError, RecursionError):  # RecursionError: '[' nested 100,000 deep
            return {}
        return data if isinstance(data, dict) else {}

    def embedding(self) -> EmbedderSpec | None:
        emb = self._read().get("embedding")
        if not isinstance(emb, dict) or not emb.get("provider") or not emb.get("model"):
            return None
        dim = emb.get("dim")
        dim = dim if isinstance(dim, int) and not isinstance(dim, bool) and 0 < dim <= 65_536 else None
        return EmbedderSpec(str(emb["provider"]), str(emb["model"]), dim)

    def set_embedding(self, spec: EmbedderSpec | None) -> None:
        data = self._read()
        data["format"] = FORMAT_VERSION
        if spec is None:
            data.pop("embedding", None)
        else:
            data["embedding"] = {"provider": spec.provider, "model": spec.model, "dim": spec.dim}
        atomic_write_text(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")

    def get(self, key: str, default=None):
        return self._read().get(key, default)

    def set(self, key: str, value) -> None:
        data = self._read()
        data["format"] = FORMAT_VERSION
        data[key] = value
        atomic_write_text(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
