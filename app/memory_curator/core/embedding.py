"""The vault's embedder as the engine uses it: which one, whether it is up, and embedding what was written.

One object per service. Saves embed through ``embed_now`` (a failure leaves the memories unembedded for
``reindex_missing`` and marks the embedder down for ``config.embedder_retry_s``, so later saves do not wait
on it); search asks ``query_vector``; ``switch`` moves the vault to another model.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from memory_curator.core import indexing
from memory_curator.core.config import MemoryConfig
from memory_curator.core.embed import resolve as embed_resolve
from memory_curator.core.embed.base import Embedder, EmbedderSpec
from memory_curator.core.errors import DimensionMismatch, EmbedderUnavailable, EmbeddingError, ValidationError
from memory_curator.core.index.store import IndexStore
from memory_curator.core.model import EmbedderStatus, MemoryItem
from memory_curator.core.progress import CancelToken, ProgressFn, Tracker
from memory_curator.core.vault.settings import VaultSettings

log = logging.getLogger(__name__)


class Embedding:
    def __init__(self, store: IndexStore, settings: VaultSettings, config: MemoryConfig, embedder: Embedder | None):
        self.store = store
        self.settings = settings
        self.config = config
        self.embedder = embedder
        self._failed_at: float | None = None
        self.error: str | None = None  # why the embedder is down, while it is

    def usable(self) -> Embedder | None:
        """The embedder unless it failed less than ``config.embedder_retry_s`` ago (then saves skip it instead
        of waiting on it)."""
        if self.embedder is None:
            return None
        if self._failed_at is not None and time.monotonic() - self._failed_at < self.config.embedder_retry_s:
            return None
        return self.embedder

    def down(self, exc: EmbeddingError) -> None:
        self._failed_at = time.monotonic()
        self.error = str(exc)
        log.warning("Embeddings disabled, using keyword search: %s", exc)

    def up(self) -> None:
        self._failed_at = None
        self.error = None

    def _record_model(self) -> None:
        emb = self.embedder
        if emb is not None and self.settings.embedding() is None:
            self.settings.set_embedding(EmbedderSpec(emb.provider, emb.model, self.store.vectors.dim))

    def status(self) -> EmbedderStatus:
        if self.embedder is None:
            return EmbedderStatus("none", None, False, "keyword only — no embedder")
        status = self.embedder.status()
        if status.available:
            self.up()
        return status

    def embed_now(self, pairs: Sequence[tuple[int, MemoryItem]], tracker: Tracker | None = None) -> int:
        """Embed if the provider is usable; on failure the memories stay unembedded (reindex_missing later)."""
        emb = self.usable()
        if emb is None or not pairs:
            return 0
        try:
            n = indexing.embed_items(self.store, emb, pairs, self.config, tracker)
        except DimensionMismatch:
            raise
        except EmbeddingError as exc:
            self.down(exc)
            return 0
        self.up()
        self._record_model()
        return n

    def query_vector(self, query: str, mode: str, warnings: list[str]) -> list[float] | None:
        """The query's vector, or None (with a warning when the user asked for meaning and gets keywords)."""
        emb = self.usable()
        if emb is None:
            if self.embedder is None and mode == "hybrid":
                return None  # a keyword-only vault by choice: hybrid is keyword search, nothing to warn about
            why = self.error or "no embedder is configured"
            warnings.append(f"Semantic search unavailable ({why}); showing keyword results.")
            return None
        if self.store.vectors.count() == 0:
            if self.store.count():
                warnings.append("No memory is embedded yet; showing keyword results. Run reindex to embed them.")
            return None
        try:
            vec = emb.embed_query(query)
            indexing.check_dimension(self.store, [vec])
        except DimensionMismatch:
            raise
        except EmbeddingError as exc:
            self.down(exc)
            warnings.append(f"Semantic search unavailable ({exc}); showing keyword results.")
            return None
        self.up()
        return vec

    def switch(self, provider: str, model: str | None = None) -> bool:
        """Drop every vector and make ``provider``/``model`` the vault's embedder. Returns whether there is one
        now (the caller then re-embeds with ``reindex_missing``)."""
        if provider == "none":
            with self.store.transaction():
                self.store.drop_all_vectors()
            self.settings.set_embedding(None)
            self.embedder = None
            return False
        default_model = self.config.ollama_model if provider == "ollama" else "all-MiniLM-L6-v2"
        new = embed_resolve.build(EmbedderSpec(provider, model or default_model), self.config)
        status = new.status()
        if not status.available:
            raise EmbedderUnavailable(f"Cannot switch to {new.key}: {status.detail}.")
        dim = new.dimension()
        with self.store.transaction():
            self.store.drop_all_vectors()
            self.store.vectors.create(new.key, dim)
        self.settings.set_embedding(EmbedderSpec(new.provider, new.model, dim))
        close_embedder(self.embedder)
        self.embedder = new
        self.up()
        return True

    def reindex_missing(self, *, progress: ProgressFn | None = None, cancel: CancelToken | None = None,
                        batch: int = 256) -> int:
        """Embed every memory that has no vectors yet. Raises EmbedderUnavailable if the embedder is down."""
        emb = self.embedder
        if emb is None:
            raise EmbedderUnavailable("No embedder is configured for this vault: memories are found by keyword.")
        ids = self.store.unembedded_ids()
        tracker = Tracker(len(ids), progress, cancel)
        done = 0
        for start in range(0, len(ids), batch):
            tracker.check()
            items = self.store.get_many(ids[start : start + batch])
            pairs = [(self.store.pk_of(i), items[i]) for i in ids[start : start + batch] if i in items]
            try:
                done += indexing.embed_items(self.store, emb, pairs, self.config, tracker)  # type: ignore[arg-type]
            except EmbedderUnavailable as exc:
                self.down(exc)
                raise
            self.up()
            self._record_model()
        return done

    def backfill(self, *, progress: ProgressFn | None = None, cancel: CancelToken | None = None) -> tuple[str, ...]:
        """``reindex_missing`` after a rebuild, when there is an embedder: one that is down leaves a warning
        (the rebuild stands; the memories wait for ``reindex_missing``) instead of an error."""
        if self.embedder is None:
            return ()
        try:
            self.reindex_missing(progress=progress, cancel=cancel)
        except EmbedderUnavailable as exc:
            return (f"Index rebuilt; embedding waits until the embedder is back ({exc}).",)
        return ()

    def close(self) -> None:
        close_embedder(self.embedder)


def choose(choice: str | Embedder, recorded: EmbedderSpec | None, config: MemoryConfig) -> Embedder | None:
    """The embedder to open a vault with: ``choice`` (a name, resolved, or an object), which must be the model
    the vault's vectors come from (``recorded``) when it has any."""
    chosen = embed_resolve.resolve(choice, recorded, config) if isinstance(choice, str) else choice
    if chosen is not None and recorded is not None and chosen.key != recorded.key:
        raise ValidationError(
            f"This vault's vectors come from {recorded.key}, not {chosen.key}. Open it with embedder 'auto', "
            "or change the model explicitly (Settings, or `memory-curator reindex --model`), which re-embeds "
            "every memory.",
            field="embedder",
        )
    return chosen


def close_embedder(embedder: Embedder | None) -> None:
    # Providers holding connections (Ollama's HTTP client) release them; others have nothing to close.
    close = getattr(embedder, "close", None)
    if close is not None:
        close()
