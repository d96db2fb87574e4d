"""The vault's embedder as the engine uses it: which one, whether it is up, and embedding what was written.

One object per service. Saves never wait on embedding: ``queue`` hands the memories written to the background
unit (core/embed/background.py), which embeds them on its own thread, connection and embedder. Search asks
``query_vector``, which waits at most ``config.query_embed_wait_s`` for a remote provider and then answers
by keyword with a warning. The vault's model is read from one place, vault.json: a process holding another
model stops embedding and says so (``ModelChanged``), and never drops the vectors. ``switch`` moves the vault
to another model. ``progress``, ``pause``, ``resume`` and ``retry`` are safe to call from any thread (a
window's status bar reads them).
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from memory_curator.core import indexing
from memory_curator.core.config import MemoryConfig
from memory_curator.core.embed import resolve as embed_resolve
from memory_curator.core.embed.ahead import Ahead, batch_independent
from memory_curator.core.embed.background import IDLE, Backfill, EmbedProgress, ModelChanged
from memory_curator.core.embed.base import Embedder, EmbedderSpec
from memory_curator.core.errors import EmbedderUnavailable, EmbeddingError, ValidationError
from memory_curator.core.index.store import IndexStore
from memory_curator.core.model import (
    NOT_EMBEDDED_YET,
    SEMANTIC_UNAVAILABLE,
    VECTORS_LOADING,
    EmbedderStatus,
    MemoryItem,
    Notice,
)
from memory_curator.core.progress import CancelToken, PartFn, ProgressFn, Tracker
from memory_curator.core.vault.settings import VaultSettings

log = logging.getLogger(__name__)

OFF = EmbedProgress("off", message="keyword only — no embedder")
# vault.json: the offline model a person chose for this vault by name (``switch("local", MODEL)``), which the
# vault keeps instead of following the one the process runs by default.
CHOSEN_LOCAL_MODEL = "local_model_chosen"


class QueryTooSlow(EmbedderUnavailable):
    """The provider did not give a query's vector within ``config.query_embed_wait_s``."""


