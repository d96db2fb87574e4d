"""A large vault's vectors in an HNSW graph (usearch), the vector leg's candidates in a few ms instead of a pass
over every chunk's codes (core/index/codes.py), with the same recall against exact search.

Derived and rebuildable, like the codes: built in the background from the float16 copies (``GraphBuild``, a
Kicked unit; the codes' scan serves searches until it is ready), kept in step with saves and deletes through
the chunk journal (core/index/vectors.py), and saved beside the index (``index.db-vectors.usearch``) with what
it was built from, so that the next open reuses it and catches up. The file is untrusted input: it is read only
when its size and blake2b digest are the ones this index recorded in ``meta`` when it was saved, and when its
header says what was recorded; anything else is set aside and the graph built again.

Vectors go in as int8, each row scaled to its own largest component (cosine does not see a row's scale), and
the graph's best ``CANDIDATES`` are re-ranked on their float16 copies as the codes' candidates are.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from usearch.index import Index, MetricKind, ScalarKind

from memory_curator.core.index.codes import HALVES, RERANK, Scan
from memory_curator.core.index.db import Connection, connect
from memory_curator.core.kicked import Kicked

log = logging.getLogger(__name__)

# From this many chunks a warmed connection builds the graph: below, the codes' scan takes a few ms.
MIN_CHUNKS = 250_000
CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 256  # 20,000 x 768 (recall_bench): recall@10 0.972 at 128, 0.996 at 256
CANDIDATES = RERANK  # the graph's best, re-ranked on float16 (core/index/vectors.py)
BUILD_BLOCK = 10_000  # rows read and added at a time
BUILD_THREADS = 2  # in a helper process at a lower priority: the app's searches come first
FORMAT = 1
META_KEY = "vector_graph"  # in meta: the saved file's record (JSON)
SUFFIX = "-vectors.usearch"  # after the index's file name: index.db-vectors.usearch (the vault's .gitignore has index.db-*)


def file_for(db_path: str) -> Path:
    return Path(db_path + SUFFIX)


def to_int8(rows: np.ndarray) -> np.ndarray:
    """Each row scaled so its largest component is 127 and rounded (an all-zero row stays zero)."""
    rows = np.atleast_2d(np.asarray(rows, dtype=np.float32))
    peak = np.abs(rows).max(axis=1, keepdims=True)
    scale = np.divide(127.0, peak, out=np.zeros_like(peak), where=peak > 0)
    return np.rint(np.nan_to_num(rows * scale, nan=0.0, posinf=0.0, neginf=0.0)).astype(np.int8)


def _new_index(dim: int) -> Index:
    return Index(ndim=dim, metric="cos", dtype="i8", connectivity=CONNECTIVITY, expansion_add=EXPANSION_ADD,
                 expansion_search=EXPANSION_SEARCH)


class Graph:
    """The usearch index by chunk id, with what ``VectorTable`` asks of its codes: ``live``, ``apply`` and
    ``scan``."""

    def __init__(self, index: Index):
        self.index = index

    @property
    def live(self) -> int:
        return len(self.index)

    def apply(self, inserted: dict[int, np.ndarray], deleted: set[int]) -> None:
        """Chunks written (their vectors) and deleted since. A written id already held is replaced."""
        gone = np.fromiter(set(deleted) | set(inserted), dtype=np.uint64)
        if len(gone):
            held = np.asarray(self.index.contains(gone), dtype=bool).reshape(-1)
            if held.any():
                self.index.remove(gone[held])
        if inserted:
            keys = np.fromiter(inserted, dtype=np.uint64, count=len(inserted))
            rows = np.stack([np.asarray(v, dtype=np.float32).reshape(-1) for v in inserted.values()])
            self.index.add(keys, to_int8(rows), threads=1)

    def scan(self, query: np.ndarray, k: int) -> Scan:
        return GraphScan(self, query, k)


class GraphScan(Scan):
    """The graph's best ``CANDIDATES`` (at least ``k``) for the query: one thread, a few ms."""

    def __init__(self, graph: Graph, query: np.ndarray, k: int):
        self._graph, self._q, self._count = graph, to_int8(query)[0], max(CANDIDATES, k)

    def __call__(self) -> np.ndarray:
        index = self._graph.index
        if not len(index):
            return np.empty(0, dtype=np.int64)
        found = index.search(self._q, min(self._count, len(index)), threads=1)
        return np.asarray(found.keys, dtype=np.int64).reshape(-1)


class Built:
    """A graph and the journal position and vector epoch it reflects (see VectorTable._catch_up)."""

    def __init__(self, graph: Graph, seen: int, epoch: str | None):
        self.graph, self.seen, self.epoch = graph, seen, epoch


def _digest(path: Path) -> str:
    h = hashlib.blake2b(digest_size=32)
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


def set_aside(path: Path, why: str) -> None:
    if path.exists():
        aside = path.with_name(f"{path.name}.set-aside")
        try:
            os.replace(path, aside)
        except OSError:
            log.warning("Could not set the vector graph %s aside", path, exc_info=True)
            return
        log.warning("The vector graph %s was set aside (%s): it is built again.", path, why)


def open_saved(conn: Connection, db_path: str, dim: int, epoch: str | None) -> Built | None:
    """The saved graph, when the file is the one this index recorded for the current vector epoch; None when
    there is none. A file that does not match is set aside (never read by usearch)."""
    path = file_for(db_path)
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    if row is None:
        if path.exists():
            set_aside(path, "this index has no record of it")
        return None
    try:
        rec = json.loads(row[0])
        ok = (isinstance(rec, dict) and rec.get("format") == FORMAT and rec.get("dim") == dim
              and isinstance(rec.get("seen"), int) and isinstance(rec.get("count"), int)
              and isinstance(rec.get("size"), int) and isinstance(rec.get("digest"), str))
    except ValueError:
        ok = False
    if not ok or rec.get("epoch") != epoch:
        set_aside(path, "its record is of another vector epoch or format")
        return None
    try:
        size = path.stat().st_size
    except OSError:
        return None
    if size != rec["size"] or _digest(path) != rec["digest"]:
        set_aside(path, "its size or digest is not the one recorded")
        return None
    info = Index.metadata(str(path))
    if (info is None or info.get("dimensions") != dim or info.get("kind_metric") != MetricKind.Cos
            or info.get("kind_scalar") != ScalarKind.I8 or info.get("count_present") != rec["count"]):
        set_aside(path, "its header is not what was recorded")
        return None
    index = Index.restore(str(path))
    if index is None or len(index) != rec["count"]:
        set_aside(path, "it did not load")
        return None
    index.expansion_search = EXPANSION_SEARCH
    return Built(Graph(index), rec["seen"], epoch)


