"""Vectors encoded ahead: while ``save_batch`` writes its files and index rows (about 1 s of one core for 1,000
short memories), one thread encodes the batch's texts on the other core, and the background unit, once the rows
exist, takes those vectors instead of encoding the texts again, and the chunks they were cut from instead of
cutting each memory again (handed out only for the same title and text, model and chunk sizes).

One thread, one text per call: the write keeps a core (encoding ahead on the model's own threads took both
cores and slowed the write as much as it gained), and only an embedder whose vector of a text does not depend
on the texts sharing its call (``batch_independent``: the quantized offline model runs one text per run) is
used, so the vectors stored are the ones the unit would have computed, bit for bit. When the unit reaches a
text not encoded yet, the encoding ahead stops and the unit's own threads encode the rest (never three runs on
two cores). A vector is taken only for the exact text it came from, by the same model: a memory changed
meanwhile is encoded as it is. A failure here is not reported: the unit encodes that text itself and meets the
failure the usual way.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict, deque
from collections.abc import Hashable, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from memory_curator.core.embed.base import Embedder

MAX_TEXTS = 20_000  # vectors kept for the unit; the oldest go first (a batch written but never embedded)
IDLE_END_S = 30.0  # the thread ends after this long with nothing to encode
NICE = 10  # the thread's niceness (Linux): a tenth of the weight of a thread at the usual 0


def batch_independent(embedder: Embedder) -> bool:
    """Whether a text's vector from ``embedder`` is the same whichever texts share its call."""
    return bool(getattr(embedder, "batch_independent", False))


class Ahead:
    """Texts being (or already) encoded, by (model key, text). Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)
        self._entries: OrderedDict[tuple[str, str], Future] = OrderedDict()
        self._chunks: OrderedDict[Hashable, Any] = OrderedDict()
        self._todo: deque[tuple[Embedder, str, Future]] = deque()
        self._thread: threading.Thread | None = None

    def start(self, embedder: Embedder, texts: Sequence[str], chunks: Mapping[Hashable, Any] | None = None) -> None:
        """Encode ``texts`` one by one, in this order, on this object's thread. ``chunks``: what the texts were
        cut from, by the caller's key, kept for the taker (``chunked``), who then does not cut them again."""
        with self._lock:
            self._chunks.update(chunks or {})
            while len(self._chunks) > MAX_TEXTS:
                self._chunks.popitem(last=False)
            for text in texts:
                key = (embedder.key, text)
                if key not in self._entries:
                    future: Future = Future()
                    self._entries[key] = future
                    self._todo.append((embedder, text, future))
            while len(self._entries) > MAX_TEXTS:
                self._entries.popitem(last=False)[1].cancel()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="memory-curator-batch-ahead", daemon=True)
                self._thread.start()
            self._work.notify()

    def stop(self) -> None:
        """Encode nothing more: the texts not started are dropped (those encoded stay to be taken)."""
        with self._lock:
            self._stop()

    def _stop(self) -> None:
        for _, _, future in self._todo:
            future.cancel()
        self._todo.clear()
        for key in [k for k, f in self._entries.items() if f.cancelled()]:
            del self._entries[key]

    def chunked(self, key: Hashable) -> Any | None:
        """The chunks kept under ``key`` (handed out once), or None."""
        with self._lock:
            return self._chunks.pop(key, None)

    def take(self, key: str, texts: Sequence[str]) -> list[list[float] | None]:
        """The vectors encoded ahead for ``texts`` (waiting for one being encoded), None for the others; each is
        handed out once. The first text not encoded yet stops the encoding ahead: the taker has caught up with
        it and encodes the rest on its own threads."""
        with self._lock:
            found = [self._entries.pop((key, text), None) for text in texts]
            found = [None if future is None or future.cancel() else future for future in found]
            if None in found:
                self._stop()
        out: list[list[float] | None] = []
        for future in found:
            try:
                out.append(None if future is None else future.result())
            except Exception:  # noqa: BLE001 - the caller encodes it itself and meets the failure there
                out.append(None)
        return out

    def serving(self, embedder: Embedder) -> Embedder:
        """``embedder``, taking the vectors encoded ahead before encoding anything itself."""
        return _Served(embedder, self)

    def _run(self) -> None:
        _yield_to_others()
        while True:
            with self._lock:
                if not self._todo and not self._work.wait_for(lambda: self._todo, IDLE_END_S):
                    self._thread = None
                    return
                embedder, text, future = self._todo.popleft()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(embedder.embed_documents([text])[0])
            except BaseException as exc:  # noqa: BLE001 - handed to the taker, who encodes the text itself
                future.set_exception(exc)


def _yield_to_others() -> None:
    """Lower this thread's priority where a thread has its own (Linux): it should take a core that is free, never
    the write's (measured at load 4-7 without it: save_batch's write 1.5-3 x longer while the model ran beside)."""
    if sys.platform != "linux":
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
    except OSError:  # not permitted in a sandbox: it runs at the usual priority
        pass


class _Served:
    """An embedder whose ``embed_documents`` first takes what was encoded ahead."""

    def __init__(self, inner: Embedder, ahead: Ahead):
        self._inner = inner
        self._ahead = ahead

    def __getattr__(self, name: str):
        return getattr(self._inner, name)

    @property
    def key(self) -> str:
        return self._inner.key

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = self._ahead.take(self._inner.key, texts)
        missing = [i for i, v in enumerate(vectors) if v is None]
        if missing:
            for i, vec in zip(missing, self._inner.embed_documents([texts[i] for i in missing]), strict=True):
                vectors[i] = vec
        return vectors  # type: ignore[return-value]
