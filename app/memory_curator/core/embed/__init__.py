"""Embedding providers behind one protocol: Ollama, the bundled offline model, or none (keyword only)."""

from memory_curator.core.embed.base import Embedder, EmbedderSpec

__all__ = ["Embedder", "EmbedderSpec"]