class Embedding:
    def __init__(self, store: IndexStore, settings: VaultSettings, config: MemoryConfig, embedder: Embedder | None,
                 index_path: Path | None = None, ahead: Ahead | None = None):
        """``index_path``: where the background unit opens its own connection (None: no background unit;
        writes are then embedded at once, as the unit's own worker does). ``ahead``: the vectors its service
        encodes while it writes a batch (the unit's worker takes them)."""
        self.store = store
        self.settings = settings
        self.config = config
        self.embedder = embedder
        self._index_path = index_path
        self._failed_at: float | None = None
        self.error: str | None = None  # why the embedder is down, while it is
        self._query_lock = threading.Lock()  # one query at a time reaches this embedder
        self._owed: set[int] = set()  # memories this process wrote that wait for vectors (see settle)
        self.unit: Backfill | None = None
        self.ahead = ahead or Ahead()  # vectors save_batch encodes while it writes (core/embed/ahead.py)
        self._move_to_bundled()
        self._start_unit()

    def _move_to_bundled(self) -> None:
        """A vault on one offline model opened with the other (the app's default moved from the shipped file
        to its quantized derivation, or ``config.local_model`` says so): as a switch of model, its vectors are
        dropped and vault.json names the model in use, so another process still on the old one stops embedding;
        every memory is embedded again in the background and search answers by keyword meanwhile. A vault
        switched to an offline model by name (``memory-curator reindex --model local:all-MiniLM-L6-v2``) keeps it."""
        emb, recorded = self.embedder, self.settings.embedding()
        if emb is None or recorded is None or recorded.key == emb.key or not recorded.provider == emb.provider == "local":
            return
        if self.settings.get(CHOSEN_LOCAL_MODEL) == recorded.model:
            close_embedder(emb)
            self.embedder = embed_resolve.build(recorded, self.config)
            return
        log.info("This vault's vectors come from %s; embedding every memory again with %s.", recorded.key, emb.key)
        dim = recorded.dim or emb.dimension()  # both offline models give 384: the model loads only if unrecorded
        with self.store.transaction():  # the new key at once: a process still on the old model stops, never adds
            self.store.drop_all_vectors()
            self.store.vectors.create(emb.key, dim)
        self.settings.set_embedding(EmbedderSpec(emb.provider, emb.model, dim))

    def _start_unit(self) -> None:
        if self.embedder is not None and self._index_path is not None:
            self.unit = Backfill(self._make_worker, self.config.embedder_retry_s)

    def _make_worker(self) -> _ThreadWorker:
        """On the unit's thread: its own connection and its own embedder (same model, another client)."""
        assert self._index_path is not None and self.embedder is not None
        store = IndexStore.open(self._index_path, self.store.root)
        own = embed_resolve.fork(self.embedder, self.config)
        return _ThreadWorker(Embedding(store, self.settings, self.config, own, ahead=self.ahead),
                             owns_embedder=own is not self.embedder)

    def usable(self) -> Embedder | None:
        """The embedder unless it failed less than ``config.embedder_retry_s`` ago (then callers skip it instead
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
        """The vault remembers its model from the first write (and its size once vectors exist)."""
        emb, recorded = self.embedder, self.settings.embedding()
        if emb is None:
            return
        dim = self.store.vectors.dim if self.store.vectors.model == emb.key else None
        if recorded is None or (recorded.key == emb.key and recorded.dim is None and dim is not None):
            self.settings.set_embedding(EmbedderSpec(emb.provider, emb.model, dim))

    def model_changed(self) -> str | None:
        """Why this process must not embed: vault.json names another model than the one it holds (another
        window or program switched models), else None."""
        emb, recorded = self.embedder, self.settings.embedding()
        if emb is None or recorded is None or recorded.key == emb.key:
            return None
        return (f"This vault's model is now {recorded.key} (changed by another window or program); this one still "
                f"holds {emb.key}, so it stops embedding and keeps every vector. Open the vault again to use "
                f"{recorded.key}.")

    def _follow_vault_model(self) -> Embedder:
        """Take the model vault.json names (a service that only reads: it never writes vectors)."""
        recorded = self.settings.embedding()
        assert recorded is not None and self.embedder is not None
        new = embed_resolve.build(recorded, self.config)
        close_embedder(self.embedder)
        self.embedder = new
        return new

    def status(self) -> EmbedderStatus:
        if self.embedder is None:
            return EmbedderStatus("none", None, False, "keyword only — no embedder")
        status = self.embedder.status()
        if status.available:
            self.up()
            if self.unit is not None and self.unit.progress.state == "waiting":
                self.unit.retry()  # it is back: the memories saved meanwhile are embedded now
        return status

    # -- the background unit (thread-safe) ---------------------------------------------------------------

    @property
    def progress(self) -> EmbedProgress:
        return OFF if self.unit is None else self.unit.progress

    def pause(self) -> None:
        if self.unit is not None:
            self.unit.pause()

    def resume(self) -> None:
        if self.unit is not None:
            self.unit.resume()

    def retry(self) -> None:
        self.up()
        if self.unit is not None:
            self.unit.retry()

    def kick(self) -> None:
        """Memories may lack vectors (opened, synced, imported): embed them in the background."""
        if self.unit is not None:
            self.unit.kick()

    def kick_if_missing(self) -> None:
        """``kick`` when some memory has no vectors (after an open or a sync: one count, no thread otherwise)."""
        if self.unit is not None and self.store.unembedded_count():
            self.unit.kick()

    def wait(self, timeout: float) -> bool:
        """Wait at most ``timeout`` s for the background unit to embed what it was asked to; True when done."""
        return True if self.unit is None else self.unit.wait(timeout)

    def queue(self, pairs: Sequence[tuple[int | None, MemoryItem]], tracker: Tracker | None = None) -> int:
        """Memories just written: embedded in the background (returns 0 at once), or here when this object
        has no unit (the unit's own worker, a reader)."""
        if not pairs or self.embedder is None:
            return 0
        if self.unit is None:
            return self.embed_now(pairs, tracker)
        self._record_model()  # the vault remembers the model from its first write, as when embedding here
        self._owed.update(pk for pk, _ in pairs if pk is not None)
        self.unit.kick()
        return 0

    def encode_ahead(self, items: Sequence[MemoryItem]) -> None:
        """A batch about to be written: one thread encodes its texts meanwhile, for the unit to take once the rows
        exist (core/embed/ahead.py). Only when the unit has nothing else to embed, for a batch of at least one
        embedding call, with an embedder whose vectors do not depend on their batch (the same vectors)."""
        emb = self.usable()
        if (self.unit is None or emb is None or not batch_independent(emb) or len(items) < 2
                or self.unit.progress.state != IDLE or self.model_changed()):
            return
        # In the order the unit embeds them: newest first (embed_missing). The unit takes the chunks too.
        cut = {self._chunk_key(emb, it): indexing.embedding_chunks(it, self.config, emb.max_chunk_tokens)
               for it in reversed(items)}
        texts = [c[4] for chunks in cut.values() for c in chunks]
        if len(texts) >= self.config.embed_batch_size:
            self.ahead.start(emb, texts, cut)

    def _chunk_key(self, emb: Embedder, item: MemoryItem) -> tuple:
        """What a memory's chunks for ``emb`` are cut from (indexing.embedding_chunks)."""
        return (emb.key, emb.max_chunk_tokens, self.config.chunk_size, self.config.chunk_overlap, item.title,
                item.embedded_source)

    def _cut(self, emb: Embedder) -> Callable[[MemoryItem], list]:
        """A memory's chunks: those its batch's encoding ahead cut from the same text, else cut here."""
        def cut(item: MemoryItem) -> list:
            return (self.ahead.chunked(self._chunk_key(emb, item))
                    or indexing.embedding_chunks(item, self.config, emb.max_chunk_tokens))
        return cut

    def settle(self, timeout: float) -> bool:
        """Wait at most ``timeout`` s until the memories this process wrote have vectors (a command-line
        process about to exit); stops early when the unit cannot embed them now. True when none is left."""
        deadline = time.monotonic() + timeout
        while self._owed:
            self._owed.intersection_update(self.store.unembedded_pks(self._owed))
            if not self._owed or self.unit is None:
                break
            state = self.unit.progress.state
            if state in ("paused", "waiting", "stopped", "closed") or time.monotonic() >= deadline:
                break
            self.unit.wait(min(0.2, max(0.0, deadline - time.monotonic())))
        return not self._owed

    # -- embedding on this thread -------------------------------------------------------------------------

    def embed_now(self, pairs: Sequence[tuple[int | None, MemoryItem]], tracker: Tracker | None = None) -> int:
        """Embed if the provider is usable; on failure the memories stay unembedded (the backfill later)."""
        emb = self.usable()
        if emb is None or not pairs or self.model_changed():
            return 0
        try:
            n = indexing.embed_items(self.store, emb, [(pk, it) for pk, it in pairs if pk is not None],
                                     self.config, tracker)
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
            warnings.append(_keyword_instead(why))
            return None
        if self.store.vectors.loading():  # an exact search meanwhile took 14 s at 1,000,000 chunks
            warnings.append(Notice("The vectors are still loading, so these are keyword results; semantic ranking "
                                   "joins in when loading ends.", VECTORS_LOADING))
            return None
        if self.store.vectors.count() == 0:
            progress = self.progress
            if progress.state in ("waiting", "stopped"):
                warnings.append(_keyword_instead(progress.message))
            elif self.store.count():
                warnings.append(Notice("No memory is embedded yet, so these are keyword results; the memories are "
                                       "being embedded in the background.", NOT_EMBEDDED_YET))
            return None
        if self.unit is None and self._index_path is None and self.model_changed():
            emb = self._follow_vault_model()  # a reader (another thread's searches) follows a switch at once
        changed = self.model_changed() or (
            None if self.store.vectors.model in (None, emb.key) else
            f"this vault's vectors come from {self.store.vectors.model}, not {emb.key}; open the vault again")
        if changed:
            warnings.append(_keyword_instead(changed))
            return None
        try:
            vec = self._query_within(emb, query)
            indexing.check_vectors(self.store, [vec])
        except QueryTooSlow as exc:
            self.down(exc)  # the next searches skip it for ``embedder_retry_s`` instead of waiting each time
            warnings.append(Notice(f"{exc} Showing keyword results.", SEMANTIC_UNAVAILABLE))
            return None
        except EmbeddingError as exc:
            self.down(exc)
            warnings.append(_keyword_instead(exc))
            return None
        self.up()
        return vec

    def _query_within(self, emb: Embedder, text: str) -> list[float]:
        if getattr(emb, "answers_at_once", False):  # nothing to wait for or interrupt: no thread to hand it to
            return emb.embed_query(text)
        return self._within(emb, lambda: emb.embed_query(text))

    def _within(self, emb: Embedder, call, wait: float | None = None):
        """``call()`` (a request to ``emb``), waiting at most ``wait`` (default: ``config.query_embed_wait_s``
        for a remote provider; the offline model computes here and is waited for). It runs on a daemon thread
        either way, and the wait is cut in slices, so Ctrl+C acts at once whichever thread the signal reaches."""
        if wait is None:
            wait = self.config.query_embed_wait_s if emb.provider != "local" else math.inf
        box: dict[str, object] = {}
        done = threading.Event()

        # The offline model is used by one query at a time; a provider's HTTP client is thread-safe, and a query
        # left waiting on it must not hold up the next one.
        lock = self._query_lock if emb.provider == "local" else contextlib.nullcontext()

        def work() -> None:
            try:
                with lock:
                    box["value"] = call()
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
                box["exc"] = exc
            finally:
                done.set()

        threading.Thread(target=work, name="memory-curator-query", daemon=True).start()
        deadline = time.monotonic() + wait
        while not done.wait(min(0.1, max(0.0, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                raise QueryTooSlow(f"The embedder did not answer within {wait:g} s.")
        if "exc" in box:
            raise box["exc"]  # type: ignore[misc]
        return box["value"]

    def vectors_within(self, texts: Sequence[str]) -> list[list[float]] | None:
        """Document vectors for a comparison (the duplicate check), within the query wait; None when the
        embedder cannot give them now (the caller falls back to keywords)."""
        emb = self.usable()
        if emb is None or self.model_changed():
            return None
        try:
            vecs = self._within(emb, lambda: emb.embed_documents(list(texts)))
            indexing.check_vectors(self.store, vecs)
        except EmbeddingError:
            return None
        return vecs

    def switch(self, provider: str, model: str | None = None) -> bool:
        """Drop every vector and make ``provider``/``model`` the vault's embedder. Returns whether there is one
        now (the caller then re-embeds with ``reindex_missing``)."""
        if self.unit is not None:  # the old model's thread must not write after the drop (it checks, too)
            self.unit.close()
            self.unit = None
        if provider == "none":
            with self.store.transaction():
                self.store.drop_all_vectors()
            self.settings.set_embedding(None)
            close_embedder(self.embedder)
            self.embedder = None
            return False
        new = (embed_resolve.bundled(self.config) if provider == "local" and not model else
               embed_resolve.build(EmbedderSpec(provider, model or self.config.ollama_model), self.config))
        try:
            status = new.status()
            if not status.available:
                raise EmbedderUnavailable(f"Cannot switch to {new.key}: {status.detail}.")
            dim = self._within(new, new.dimension, math.inf)  # its own time limit; Ctrl+C still acts at once
        except BaseException:
            close_embedder(new)
            self._start_unit()  # the vault keeps its model
            raise
        with self.store.transaction():
            self.store.drop_all_vectors()
            self.store.vectors.create(new.key, dim)
        self.settings.set_embedding(EmbedderSpec(new.provider, new.model, dim))
        if self.settings.get(CHOSEN_LOCAL_MODEL) or (provider == "local" and model):
            self.settings.set(CHOSEN_LOCAL_MODEL, new.model if provider == "local" and model else None)
        close_embedder(self.embedder)
        self.embedder = new
        self.up()
        self._start_unit()
        return True

    def reindex_missing(self, *, progress: ProgressFn | None = None, cancel: CancelToken | None = None,
                        batch: int = 256) -> int:
        """Embed every memory that has no vectors yet, through the background unit when there is one (never two
        loops over the same memories). Raises EmbedderUnavailable if the embedder is down, ModelChanged when
        another program switched the vault's model, Cancelled (the unit then pauses) on ``cancel``."""
        if self.embedder is None:
            raise EmbedderUnavailable("No embedder is configured for this vault: memories are found by keyword.")
        if self.unit is not None:
            try:
                n = self.unit.run(progress, cancel)
            except EmbedderUnavailable as exc:
                self.down(exc)
                raise
            self.up()
            return n
        return self.embed_missing(progress=progress, cancel=cancel, batch=batch)

    def embed_missing(self, *, progress: ProgressFn | None = None, cancel: CancelToken | None = None,
                      batch: int = 256, part: PartFn | None = None) -> int:
        """The backfill on this thread: newest memories first (the one just saved is the one wanted), the long
        ones after all the others (a 10 MB memory took 10 minutes of the offline model on 2 cores, which the
        memories read with it waited for), a commit per provider batch (a cancel or a failure keeps what was
        done). ``part``: how far a long memory under way is, in chunks."""
        emb = self.embedder
        if emb is None:
            raise EmbedderUnavailable("No embedder is configured for this vault: memories are found by keyword.")
        ids = self.store.unembedded_ids()[::-1]
        tracker = Tracker(len(ids), progress, cancel, part)
        long_text = self.config.embed_batch_size * self.config.chunk_size  # characters: a batch of chunks or more
        if progress is not None and ids:
            progress(0, len(ids), "embedding")

        def check() -> None:  # before each round, as the vectors of the one before are written
            tracker.check()
            if (why := self.model_changed()) is not None:
                raise ModelChanged(why)

        def rounds() -> Iterator[tuple[int, MemoryItem]]:  # read on this thread as the embedding goes
            later: list[str] = []  # the long memories' ids (only the ids: read again at the end)
            for start in range(0, len(ids), batch):
                if start:
                    check()
                items = self.store.get_many(ids[start : start + batch])
                for i in ids[start : start + batch]:
                    if i not in items:
                        continue
                    if len(items[i].embedded_source) > long_text:
                        later.append(i)
                    else:
                        yield self.store.pk_of(i), items[i]
            for start in range(0, len(later), batch):
                check()
                items = self.store.get_many(later[start : start + batch])
                yield from ((self.store.pk_of(i), items[i]) for i in later[start : start + batch] if i in items)

        def written() -> None:
            self.up()
            self._record_model()

        if not ids:
            return 0
        check()  # before the vector table is made for this process's model
        try:
            return indexing.embed_items(self.store, self.ahead.serving(emb), rounds(), self.config,  # type: ignore[arg-type]
                                        tracker, written, self._cut(emb))
        except EmbedderUnavailable as exc:
            self.down(exc)
            raise

    def backfill(self, *, progress: ProgressFn | None = None, cancel: CancelToken | None = None) -> tuple[str, ...]:
        """``reindex_missing`` after a rebuild, when there is an embedder: one that is down leaves a warning
        (the rebuild stands; the memories are embedded when it is back) instead of an error."""
        if self.embedder is None:
            return ()
        try:
            self.reindex_missing(progress=progress, cancel=cancel)
        except EmbeddingError as exc:
            return (f"Index rebuilt; embedding waits until the embedder is back ({exc}).",)
        return ()

    def close(self, settle_s: float = 0.0) -> None:
        """Stop the background unit (after waiting ``settle_s`` for what this process wrote) and release the
        embedder's connections."""
        if settle_s > 0:
            self.settle(settle_s)
        if self.unit is not None:
            self.unit.close()
        self.ahead.stop()
        close_embedder(self.embedder)


class _ThreadWorker:
    """The background unit's worker: an Embedding over a connection and embedder of its own, closed on the
    unit's thread when it ends."""

    def __init__(self, embedding: Embedding, *, owns_embedder: bool):
        self.embedding = embedding
        self._owns_embedder = owns_embedder

    def reindex_missing(self, *, progress: ProgressFn | None = None, cancel: CancelToken | None = None,
                        batch: int = 256, part: PartFn | None = None) -> int:
        return self.embedding.embed_missing(progress=progress, cancel=cancel, batch=batch, part=part)

    def close(self) -> None:
        try:
            if self._owns_embedder:
                self.embedding.close()
        finally:
            self.embedding.store.close()


def choose(choice: str | Embedder, recorded: EmbedderSpec | None, config: MemoryConfig) -> Embedder | None:
    """The embedder to open a vault with: ``choice`` (a name, resolved, or an object), which must be the model
    the vault's vectors come from (``recorded``) when it has any."""
    chosen = embed_resolve.resolve(choice, recorded, config) if isinstance(choice, str) else choice
    if chosen is not None and recorded is not None and chosen.key != recorded.key and not (
            chosen.provider == recorded.provider == "local"):  # the offline models: the vault moves (Embedding)
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


def _keyword_instead(why: object) -> Notice:
    return Notice(f"Semantic search unavailable ({why}); showing keyword results.", SEMANTIC_UNAVAILABLE)
