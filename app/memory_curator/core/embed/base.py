"""The Embedder protocol and the spec a vault records for the model its vectors came from."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from memory_curator.core.model import EmbedderStatus

# Models known to read more than English. Others are treated as English-only when fusing ranks.
MULTILINGUAL_MODELS = (
    "bge-m3", "nomic-embed-text-v2", "multilingual", "snowflake-arctic-embed2", "granite-embedding:278m",
    "paraphrase-multilingual", "labse", "jina-embeddings-v3", "qwen3-embedding",
)  # fmt: skip


def is_multilingual(model: str) -> bool:
    name = model.lower()
    return any(tag in name for tag in MULTILINGUAL_MODELS)


@dataclass(frozen=True)
class EmbedderSpec:
    """Which model a vault's vectors came from. Recorded in the vault and in the index."""

    provider: str  # "ollama" | "local"
    model: str
    dim: int | None = None

    @property
    def key(self) -> str:
        return f"{self.provider}:{self.model}"


@runtime_checkable
class Embedder(Protocol):
    provider: str
    model: str
    multilingual: bool
    # Longest chunk (in our tokens) the model reads whole; longer chunks would be silently truncated.
    max_chunk_tokens: int

    @property
    def key(self) -> str: ...

    def dimension(self) -> int:
        """The vector size; may ask the provider once."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for stored text. Raises EmbedderUnavailable or EmbeddingError. An embedder whose
        ``batch_independent`` attribute is true (optional) gives a text the same vector whatever texts share the
        call: a batch being saved is then encoded text by text while it is written (core/embed/ahead.py)."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """The query's vector. An embedder whose ``answers_at_once`` attribute is true (optional; a lookup such as
        the benchmark's precomputed vectors) is called on the searching thread; any other runs on a thread of
        its own, waited for in slices (Ctrl+C, a remote provider's wait limit: core/embedding.py): under load
        that hand-off cost a hybrid search ~5 ms with an instant embedder."""
        ...

    def status(self) -> EmbedderStatus:
        """A cheap check whether the provider can be used now."""
        ...
