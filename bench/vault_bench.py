"""Engine benchmarks on one synthetic vault: rebuild, keyword / semantic / hybrid search, save.

The hybrid figure is measured in the same run as a plain numpy float scan of the same vectors (matrix-vector
product and top-k), the floor any exact search has to pay; their ratio is what to watch across machines.
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from synthetic import Corpus, PrecomputedEmbedder, make_corpus, write_vault_files
from timing import percentile, row, time_each

from memory_curator.core.config import MemoryConfig
from memory_curator.core.service import MemoryService

CONFIG = MemoryConfig(ollama_host="http://127.0.0.1:9")


@dataclass(frozen=True)
class Scale:
    n: int
    rebuild: str
    keyword: str
    hybrid: str
    memory: str = ""


SCALES = {
    "100k": Scale(100_000, "<= 15 s", "p50 <= 5 ms", "p50 <= 15, p95 <= 30"),
    "1m": Scale(1_000_000, "<= 600 s", "p50 <= 10 ms", "p50 <= 30, p95 <= 60", "< 2 GB"),
}


def _rss_mb() -> float:
    """This process's resident memory now (Linux), else its peak."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Progress:
    """Prints a phase's progress every ``step`` of its total (what the app shows in its status bar), and how
    many updates came: a rebuild of 1,000,000 files must say how far it is."""

    def __init__(self, label: str, step: float = 0.1):
        self.label, self.step, self.calls, self._next, self._t = label, step, 0, 0.0, time.perf_counter()

    def __call__(self, done: int, total: int, phase: str) -> None:
        self.calls += 1
        if total and done / total >= self._next:
            print(f"[{self.label}] {phase} {done:,} / {total:,} at {time.perf_counter() - self._t:.0f} s", flush=True)
            self._next = done / total + self.step


def app_rows(root: Path) -> list[dict[str, str]]:
    """The desktop app on this vault (bench/gui_list_scroll.py in a process of its own, so its memory is the
    app's alone): opening, the memory list's pages and its longest stall while scrolling, the app's memory."""
    script = Path(__file__).resolve().parent / "gui_list_scroll.py"
    done = subprocess.run([sys.executable, str(script), "--vault", str(root), "--json"], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        return [{"benchmark": "the app on this vault", "note": f"failed: {done.stderr.strip()[-300:]}"}]
    out = []
    for name, value in json.loads(done.stdout.strip().splitlines()[-1]):
        figure, _, target = value.partition(" (target ")
        out.append({"benchmark": f"app: {name}", "n": "1", "p50 ms": figure, "p95 ms": "",
                    "target": target.rstrip(")")})
    return out


def numpy_scan(vectors: np.ndarray, query: np.ndarray, k: int = 10) -> np.ndarray:
    scores = vectors @ query
    top = np.argpartition(-scores, k)[:k]
    return top[np.argsort(-scores[top])]


def run(n: int, dim: int, n_queries: int, workdir: Path | None = None,
        scale: Scale = SCALES["100k"], app: bool = False) -> list[dict[str, str]]:
    """``app``: also open the vault in the desktop app (offscreen) and scroll its memory list (app_rows)."""
    rows: list[dict[str, str]] = []
    t = time.perf_counter()
    corpus: Corpus = make_corpus(n, dim, n_queries)
    print(f"[setup] corpus of {n} x {dim} in {time.perf_counter() - t:.1f} s", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="mc-bench-", dir=workdir))
    try:
        root = tmp / "vault"
        # The index is made while the vault is empty: opening a vault without one builds it from the files,
        # which would be the rebuild below done twice (10 minutes more at 1,000,000).
        MemoryService.open(root, embedder="none", config=CONFIG, sync=False).close()
        t = time.perf_counter()
        write_vault_files(root, corpus)
        print(f"[setup] wrote {n} files in {time.perf_counter() - t:.1f} s", flush=True)

        svc = MemoryService.open(root, embedder="none", config=CONFIG, sync=False)
        t = time.perf_counter()
        progress = Progress("rebuild")
        report = svc.rebuild_index(embed=False, progress=progress)
        secs = time.perf_counter() - t
        assert report.added == n, report
        rows.append({"benchmark": f"rebuild {n} files (no embedding)", "n": "1", "p50 ms": f"{secs * 1000:.0f}",
                     "p95 ms": "", "target": scale.rebuild,
                     "note": f"{n / secs:,.0f} files/s; {progress.calls:,} progress updates"})
        svc.close()

        emb = PrecomputedEmbedder(corpus)
        before_mb = _rss_mb()  # the corpus is already in memory: what follows is the engine's
        svc = MemoryService.open(root, embedder=emb, config=CONFIG, sync=False)
        t = time.perf_counter()
        svc.reindex_missing(progress=Progress("vectors"))
        print(f"[setup] stored {n} vectors in {time.perf_counter() - t:.1f} s", flush=True)
        if svc.postings is not None and n >= CONFIG.postings_min_rows:
            # Kept keyword postings are built after a rebuild by a long-running process's background unit (the
            # app's, a server's); keyword search ranks with FTS5 until they are complete. As the app would:
            t = time.perf_counter()
            svc.postings.kick()
            svc.postings.wait_idle(4 * 3600)
            rows.append({"benchmark": "keyword postings built in the background after the rebuild", "n": "1",
                         "p50 ms": f"{(time.perf_counter() - t) * 1000:.0f}", "p95 ms": "", "target": "",
                         "note": "searches rank with FTS5 meanwhile; saves keep going"})
        svc.search(corpus.queries[0], limit=10, mode="hybrid")  # loads the in-memory codes (sign bits, int8) once

        qs = corpus.queries
        kw = time_each(lambda q: svc.search(q, limit=10, mode="keyword"), qs)
        rows.append(row(f"keyword search, {n} memories", kw, scale.keyword))
        sem = time_each(lambda q: svc.search(q, limit=10, mode="semantic"), qs)
        rows.append(row(f"semantic search, {n} x {dim}", sem))
        hyb = time_each(lambda q: svc.search(q, limit=10, mode="hybrid"), qs)
        scan = time_each(lambda v: numpy_scan(corpus.vectors, v), corpus.query_vectors)
        ratio = percentile(hyb, 50) / percentile(scan, 50)
        rows.append(row(f"hybrid search, {n} x {dim}", hyb, scale.hybrid,
                        f"{ratio:.2f} x numpy scan (target <= 1.0)"))
        rows.append(row(f"numpy float scan, {n} x {dim}", scan, "", "reference"))
        hits = sum(1 for q, tgt in zip(qs, corpus.query_targets, strict=True)
                   if any(r.memory.title == corpus.titles[tgt] for r in svc.search(q, limit=10, mode="hybrid")))
        rows[-2]["note"] += f"; source memory in top 10: {hits / len(qs):.0%}"
        rows.append({"benchmark": "engine memory after searching (RSS growth)", "n": "1",
                     "p50 ms": f"{_rss_mb() - before_mb:,.0f} MB", "p95 ms": "", "target": scale.memory,
                     "note": f"process {_rss_mb():,.0f} MB with the benchmark's own corpus"})

        svc.close()
        svc = MemoryService.open(root, embedder="none", config=CONFIG, sync=False)
        texts = [f"bench save {i}: " + corpus.contents[i % n][:300] for i in range(200)]
        saves = time_each(lambda s: svc.save(s, category="context", keywords=["bench"]), texts)
        rows.append(row(f"save without embedding, {n} memories", saves, "p50 <= 5 ms"))
        svc.close()
        if app:
            rows += app_rows(root)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows
