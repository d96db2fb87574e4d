"""Embeddings from an Ollama server through the official ``ollama`` client (``/api/embed``, batched)."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from urllib.parse import urlparse

import httpx

from memory_curator.core.embed.base import is_multilingual
from memory_curator.core.errors import DimensionMismatch, EmbedderUnavailable, EmbeddingError
from memory_curator.core.model import EmbedderStatus

PROBE_TIMEOUT_S = 2.0
DEFAULT_PORT = 11434


def _prefixes(model: str) -> tuple[str, str]:
    # nomic-embed-text was trained with task prefixes; without them its retrieval quality drops.
    if model.startswith("nomic-embed-text"):
        return "search_document: ", "search_query: "
    return "", ""


def normalize_host(host: str) -> str:
    """A full URL read the way Ollama reads ``OLLAMA_HOST``: without a scheme, http and port 11434
    ("127.0.0.1", "0.0.0.0:11434"); with one, the scheme's port unless given."""
    host = (host or "").strip().rstrip("/") or "127.0.0.1"
    if "://" not in host:
        host = "http://" + host
        parsed = urlparse(host)
        if parsed.port is None:
            host = f"{parsed.scheme}://{parsed.netloc}:{DEFAULT_PORT}{parsed.path}"
    return host


def _same_model(name: str, wanted: str) -> bool:
    if ":" not in wanted:
        wanted += ":latest"
    if ":" not in name:
        name += ":latest"
    return name == wanted


def _client_library() -> ModuleType:
    """The ``ollama`` package, imported at first use: its pydantic models took 0.29-0.37 s of the app's and
    every CLI command's start (of ~2 s), also where Ollama is never used."""
    import ollama  # noqa: PLC0415

    return ollama


class OllamaEmbedder:
    provider = "ollama"
    max_chunk_tokens = 512  # nomic-embed-text and bge-m3 read 8k tokens; 512 is the seed's chunk size

    def __init__(self, model: str = "nomic-embed-text", host: str = "http://localhost:11434", timeout: float = 30.0,
                 batch_size: int = 32):
        self.model = model
        self.host = normalize_host(host)
        self.timeout = timeout
        self.batch_size = batch_size
        self.multilingual = is_multilingual(model)
        self._doc_prefix, self._query_prefix = _prefixes(model)
        self._client = _client_library().Client(host=self.host, timeout=timeout)
        self._dim: int | None = None

    @property
    def key(self) -> str:
        return f"ollama:{self.model}"

    def close(self) -> None:
        self._client.close()

    @property
    def where(self) -> str:
        return urlparse(self.host).netloc or self.host

    def _unreachable(self, exc: Exception) -> EmbedderUnavailable:
        return EmbedderUnavailable(
            f"Ollama is not reachable at {self.host} ({type(exc).__name__}). Start Ollama (`ollama serve`), "
            "or choose another embedder in Settings. Memories are saved and found by keyword meanwhile."
        )

    def _too_slow(self) -> EmbedderUnavailable:
        return EmbedderUnavailable(
            f"Ollama at {self.host} did not answer within {self.timeout:g} s (busy, or still loading "
            f"{self.model!r}). Memories are saved and found by keyword meanwhile, and embedded once it answers. To "
            "wait longer, set MEMORY_CURATOR_OLLAMA_TIMEOUT (seconds) in the environment."
        )

    def _missing(self) -> EmbedderUnavailable:
        return EmbedderUnavailable(
            f"Ollama at {self.host} does not have the model {self.model!r}. Run `ollama pull {self.model}`, "
            "or choose another model in Settings."
        )

    def _embed(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for i in range(0, len(texts), self.batch_size):
            batch = texts[i : i + self.batch_size]
            try:
                resp = self._client.embed(model=self.model, input=batch)
            except _client_library().ResponseError as exc:
                if exc.status_code == 404 or "not found" in str(exc).lower():
                    raise self._missing() from exc
                raise EmbeddingError(f"Ollama refused to embed with {self.model!r}: {exc.error}") from exc
            except httpx.TimeoutException as exc:
                raise self._too_slow() from exc
            except (httpx.TransportError, ConnectionError, OSError) as exc:
                raise self._unreachable(exc) from exc
            vectors = [list(v) for v in resp.embeddings]
            if len(vectors) != len(batch):
                raise EmbeddingError(f"Ollama returned {len(vectors)} vectors for {len(batch)} texts.")
            if len({len(v) for v in vectors}) > 1:
                raise DimensionMismatch(f"Ollama model {self.model!r} returned vectors of different sizes in one answer.")
            # The size is the model's as it answers now (never latched: a model pulled again may change it, and
            # whether that fits the vault is the index's call, indexing.check_vectors).
            if vectors:
                self._dim = len(vectors[0])
            out.extend(vectors)
        return out

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self._embed([self._doc_prefix + t for t in texts])

    def embed_query(self, text: str) -> list[float]:
        return self._embed([self._query_prefix + text])[0]

    def dimension(self) -> int:
        if self._dim is None:
            self._embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def status(self) -> EmbedderStatus:
        wait = min(PROBE_TIMEOUT_S, self.timeout)
        ollama = _client_library()
        try:
            with ollama.Client(host=self.host, timeout=wait) as probe:
                models = probe.list().models
        except httpx.TimeoutException:
            return EmbedderStatus("ollama", self.model, False,
                                  f"keyword only — Ollama at {self.where} did not answer within {wait:g} s")
        except (httpx.TransportError, ConnectionError, OSError):
            return EmbedderStatus("ollama", self.model, False, f"keyword only — Ollama not reachable at {self.where}")
        except ollama.ResponseError as exc:
            return EmbedderStatus("ollama", self.model, False, f"keyword only — Ollama error: {exc.error}")
        if not any(_same_model(m.model or "", self.model) for m in models):
            return EmbedderStatus("ollama", self.model, False, f"keyword only — run `ollama pull {self.model}`")
        return EmbedderStatus("ollama", self.model, True, f"Ollama {self.model} at {self.where}")
