"""The in-memory codes (core/index/codes.py) after any run of writes are the codes of the chunks alive: saves
append in place, a chunk id given again replaces its row, an id below the last merges, room grows."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_curator.core.index import codes

DIM = 128
ids_ = st.integers(1, 60)
batch = st.tuples(st.lists(ids_, max_size=6, unique=True), st.lists(ids_, max_size=4, unique=True))


def _vector(chunk_id: int, version: int) -> np.ndarray:
    rng = np.random.default_rng(chunk_id * 1000 + version)
    return rng.standard_normal(DIM).astype(np.float16)


@settings(max_examples=150, deadline=None)
@given(first=st.lists(ids_, max_size=30, unique=True), batches=st.lists(batch, max_size=8),
       spare=st.sampled_from([1, 3, 50]))
def test_the_codes_after_writes_are_those_of_the_chunks_alive(first, batches, spare):
    old = codes.SPARE_MIN, codes.SPARE_SHARE
    codes.SPARE_MIN, codes.SPARE_SHARE = spare, 0.0  # room runs out often
    try:
        first = sorted(first)
        alive = {i: _vector(i, 0) for i in first}
        x = np.array([alive[i] for i in first], np.float32).reshape(-1, DIM)
        scale = np.full(DIM, 40.0, np.float32)
        cap = codes._capacity(len(first))
        buf_ids, buf_words = np.zeros(cap, np.int64), np.zeros((1, cap, DIM // 8), np.uint8)
        buf_codes = np.zeros((cap, DIM), np.int8)
        buf_ids[: len(first)], buf_words[:, : len(first)] = first, codes.as_pieces(codes.sign_bits(x))
        buf_codes[: len(first)] = codes._quantize(x, scale)
        index = codes.Codes(buf_ids, buf_words, buf_codes, scale, len(first))
        for version, (written, gone) in enumerate(batches, start=1):
            inserted = {i: _vector(i, version) for i in written}
            deleted = set(gone) - set(written)
            index.apply(inserted, deleted)
            for i in deleted:
                alive.pop(i, None)
            alive.update(inserted)

            assert np.all(np.diff(index.ids) > 0)
            live = ~index.dead
            assert index.ids[live].tolist() == sorted(alive)
            assert index.live == len(alive)
            if alive:
                want = np.array([alive[i] for i in sorted(alive)], np.float32)
                assert np.array_equal(index.codes[live], codes._quantize(want, scale))
                assert np.array_equal(index.words[:, live], codes.as_pieces(codes.sign_bits(want)))
    finally:
        codes.SPARE_MIN, codes.SPARE_SHARE = old


def test_a_save_appends_in_place_without_copying_the_codes():
    n = 1000
    rng = np.random.default_rng(3)
    x = rng.standard_normal((n, DIM)).astype(np.float32)
    scale = np.full(DIM, 40.0, np.float32)
    cap = codes._capacity(n)
    buf = (np.zeros(cap, np.int64), np.zeros((1, cap, DIM // 8), np.uint8), np.zeros((cap, DIM), np.int8))
    buf[0][:n], buf[1][:, :n], buf[2][:n] = np.arange(1, n + 1), codes.as_pieces(codes.sign_bits(x)), codes._quantize(x, scale)
    index = codes.Codes(*buf, scale, n)
    before = index.codes
    index.apply({n + 1: x[0], n + 2: -x[1]}, {5})
    assert np.shares_memory(index.codes, before) and np.shares_memory(index.words, buf[1])
    assert index.ids[-2:].tolist() == [n + 1, n + 2] and index.dead[4] and index.live == n + 1
    got = index.nearest(-x[1] / np.linalg.norm(x[1]), 1)
    assert got[0] == n + 2


def test_the_int8_scale_comes_from_the_first_rows_not_from_the_first_block(tmp_path):
    """The codes load LOAD_BLOCK rows at a time (bounded memory) but take the scale from the first SCALE_ROWS rows
    (the first block's, when blocks held 20,000): a larger value past the first block still sets its dimension's
    scale, so the codes are those a load in one block makes."""
    from memory_curator.core.index import db

    assert codes.LOAD_BLOCK < codes.SCALE_ROWS
    conn = db.connect(tmp_path / "index.db")
    conn.execute(f"CREATE TABLE {codes.HALVES} (chunk_id INTEGER PRIMARY KEY, half BLOB NOT NULL)")
    n, dim = codes.LOAD_BLOCK + 500, 16
    x = np.random.default_rng(7).standard_normal((n, dim)).astype(np.float16)
    x[codes.LOAD_BLOCK + 10, 3] = 50.0  # past the first block
    conn.executemany(f"INSERT INTO {codes.HALVES} VALUES (?, ?)", [(i + 1, x[i].tobytes()) for i in range(n)])
    loaded = codes.Codes.load(conn, dim)
    wide = x.astype(np.float32)
    scale = (127.0 / np.maximum(np.abs(wide).max(axis=0) * 1.25, 1e-6)).astype(np.float32)
    assert np.array_equal(loaded.scale, scale)
    assert np.array_equal(loaded.codes, codes._quantize(wide, scale))
    assert np.array_equal(loaded.ids, np.arange(1, n + 1))
    conn.close()
