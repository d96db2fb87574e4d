"""Retrieval eval on the LoCoMo dev split (/work/shared/eval), run exactly as its README describes.

One fresh vault per conversation group; every memory goes through ``save_batch`` as {content, title,
session_id, keywords, category "context", source "user"}; the returned ids (in save order) map back to the
dataset ids; each query runs as ``search(query, limit=10, mode=...)`` in its own group's vault.

    python bench/eval_locomo.py [--data DIR] [--modes keyword,semantic,hybrid] [--groups conv-26] [--embedder local]
    python bench/eval_locomo.py --modes hybrid@0,hybrid@0.5    # hybrid without and with the graph leg
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_metrics import score  # noqa: E402
from timing import percentile, print_table  # noqa: E402

from memory_curator.core.config import MemoryConfig  # noqa: E402
from memory_curator.core.service import MemoryService  # noqa: E402

DATA = Path("/work/shared/eval")
MODES = ("keyword", "semantic", "hybrid")
CONFIG = MemoryConfig(ollama_host="http://127.0.0.1:9")


@dataclass
class ModeRun:
    runs: list[tuple[list[str], set[str], str]] = field(default_factory=list)  # ranked, relevant, category
    latencies_ms: list[float] = field(default_factory=list)


@dataclass
class EvalResult:
    modes: dict[str, ModeRun]
    memories: int
    import_seconds: float

    def metrics(self, mode: str, category: str | None = None) -> dict[str, float]:
        runs = [(r, rel) for r, rel, cat in self.modes[mode].runs if category is None or cat == category]
        return score(runs)

    def categories(self) -> list[str]:
        first = next(iter(self.modes.values()))
        return sorted({cat for _, _, cat in first.runs})


def load(data: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    def read(name: str) -> list[dict[str, Any]]:
        with open(data / name, encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]

    return read("locomo_dev.memories.jsonl"), read("locomo_dev.queries.jsonl")


def evaluate(memories: list[dict], queries: list[dict], embedder: Any = "local", modes: tuple[str, ...] = MODES,
             groups: list[str] | None = None, workdir: Path | None = None, config: MemoryConfig = CONFIG) -> EvalResult:
    by_group: dict[str, list[dict]] = defaultdict(list)
    for m in memories:
        by_group[m["group"]].append(m)
    wanted = groups or sorted(by_group)
    result = EvalResult({m: ModeRun() for m in modes}, 0, 0.0)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        for group in wanted:
            svc = MemoryService.open(Path(tmp) / group, embedder=embedder, config=config)
            items = [{"content": m["content"], "title": m["title"], "session_id": m["session_id"],
                      "keywords": m["keywords"], "category": "context", "source": "user"} for m in by_group[group]]
            t = time.perf_counter()
            saved = svc.save_batch(items)
            svc.embedding.wait(3600)  # saves return before their vectors: the import is done once they exist
            result.import_seconds += time.perf_counter() - t
            result.memories += len(items)
            to_dataset = {it.id: m["id"] for it, m in zip(saved, by_group[group], strict=True)}
            for q in (q for q in queries if q["group"] == group):
                relevant = set(q["relevant_ids"])
                for mode in modes:
                    # "hybrid@0.3": hybrid with the graph leg at that weight (0 = off; plain "hybrid": the default).
                    base, _, g = mode.partition("@")
                    t = time.perf_counter()
                    if g:  # the service reads the leg's weight from its config
                        svc.config = replace(config, graph_weight=float(g))
                    hits = svc.search(q["query"], limit=10, mode=base)
                    svc.config = config
                    result.modes[mode].latencies_ms.append((time.perf_counter() - t) * 1000)
                    ranked = [to_dataset[h.memory.id] for h in hits]
                    result.modes[mode].runs.append((ranked, relevant, q["category_name"]))
            svc.close()
    return result


def report(result: EvalResult) -> None:
    rows = []
    for mode, run in result.modes.items():
        for cat in [None, *result.categories()]:
            m = result.metrics(mode, cat)
            n = sum(1 for *_, c in run.runs if cat is None or c == cat)
            r = {"mode": mode, "category": cat or "all", "queries": str(n)}
            r.update({k: f"{v:.3f}" for k, v in m.items()})
            if cat is None:
                r["p50 ms"] = f"{percentile(run.latencies_ms, 50):.1f}"
                r["p95 ms"] = f"{percentile(run.latencies_ms, 95):.1f}"
            rows.append(r)
    print_table(rows)
    rate = result.memories / result.import_seconds if result.import_seconds else float("nan")
    print(f"\nimport: {result.memories} memories in {result.import_seconds:.1f} s ({rate:.0f} memories/s, "
          "time inside save_batch, embedding included)")
    print("baselines (README): bm25 R@10 0.619 MRR 0.398 | dense 0.641 / 0.355 | rrf 0.674 / 0.433")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--groups", help="comma-separated conversation groups (default: all)")
    ap.add_argument("--embedder", default="local", help="local | ollama | auto")
    ap.add_argument("--local-model", default=CONFIG.local_model,
                    help="the offline model: all-MiniLM-L6-v2-dynamic-int8 (default) or all-MiniLM-L6-v2")
    args = ap.parse_args(argv)
    memories, queries = load(args.data)
    modes = tuple(m for m in args.modes.split(",") if m)
    groups = args.groups.split(",") if args.groups else None
    config = replace(CONFIG, local_model=args.local_model)
    print(f"offline model: {config.local_model}")
    report(evaluate(memories, queries, args.embedder, modes, groups, config=config))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
