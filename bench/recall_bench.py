"""Recall of the approximate vector search (sign-bit candidates, float16 re-rank) against exact search."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from synthetic import make_corpus
from timing import percentile, time_each

from memory_curator.core.index import vectors
from memory_curator.core.index.db import connect


def recall_at(exact: list[list[int]], approx: list[list[int]], k: int) -> float:
    return float(np.mean([len(set(a[:k]) & set(e[:k])) / k for e, a in zip(exact, approx, strict=True)]))


def measure(vecs: np.ndarray, queries: np.ndarray, ks: tuple[int, ...] = (10, 50),
            oversample: tuple[int, ...] = (4, 8, 16)) -> list[dict[str, str]]:
    """Store ``vecs`` in a real index and compare approximate with exact KNN for each oversampling factor."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        conn = connect(Path(tmp) / "recall.db")
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        table = vectors.VectorTable(conn)
        conn.execute("BEGIN")
        table.create("bench", vecs.shape[1])
        for i, v in enumerate(vecs, start=1):
            table.insert(i, v)
        conn.execute("COMMIT")
        kmax = max(ks)
        exact = [[c for c, _ in table.knn(q, kmax, exact=True)] for q in queries]
        saved = vectors.OVERSAMPLE, vectors.MIN_CANDIDATES
        try:
            for over in oversample:
                vectors.OVERSAMPLE, vectors.MIN_CANDIDATES = over, 0
                approx = [[c for c, _ in table.knn(q, kmax, exact=False)] for q in queries]
                ms = time_each(lambda q: table.knn(q, 10, exact=False), queries)
                for k in ks:
                    rows.append({"vectors": f"{len(vecs)} x {vecs.shape[1]}",
                                 "candidates": f"{over} x {kmax} = {over * kmax}",
                                 "recall@k of a top-50 query": f"k={k}: {recall_at(exact, approx, k):.3f}",
                                 "p50 ms (k=10)": f"{percentile(ms, 50):.2f}"})
        finally:
            vectors.OVERSAMPLE, vectors.MIN_CANDIDATES = saved
        conn.close()
    return rows


def run(n: int, dim: int, n_queries: int) -> list[dict[str, str]]:
    corpus = make_corpus(n, dim, n_queries)
    return measure(corpus.vectors, corpus.query_vectors)
