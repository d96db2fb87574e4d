"""The vault: markdown files with YAML frontmatter, the canonical state."""

from memory_curator.core.vault.codec import decode_memory, encode_memory
from memory_curator.core.vault.store import Vault

__all__ = ["Vault", "decode_memory", "encode_memory"]