class GraphBuild(Kicked):
    """The graph built by a helper process (``python -m memory_curator.core.index.hnsw``, at a lower priority):
    the app's memory holds the codes meanwhile, not both (at 1,000,000 x 768 each is about 0.9 GB), and
    searches keep a core. The helper saves the file and its record (``build``); this unit's thread then
    loads it as an open does (``open_saved``: checked against the record). ``progress`` is (chunk id reached,
    highest chunk id); ``result()`` the Built, None until done (or failed, or stopped by ``close``)."""

    def __init__(self, db_path: str, dim: int):
        super().__init__("vector-graph")
        self._path, self._dim = db_path, dim
        self.progress = (0, 0)
        self._result: Built | None = None
        self._proc: subprocess.Popen | None = None
        self.finished = False  # done, failed or stopped
        self.seconds = 0.0

    def result(self) -> Built | None:
        return self._result

    def _stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()

    def _loop(self) -> None:
        t = time.perf_counter()
        try:
            self._result = self._run()
        except Exception:  # noqa: BLE001 - the codes' scan keeps serving; the next open tries again
            log.warning("Building the vector graph failed", exc_info=True)
        finally:
            self.seconds = time.perf_counter() - t
            self.finished = True

    def _run(self) -> Built | None:
        package_parent = str(Path(__file__).resolve().parents[3])  # where `memory_curator` is importable from
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))}
        with self._cond:
            if self._closing:
                return None
            self._proc = subprocess.Popen([sys.executable, "-m", __name__, self._path, str(self._dim), str(BUILD_BLOCK)],
                                          stdout=subprocess.PIPE, text=True, env=env,
                                          creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0))
        proc = self._proc
        assert proc.stdout is not None
        with proc.stdout:
            for line in proc.stdout:  # "chunk id reached, highest" per block
                done, _, total = line.partition(" ")
                if done.isdigit() and total.strip().isdigit():
                    self.progress = (int(done), int(total))
        if proc.wait() != 0 or self._closing:
            _temporary(self._path, proc.pid).unlink(missing_ok=True)
            if not self._closing:
                log.warning("The vector graph's helper process ended with %s", proc.returncode)
            return None
        conn = connect(self._path)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'vector_epoch'").fetchone()
            return open_saved(conn, self._path, self._dim, row[0] if row else None)
        finally:
            conn.close()


def build(db_path: str, dim: int, report: Callable[[int, int], None], block: int = BUILD_BLOCK) -> None:
    """The helper's side: the graph from the float16 copies, in blocks by chunk id (each block its own short
    read: a read held for minutes would keep the WAL from being checkpointed), saved with its record. Chunks
    written or deleted meanwhile are in the journal after the position read first, so catching up from there
    (the table does it when it takes the graph over) leaves nothing out."""
    conn = connect(db_path)
    try:
        conn.execute("BEGIN")
        seen = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM chunk_vector_journal").fetchone()[0]
        row = conn.execute("SELECT value FROM meta WHERE key = 'vector_epoch'").fetchone()
        total = conn.execute(f"SELECT MAX(chunk_id) FROM {HALVES}").fetchone()[0] or 0
        conn.execute("COMMIT")
        index = _new_index(dim)
        last = 0
        while rows := conn.execute(f"SELECT chunk_id, half FROM {HALVES} WHERE chunk_id > ? ORDER BY chunk_id LIMIT ?",
                                   (last, block)).fetchall():
            last = rows[-1][0]
            halves = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float16).reshape(len(rows), dim)
            index.add(np.array([r[0] for r in rows], dtype=np.uint64), to_int8(halves), threads=BUILD_THREADS)
            report(last, total)
        _save(conn, db_path, index, dim, row[0] if row else None, seen)
    finally:
        conn.close()


def _save(conn: Connection, db_path: str, index: Index, dim: int, epoch: str | None, seen: int) -> None:
    """Write the file (a temporary one renamed over), then its record."""
    path = file_for(db_path)
    tmp = _temporary(db_path, os.getpid())  # two processes building at once never write one file
    index.save(str(tmp))
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())
    rec = {"format": FORMAT, "dim": dim, "epoch": epoch, "seen": seen, "count": len(index),
           "size": tmp.stat().st_size, "digest": _digest(tmp)}
    conn.execute("DELETE FROM meta WHERE key = ?", (META_KEY,))  # no record while the file changes
    os.replace(tmp, path)
    conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (META_KEY, json.dumps(rec)))


def _temporary(db_path: str, pid: int) -> Path:
    path = file_for(db_path)
    return path.with_name(f"{path.name}.{pid}.tmp")


def _report(done: int, total: int) -> None:
    print(done, total, flush=True)


if __name__ == "__main__":
    if hasattr(os, "nice"):
        os.nice(10)  # the app's searches first
    build(sys.argv[1], int(sys.argv[2]), _report, int(sys.argv[3]))
