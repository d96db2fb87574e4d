"""Lifecycle speed with the bundled offline model: ``python bench/bench_lifecycle.py [--repeat R]``.

- consolidate 50 memories (summary, new memory written and embedded): target <= 0.5 s
- save_batch of 100 memories, embedded with all-MiniLM-L6-v2 on the CPU: target <= 2 s (seed: 5 s)
- one decay run over 1,000 inactive context memories (each file rewritten), and cleanup after it
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))

from timing import print_load, print_table, row  # noqa: E402

from memory_curator.core.config import MemoryConfig  # noqa: E402
from memory_curator.core.embed.local import LocalEmbedder  # noqa: E402
from memory_curator.core.model import utcnow  # noqa: E402
from memory_curator.core.service import MemoryService  # noqa: E402

TOPICS = "SQLite vectors, the deploy pipeline, session summaries, the billing service, Japanese search".split(", ")
CONFIG = MemoryConfig(ollama_host="http://127.0.0.1:9")


def note(rnd: random.Random, i: int) -> str:
    topic = rnd.choice(TOPICS)
    sentences = [f"Note {i} is about {topic}.", f"We decided to keep {topic} simple and local.",
                 f"The team reviewed {topic} on day {rnd.randrange(1, 30)}.",
                 f"Open question {i}: how does {topic} behave with {rnd.randrange(10, 1000)} items?",
                 "Everything else stayed as it was."]
    return " ".join(sentences)


CPU_MS: dict[str, list[float]] = {}


def timed(fn, label: str = "") -> float:
    """Wall milliseconds; the CPU milliseconds go to CPU_MS[label] (they say more on a busy machine)."""
    t, c = time.perf_counter(), time.process_time()
    fn()
    CPU_MS.setdefault(label, []).append((time.process_time() - c) * 1000)
    return (time.perf_counter() - t) * 1000


def cpu_note(label: str, note: str = "") -> str:
    ms = sorted(CPU_MS.get(label, [0.0]))
    return f"cpu p50 {ms[len(ms) // 2]:.0f} ms" + (f"; {note}" if note else "")


def run(repeat: int, workdir: Path | None = None) -> list[dict[str, str]]:
    rnd = random.Random(3)
    emb = LocalEmbedder()
    emb.embed_documents(["warm up the model"])  # loading the model is not what is measured
    rows = []
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        with MemoryService.open(Path(tmp) / "vault", embedder=emb, config=CONFIG) as svc:
            batch_ms = []
            for r in range(repeat):
                items = [{"content": note(rnd, i), "title": f"note {r}-{i}", "keywords": ["bench"]} for i in range(100)]
                # Written and embedded: the vectors come from the background unit after save_batch returns.
                batch_ms.append(timed(lambda items=items: (svc.save_batch(items), svc.embedding.wait(600)), "batch"))
            rows.append(row("save_batch 100 (local model)", batch_ms, "<= 2000 ms", cpu_note("batch", "embedded")))
            texts = [note(rnd, i) for i in range(100)]
            rows.append(row("  of which: embedding 100 texts", [timed(lambda: emb.embed_documents(texts), "embed")
                                                                for _ in range(repeat)], "", cpu_note("embed")))
        with MemoryService.open(Path(tmp) / "plain", embedder="none", config=CONFIG) as plain:
            items = [[{"content": note(rnd, i)} for i in range(100)] for _ in range(repeat)]
            rows.append(row("save_batch 100 (no embedder)", [timed(lambda b=b: plain.save_batch(b), "plain")
                                                             for b in items], "", cpu_note("plain", "files + index")))
        with MemoryService.open(Path(tmp) / "vault", embedder=emb, config=CONFIG) as svc:

            groups = [svc.save_batch([{"content": note(rnd, i)} for i in range(50)]).created_ids
                      for _ in range(repeat)]
            svc.embedding.wait(600)
            rows.append(row("preview_consolidation 50",
                            [timed(lambda g=g: svc.preview_consolidation(g), "preview") for g in groups], "",
                            cpu_note("preview", "summary only, nothing written")))
            rows.append(row("consolidate 50", [timed(lambda g=g: (svc.consolidate(g), svc.embedding.wait(600)), "cons")
                                               for g in groups],
                            "<= 500 ms", cpu_note("cons", "written and embedded")))

            old = (utcnow() - timedelta(days=30)).isoformat()
            svc.save_batch([{"content": note(rnd, i), "category": "context", "salience": 0.105, "created_at": old}
                            for i in range(1000)])
            rows.append(row("decay_salience (1,000 inactive)", [timed(svc.decay_salience, "decay")], "",
                            cpu_note("decay", "every file rewritten atomically")))
            rows.append(row("cleanup (1,000 to the trash)", [timed(svc.cleanup, "cleanup")], "", cpu_note("cleanup")))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--workdir", type=Path)
    args = ap.parse_args(argv)
    print_load()
    print_table(run(args.repeat, args.workdir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
