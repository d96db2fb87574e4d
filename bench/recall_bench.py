"""Recall of the large-vault vector search (sign bits -> int8 codes -> float16 re-rank) against exact search,
and its time beside a numpy float32 scan of the same vectors in the same run. The search is timed as a
search runs it: its scan shared by the search worker and the calling thread (core/search.py). (An HNSW graph
over the same vectors was measured here too and dropped: core/index/vectors.py's docstring has its figures.)

    python bench/recall_bench.py [--n 100000] [--dim 768] [--queries 200]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import make_vectors  # noqa: E402
from timing import percentile, print_load, print_table, time_each  # noqa: E402

from memory_curator.core import blas, search  # noqa: E402
from memory_curator.core.index import codes, vectors  # noqa: E402
from memory_curator.core.index.db import connect  # noqa: E402

SHARES = (0.005, 0.01, 0.02, 0.04)


def numpy_scan(matrix: np.ndarray, query: np.ndarray, k: int = 10) -> np.ndarray:
    scores = matrix @ query
    top = np.argpartition(-scores, k)[:k]
    return top[np.argsort(-scores[top])]


def vector_leg(table: vectors.VectorTable, query: np.ndarray, k: int = 10) -> list[tuple[int, float]]:
    """The vector leg of a semantic search: the scan on the search worker, helped by this thread."""
    scan, finish = table.knn_split(query, k, exact=False)
    with blas.one_thread():
        return finish(search._beside(scan, search._no_work))


def recall_at(exact: list[np.ndarray], found: list[list[int]], k: int = 10) -> float:
    return float(np.mean([len(set(f[:k]) & set(e[:k].tolist())) / k for e, f in zip(exact, found, strict=True)]))


def measure(vecs: np.ndarray, queries: np.ndarray, shares: tuple[float, ...] = SHARES,
            workdir: Path | None = None) -> list[dict[str, str]]:
    """Store ``vecs`` (chunk ids 1..n) in a real index; per candidate share, recall@10 against an exact float32
    scan and the p50 time of both."""
    rows = []
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        conn = connect(Path(tmp) / "recall.db")
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        table = vectors.VectorTable(conn)
        t = time.perf_counter()
        conn.execute("BEGIN")
        table.create("bench", vecs.shape[1])
        for i, v in enumerate(vecs, start=1):
            table.insert(i, v)
        conn.execute("COMMIT")
        print(f"[setup] stored {len(vecs)} vectors in {time.perf_counter() - t:.1f} s", flush=True)
        t = time.perf_counter()
        table.knn(queries[0], 10, exact=False)
        print(f"[setup] in-memory codes built in {time.perf_counter() - t:.1f} s", flush=True)
        exact = [numpy_scan(vecs, q) + 1 for q in queries]
        scan = time_each(lambda q: numpy_scan(vecs, q), queries)
        saved = codes.CANDIDATE_SHARE, codes.MIN_CANDIDATES, codes.MAX_CANDIDATES
        try:
            for share in (*shares, None):  # None: the defaults (a share, at least and at most so many)
                if share is None:
                    codes.CANDIDATE_SHARE, codes.MIN_CANDIDATES, codes.MAX_CANDIDATES = saved
                else:
                    codes.CANDIDATE_SHARE, codes.MIN_CANDIDATES, codes.MAX_CANDIDATES = share, 0, len(vecs)
                m = min(codes.MAX_CANDIDATES, max(codes.MIN_CANDIDATES, int(np.ceil(codes.CANDIDATE_SHARE * len(vecs)))))
                found = [[c for c, _ in vector_leg(table, q)] for q in queries]
                ms = time_each(lambda q: vector_leg(table, q), queries)
                ratio = percentile(ms, 50) / percentile(scan, 50)
                rows.append({"vectors": f"{len(vecs):,} x {vecs.shape[1]}",
                             "candidates": f"{m / len(vecs):.1%} = {m:,}" + (" (default)" if share is None else ""),
                             "recall@10 vs exact": f"{recall_at(exact, found):.4f}", "target": ">= 0.99",
                             "p50 ms": f"{percentile(ms, 50):.2f}", "p95 ms": f"{percentile(ms, 95):.2f}",
                             "numpy f32 scan p50 ms": f"{percentile(scan, 50):.2f}",
                             "vs scan": f"{ratio:.2f} x (target <= 1)"})
        finally:
            codes.CANDIDATE_SHARE, codes.MIN_CANDIDATES, codes.MAX_CANDIDATES = saved
        conn.close()
    return rows


def run(n: int, dim: int, n_queries: int, workdir: Path | None = None) -> list[dict[str, str]]:
    vecs, queries = make_vectors(n, dim, n_queries)
    return measure(vecs, queries, workdir=workdir)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--workdir", type=Path)
    args = ap.parse_args(argv)
    print_load()
    print_table(run(args.n, args.dim, args.queries, args.workdir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
