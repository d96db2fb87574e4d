"""Throughput with the bundled offline model: ``python bench/throughput.py [--n 1000] [--pages 100] [--repeat 3]``.

- ``save_batch`` of N short memories until every one has its vectors (target >= 150 memories/s), beside
  the model's own speed on the same texts in the same run (the ceiling: what it costs to encode them);
- import of a P-page PDF (written with reportlab), embedded (target < 20 s for 100 pages), beside the
  model's speed on the same chunks;
- each as a ratio to the model alone, in wall time (the figure to quote: this shared machine's speed drifts
  by up to half between runs, less within one) and in the process's CPU time (steadier under load: what
  the engine spends beyond the model, whatever else the cores are doing), and the range of both over the
  repeats at the end.

``--models all-MiniLM-L6-v2,all-MiniLM-L6-v2-dynamic-int8`` runs each measurement for each offline model in
turn (alternating, so both see the same moments of a shared machine) and ends with their ratio.

What entity extraction costs on the way in is printed by ``bench/graph_bench.py``.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bench_lifecycle import CONFIG, note  # noqa: E402
from timing import print_load, print_table  # noqa: E402

from memory_curator.core.embed.local import DEFAULT, LocalEmbedder  # noqa: E402
from memory_curator.core.indexing import embedding_chunks  # noqa: E402
from memory_curator.core.service import MemoryService  # noqa: E402


def _line(name: str, secs: float, count: int, unit: str, target: str = "", note_: str = "") -> dict[str, str]:
    return {"benchmark": name, "seconds": f"{secs:.2f}", "rate": f"{count / secs:,.0f} {unit}/s", "target": target,
            "note": note_}


class Clock:
    """Wall and CPU seconds (every thread of this process: the engine's embedding thread and ONNX's)."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def read(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


RATIOS: dict[str, list[tuple[float, float]]] = {}
TIMES: dict[str, list[tuple[float, float]]] = {}  # (wall, CPU) seconds of each run, by measurement and model


def _ratio(name: str, done: tuple[float, float], model: tuple[float, float]) -> str:
    wall, cpu = done[0] / model[0], done[1] / model[1]
    RATIOS.setdefault(name, []).append((wall, cpu))
    TIMES.setdefault(name, []).append(done)
    return f"{wall:.2f} x the model alone (CPU {cpu:.2f} x)"


def _model_alone(svc: MemoryService, emb: LocalEmbedder, ids: list[str]) -> tuple[list[str], tuple[float, float]]:
    """The texts the engine embedded for ``ids``, and the seconds (wall, CPU) the model takes to encode them
    again."""
    texts = [c[4] for it in svc.get_batch(ids, record_access=False)
             for c in embedding_chunks(it, CONFIG, emb.max_chunk_tokens)]
    clock = Clock()
    emb.embed_documents(texts)
    return texts, clock.read()


def save_batch_rows(emb: LocalEmbedder, n: int, workdir: Path | None, rnd: random.Random, r: int) -> list[dict]:
    items = [{"content": note(rnd, i), "title": f"note {r}-{i}", "keywords": ["bench"]} for i in range(n)]
    with tempfile.TemporaryDirectory(dir=workdir) as tmp, \
            MemoryService.open(Path(tmp) / "vault", embedder=emb, config=CONFIG) as svc:
        clock = Clock()
        created = svc.save_batch(items).created_ids
        written = clock.read()[0]
        svc.embedding.settle(600)
        done = clock.read()
        assert len(created) == n and svc.store.unembedded_count() == 0
        texts, model = _model_alone(svc, emb, created)
    return [_line(f"save_batch {n} short memories, embedded ({emb.model})", done[0], n, "memories", ">= 150/s",
                  f"files + rows {written:.2f} s; " + _ratio(f"save_batch {emb.model}", done, model)),
            _line(f"  the model alone on the same {len(texts)} texts", model[0], len(texts), "texts", "ceiling")]


def pdf_rows(emb: LocalEmbedder, pages: int, workdir: Path | None, rnd: random.Random) -> list[dict]:
    from pdf_samples import write_pdf  # noqa: PLC0415 - the tests' reportlab writer

    with tempfile.TemporaryDirectory(dir=workdir) as tmp, \
            MemoryService.open(Path(tmp) / "vault", embedder=emb, config=CONFIG) as svc:
        pdf = write_pdf(Path(tmp) / "book.pdf", ["\n\n".join(note(rnd, p * 10 + k) for k in range(8))
                                                 for p in range(pages)], title="A long report")
        clock = Clock()
        report = svc.import_paths([pdf])
        svc.embedding.settle(600)
        done = clock.read()
        ids = report.memory_ids
        assert ids and svc.store.unembedded_count() == 0, report
        texts, model = _model_alone(svc, emb, ids)
    return [_line(f"import a {pages}-page PDF, embedded ({len(ids)} memories, {emb.model})", done[0], pages, "pages",
                  "< 20 s", _ratio(f"PDF import {emb.model}", done, model)),
            _line(f"  the model alone on the same {len(texts)} chunks", model[0], len(texts), "chunks", "ceiling")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--pages", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workdir", type=Path)
    ap.add_argument("--models", default=DEFAULT, help="offline models, comma-separated, measured alternately")
    args = ap.parse_args(argv)
    print_load()
    embs = [LocalEmbedder(model=m) for m in args.models.split(",")]
    for emb in embs:
        emb.embed_documents(["warm up the model"])  # loading (and deriving) the model is not what is measured
    rows = []
    for r in range(args.repeat):
        for emb in embs:  # the same texts for each model
            rows += save_batch_rows(emb, args.n, args.workdir, random.Random(5 + r), r)
    for r in range(args.repeat):
        for emb in embs:
            rows += pdf_rows(emb, args.pages, args.workdir, random.Random(50 + r))
    print_table(rows)
    for name, ratios in RATIOS.items():
        walls, cpus = [w for w, _ in ratios], [c for _, c in ratios]
        print(f"{name} / the model alone over {len(ratios)} runs: wall {min(walls):.2f}-{max(walls):.2f} x, "
              f"CPU {min(cpus):.2f}-{max(cpus):.2f} x")
    if len(embs) > 1:
        base = embs[0].model
        for name, times in TIMES.items():
            what = name.rsplit(" ", 1)[0]
            if name.endswith(base) or f"{what} {base}" not in TIMES:
                continue
            ref = TIMES[f"{what} {base}"]
            speed = [(b[0] / t[0], b[1] / t[1]) for b, t in zip(ref, times, strict=True)]
            print(f"{name} against {base}, run by run: faster by wall "
                  f"{', '.join(f'{w:.2f}' for w, _ in speed)} x, CPU {', '.join(f'{c:.2f}' for _, c in speed)} x")
    print_load()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
