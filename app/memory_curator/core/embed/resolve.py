"""Choosing the embedder for a vault (``auto``, ``ollama``, ``local``, ``none``)."""

from __future__ import annotations

from memory_curator.core.config import MemoryConfig
from memory_curator.core.embed import local
from memory_curator.core.embed.base import Embedder, EmbedderSpec
from memory_curator.core.embed.local import LocalEmbedder
from memory_curator.core.embed.ollama import OllamaEmbedder
from memory_curator.core.errors import ValidationError

CHOICES = ("auto", "ollama", "local", "none")


def build(spec: EmbedderSpec, config: MemoryConfig) -> Embedder:
    if spec.provider == "ollama":
        return OllamaEmbedder(spec.model, config.ollama_host, config.ollama_timeout_s, config.embed_batch_size)
    if spec.provider == "local":
        return LocalEmbedder(model=spec.model, cache_dir=config.model_cache_dir)
    raise ValidationError(f"Unknown embedding provider {spec.provider!r}: use ollama or local.", field="embedder")


def bundled(config: MemoryConfig) -> LocalEmbedder:
    """The offline model this process runs: ``config.local_model``, or the shipped file as it is when the
    quantized model cannot be derived here (logged)."""
    return LocalEmbedder(model=local.usable(config.local_model, config.model_cache_dir),
                         cache_dir=config.model_cache_dir)


def resolve(choice: str, recorded: EmbedderSpec | None, config: MemoryConfig) -> Embedder | None:
    """The embedder to use, or None for keyword only.

    ``auto`` keeps a vault on the model its vectors came from (even while that provider is down: search then
    degrades to keyword, it never mixes in another model's vectors), except that a vault on the offline model
    takes the one this process runs (``bundled``: the vault then moves to it, core/embedding.py). A new vault
    picks Ollama if it answers and has the model, else the offline model if installed, else none.
    """
    if choice not in CHOICES:
        raise ValidationError(f"Unknown embedder {choice!r}: choose one of {', '.join(CHOICES)}.", field="embedder")
    if choice == "none":
        return None
    if choice == "ollama":
        model = recorded.model if recorded and recorded.provider == "ollama" else config.ollama_model
        return build(EmbedderSpec("ollama", model), config)
    if choice == "local" or (recorded is not None and recorded.provider == "local"):
        return bundled(config)
    if recorded is not None:
        return build(recorded, config)
    ollama = OllamaEmbedder(config.ollama_model, config.ollama_host, config.ollama_timeout_s, config.embed_batch_size)
    if ollama.status().available:
        return ollama
    ollama.close()  # the probe's client: not kept, so released now
    if local.installed():
        return bundled(config)
    return None


def fork(embedder: Embedder, config: MemoryConfig) -> Embedder:
    """Another embedder for the same model, for another thread: threads never share a provider's client
    (the offline model's weights are loaded once and shared). An embedder of another kind (a caller's own
    object) is returned as it is; it must then be safe to use from several threads."""
    if isinstance(embedder, OllamaEmbedder):
        return OllamaEmbedder(embedder.model, embedder.host, embedder.timeout, embedder.batch_size)
    if isinstance(embedder, LocalEmbedder):
        return LocalEmbedder(embedder.batch_size, embedder.model, embedder.cache_dir)
    return embedder
