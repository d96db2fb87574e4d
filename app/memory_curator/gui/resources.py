"""The sample vault offered on first run (resources/sample_vault/, found through appinfo)."""

from __future__ import annotations

import shutil
from pathlib import Path

from memory_curator.appinfo import resources_dir

SAMPLE_VAULT = resources_dir() / "sample_vault"


def vault_is_empty(path: Path) -> bool:
    return not path.exists() or not any(p for p in path.rglob("*.md") if ".trash" not in p.parts)


def copy_sample_vault(target: Path) -> None:
    """Copy the bundled sample memories into ``target`` (which must hold no memories yet)."""
    target.mkdir(parents=True, exist_ok=True)
    for src in SAMPLE_VAULT.rglob("*.md"):
        dest = target / src.relative_to(SAMPLE_VAULT)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if not dest.exists():
            shutil.copy2(src, dest)
