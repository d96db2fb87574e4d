"""Embedding in tests: waiting for the background unit (core/embed/background.py: saves return before their
vectors exist, so a test that needs them waits for it, with a generous bound for a loaded machine), and a
deterministic provider whose vector of a text is that text's alone."""

from __future__ import annotations

import hashlib
import threading

import numpy as np

from memory_curator.core.errors import EmbedderUnavailable
from memory_curator.core.model import EmbedderStatus

WAIT_S = 120.0
DIM = 16  # TextHashEmbedder's


def embedded(svc, timeout: float = WAIT_S) -> None:
    """Wait until the service's background unit has embedded everything it was asked to; fail with its state."""
    assert svc.embedding.wait(timeout), f"embedding did not finish: {svc.embedding.progress}"


def text_vector(text: str) -> list[float]:
    """``text``'s vector from TextHashEmbedder: its SHA-256's first ``DIM`` bytes, normalized."""
    v = np.frombuffer(hashlib.sha256(text.encode()).digest()[:DIM], dtype=np.uint8).astype(np.float32) - 127.5
    return (v / np.linalg.norm(v)).tolist()


class TextHashEmbedder:
    """A deterministic provider: a text's vector depends on that text only (``batch_independent``: whether it
    says so, which lets save_batch encode ahead). Records each call with the thread that made it (``calls``),
    how many ran at once at most, and fails every call after the ``fail_from``-th."""

    provider, model, multilingual, max_chunk_tokens = "test", "text-hash", True, 512

    def __init__(self, batch_independent: bool = False) -> None:
        self.batch_independent = batch_independent
        self.calls: list[tuple[str, list[str]]] = []
        self.fail_from: int | None = None
        self.at_once = self.most_at_once = 0
        self._lock = threading.Lock()
        self._called = threading.Condition(self._lock)

    @property
    def key(self) -> str:
        return "test:text-hash"

    def dimension(self) -> int:
        return DIM

    def status(self) -> EmbedderStatus:
        return EmbedderStatus("test", "text-hash", True, "")

    def embed_query(self, text: str) -> list[float]:
        return text_vector(text)

    def embed_documents(self, texts):
        with self._lock:
            self.at_once += 1
            self.most_at_once = max(self.most_at_once, self.at_once)
            self.calls.append((threading.current_thread().name, list(texts)))
            failing = self.fail_from is not None and len(self.calls) > self.fail_from
            self._called.notify_all()
        try:
            if failing:
                raise EmbedderUnavailable("the test provider is down")
            return [text_vector(t) for t in texts]
        finally:
            with self._lock:
                self.at_once -= 1

    @property
    def encoded(self) -> list[tuple[str, str]]:
        """(thread name, text) of every text encoded so far."""
        with self._lock:
            return [(name, t) for name, texts in self.calls for t in texts]

    def called_on(self, thread_name: str, timeout: float) -> bool:
        """Wait until a call has come from the thread ``thread_name`` (at most ``timeout`` s)."""
        with self._called:
            return self._called.wait_for(lambda: any(n == thread_name for n, _ in self.calls), timeout)


class GatedEmbedder(TextHashEmbedder):
    """Stops in its ``gate_at``-th call until ``gate`` is set (the test looks at the unit meanwhile)."""

    def __init__(self, gate_at: int) -> None:
        super().__init__()
        self.gate_at = gate_at
        self.gate = threading.Event()
        self.reached = threading.Event()

    def embed_documents(self, texts):
        with self._lock:
            n = len(self.calls) + 1
        if n == self.gate_at:
            self.reached.set()
            assert self.gate.wait(WAIT_S)
        return super().embed_documents(texts)
