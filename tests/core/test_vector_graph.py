"""A large vault's HNSW graph (core/index/hnsw.py) on a real index: built in the background from the float16
copies, as good as exact search, kept in step with saves and deletes (its own and another connection's),
reused from its file by the next open, rebuilt when the file is not the one recorded, and stopped by a close."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from memory_curator.core.index import hnsw, vectors
from memory_curator.core.index.db import connect

N, DIM = 3000, 64


@pytest.fixture
def small_graphs(monkeypatch):
    monkeypatch.setattr(vectors, "EXACT_MAX_VALUES", 1000)
    monkeypatch.setattr(hnsw, "MIN_CHUNKS", 1000)
    monkeypatch.setattr(hnsw, "BUILD_BLOCK", 500)


def _vectors(n: int, seed: int = 3) -> np.ndarray:
    """Topic centres plus spread, as the benchmark's are: near neighbours are close but not duplicates."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, DIM)).astype(np.float32)
    v = centres[rng.integers(0, 40, n)] + 0.8 * rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _stored(path, vecs: np.ndarray) -> vectors.VectorTable:
    conn = connect(path)
    conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    table = vectors.VectorTable(conn)
    conn.execute("BEGIN")
    table.create("test", DIM)
    for i, v in enumerate(vecs, start=1):
        table.insert(i, v)
    conn.execute("COMMIT")
    return table


def _opened(path) -> vectors.VectorTable:
    table = vectors.VectorTable(connect(path))
    table.warm()
    assert table._warming is not None
    table._warming.result()
    table.count()  # takes over what was loaded
    return table


def _with_graph(table: vectors.VectorTable) -> hnsw.Graph:
    build = table._build
    assert build is not None, "a large vault's warmed connection builds the graph"
    build._thread.join(60)
    assert build.finished and build.result() is not None
    table.count()  # the search path takes it over
    assert isinstance(table._codes, hnsw.Graph)
    return table._codes


def _recall(table: vectors.VectorTable, vecs: np.ndarray, queries: np.ndarray, ids: np.ndarray) -> float:
    hit = 0
    for q in queries:
        exact = ids[np.argsort(-(vecs @ q), kind="stable")[:10]]
        hit += len({c for c, _ in table.knn(q, 10)} & set(exact.tolist()))
    return hit / (10 * len(queries))


def test_the_graph_finds_what_exact_search_finds_and_its_file_is_recorded(tmp_path, small_graphs):
    vecs = _vectors(N)
    table = _stored(tmp_path / "index.db", vecs)
    table.conn.close()
    table = _opened(tmp_path / "index.db")
    assert table.graph_progress()[0] in ("building", "ready", "none")
    graph = _with_graph(table)
    assert graph.live == N and table.graph_progress() == ("ready", N, N)
    queries = _vectors(40, seed=9)
    assert _recall(table, vecs, queries, np.arange(1, N + 1)) >= 0.97
    rec = json.loads(table.conn.execute("SELECT value FROM meta WHERE key = ?", (hnsw.META_KEY,)).fetchone()[0])
    assert rec["count"] == N and rec["size"] == hnsw.file_for(str(tmp_path / "index.db")).stat().st_size
    table.close()


def test_saves_and_deletes_reach_the_graph_from_this_and_another_connection(tmp_path, small_graphs):
    vecs = _vectors(N)
    table = _stored(tmp_path / "index.db", vecs)
    table.conn.close()
    table = _opened(tmp_path / "index.db")
    during = _vectors(5, seed=11)  # written by another connection while the graph is built
    other = vectors.VectorTable(connect(tmp_path / "index.db"))
    for i, v in enumerate(during):
        other.insert(N + 1 + i, v)
    other.delete([1, 2])
    _with_graph(table)
    table.insert(N + 100, vecs[10] * -1)  # this connection's own save
    table.delete([3])
    other.insert(N + 200, _vectors(1, seed=12)[0])
    other.delete([4])
    for cid, v in [(N + 1, during[0]), (N + 5, during[4]), (N + 100, -vecs[10])]:
        assert table.knn(v, 1)[0][0] == cid
    found = {c for q in vecs[:6] for c, _ in table.knn(q, 10)}
    assert not found & {1, 2, 3, 4}
    assert table.knn(_vectors(1, seed=12)[0], 1)[0][0] == N + 200
    assert table.count() == N + 5 + 1 + 1 - 4
    table.close()
    other.conn.close()


def test_the_next_open_reuses_the_saved_graph_and_catches_up(tmp_path, small_graphs):
    vecs = _vectors(N)
    table = _stored(tmp_path / "index.db", vecs)
    table.conn.close()
    table = _opened(tmp_path / "index.db")
    _with_graph(table)
    table.insert(N + 1, -vecs[7])  # after the file was saved: caught up from the journal on the next open
    table.delete([8])
    table.close()
    table.conn.close()
    again = _opened(tmp_path / "index.db")
    assert isinstance(again._codes, hnsw.Graph) and again._build is None  # loaded from the file, not built
    assert again.knn(-vecs[7], 1)[0][0] == N + 1
    assert 8 not in {c for c, _ in again.knn(vecs[8], 10)}
    again.conn.close()


@pytest.mark.parametrize("damage", ["truncated", "flipped", "foreign", "no record"])
def test_a_graph_file_that_is_not_the_one_recorded_is_set_aside_and_built_again(tmp_path, small_graphs, damage):
    vecs = _vectors(N)
    table = _stored(tmp_path / "index.db", vecs)
    table.conn.close()
    table = _opened(tmp_path / "index.db")
    _with_graph(table)
    table.conn.close()
    path = hnsw.file_for(str(tmp_path / "index.db"))
    data = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flipped":  # same size, one byte of the graph changed
        path.write_bytes(data[:-100] + bytes([data[-100] ^ 0xFF]) + data[-99:])
    elif damage == "foreign":  # another index's graph, recorded there, not here
        other = _stored(tmp_path / "other.db", _vectors(N, seed=5))
        other.conn.close()
        other = _opened(tmp_path / "other.db")
        _with_graph(other)
        other.conn.close()
        path.write_bytes(hnsw.file_for(str(tmp_path / "other.db")).read_bytes())
    else:
        conn = connect(tmp_path / "index.db")
        conn.execute("DELETE FROM meta WHERE key = ?", (hnsw.META_KEY,))
        conn.close()
    again = _opened(tmp_path / "index.db")
    assert not isinstance(again._codes, hnsw.Graph)  # the codes serve meanwhile
    assert path.with_name(path.name + ".set-aside").exists()
    _with_graph(again)
    assert _recall(again, vecs, _vectors(20, seed=9), np.arange(1, N + 1)) >= 0.97
    again.conn.close()


def test_closing_stops_a_build_under_way(tmp_path, small_graphs, monkeypatch):
    monkeypatch.setattr(hnsw, "BUILD_BLOCK", 1)  # thousands of steps: the close lands in the middle
    table = _stored(tmp_path / "index.db", _vectors(N))
    table.conn.close()
    table = _opened(tmp_path / "index.db")
    build = table._build
    assert build is not None
    table.close()
    build._thread.join(5)
    assert build.finished and build.result() is None
    assert build.progress[0] < N
    assert not hnsw.file_for(str(tmp_path / "index.db")).exists()
    table.conn.close()


def test_rows_are_scaled_to_int8_each_on_its_own():
    rows = np.array([[0.5, -0.25, 0.0], [0.001, 0.002, -0.004], [0.0, 0.0, 0.0]], dtype=np.float32)
    assert hnsw.to_int8(rows).tolist() == [[127, -64, 0], [32, 64, -127], [0, 0, 0]]


def test_the_offline_model_loads_after_the_graph_library():
    """usearch 2.26.2-2.26.6 crashed the process when onnxruntime was imported after it (the app imports the
    graph's module with the index, the offline model later)."""
    pytest.importorskip("onnxruntime")
    code = "import memory_curator.core.index.hnsw; import onnxruntime; print('ok')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_a_saved_graph_the_journal_can_no_longer_catch_up_is_built_again(tmp_path, small_graphs, monkeypatch):
    monkeypatch.setattr(vectors, "JOURNAL_KEEP", 5)
    monkeypatch.setattr(vectors, "JOURNAL_PRUNE_EVERY", 5)
    vecs = _vectors(N)
    table = _stored(tmp_path / "index.db", vecs)
    table.conn.close()
    table = _opened(tmp_path / "index.db")
    _with_graph(table)
    table.conn.close()
    writer = vectors.VectorTable(connect(tmp_path / "index.db"))
    for i in range(20):  # more writes than the journal keeps
        writer.insert(N + 1 + i, -vecs[i])
    writer.conn.close()
    again = _opened(tmp_path / "index.db")
    assert not isinstance(again._codes, hnsw.Graph) and again._build is not None  # codes now, a new graph coming
    _with_graph(again)
    assert again.knn(-vecs[19], 1)[0][0] == N + 20
    again.conn.close()
