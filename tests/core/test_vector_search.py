"""Large-vault vector search (sign bits, int8 codes, float16 re-rank) against exact search, on a real index."""

from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np
import pytest

from memory_curator.core import search
from memory_curator.core.index import codes, vectors
from memory_curator.core.index.db import connect
from memory_curator.core.index.filters import Filters


@pytest.fixture
def table(tmp_path):
    conn = connect(tmp_path / "v.db")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    t = vectors.VectorTable(conn)
    t.create("test:model", 64)
    yield t
    conn.close()


def _clustered(n: int, dim: int = 64, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((20, dim))
    x = centres[rng.integers(0, 20, n)] + 0.5 * rng.standard_normal((n, dim))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _fill(table, x, start=1):
    table.conn.execute("BEGIN")
    for i, v in enumerate(x, start=start):
        table.insert(i, v)
    table.conn.execute("COMMIT")


@contextmanager
def _elsewhere(tmp_path):
    """The same index written by another connection (another process, as far as SQLite can tell)."""
    conn = connect(tmp_path / "v.db")
    conn.execute("BEGIN")
    yield vectors.VectorTable(conn)
    conn.execute("COMMIT")
    conn.close()


def test_search_on_codes_finds_what_exact_search_finds(table, monkeypatch):
    """Recall@10 against exact search; the sign bits keep only 200 of 3,000 chunks for the int8 codes, so a
    broken stage (bits, codes, scale or re-rank) loses neighbours and fails the bar."""
    monkeypatch.setattr(codes, "MIN_CANDIDATES", 200)
    x = _clustered(3000)
    _fill(table, x)
    queries = x[::150] + 0.05
    overlap = []
    for q in queries:
        exact = [c for c, _ in table.knn(q, 10, exact=True)]
        approx = table.knn(q, 10, exact=False)
        assert [d for _, d in approx] == sorted(d for _, d in approx)
        overlap.append(len(set(exact) & {c for c, _ in approx}) / 10)
        # distances come from float16 copies: close to the exact float32 ones
        best = dict(table.knn(q, 1, exact=True))
        cid = next(iter(best))
        assert abs(dict(approx)[cid] - best[cid]) < 2e-3
    assert np.mean(overlap) >= 0.99


def test_in_memory_codes_follow_inserts_deletes_and_rollbacks(table):
    x = _clustered(500, seed=2)
    _fill(table, x)
    q = x[7]
    assert table.knn(q, 1, exact=False)[0][0] == 8
    table.delete([8])
    assert 8 not in [c for c, _ in table.knn(q, 5, exact=False)]
    table.conn.execute("BEGIN")
    table.insert(9999, q)
    assert table.knn(q, 1, exact=False)[0][0] == 9999
    table.conn.execute("ROLLBACK")
    table.forget()  # IndexStore.transaction does this on rollback
    assert 9999 not in [c for c, _ in table.knn(q, 5, exact=False)]
    assert table.count() == 499


def test_writes_before_any_search_keep_nothing_pending_and_are_found(table):
    """A backfill writes a whole vault's vectors on a connection that never searches (the embedding unit's):
    with no codes in memory nothing is kept for them (1,000,000 vectors held 1.7 GB), and the first search
    loads the codes from the table, writes and deletes included."""
    x = _clustered(500, seed=8)
    _fill(table, x)
    table.delete([8])
    table.insert(9999, -x[20])
    assert table._codes is None and not table._inserted and not table._deleted
    assert table.knn(-x[20], 1, exact=False)[0][0] == 9999
    assert 8 not in [c for c, _ in table.knn(x[7], 5, exact=False)]
    table.insert(10_000, -x[30])  # codes in memory now: they follow the write
    assert table.knn(-x[30], 1, exact=False)[0][0] == 10_000
    assert table.count() == 501


def test_another_connection_writing_is_seen(table, tmp_path):
    x = _clustered(300, seed=3)
    _fill(table, x)
    assert table.knn(x[0], 1, exact=False)[0][0] == 1
    with _elsewhere(tmp_path) as other:
        other.insert(5000, -x[0])
        other.delete([1])
    assert table.knn(-x[0], 1, exact=False)[0][0] == 5000
    assert 1 not in [c for c, _ in table.knn(x[0], 5, exact=False)]


def test_the_count_comes_from_the_codes_after_other_connections_write(table, tmp_path):
    """Counting the table reads every stored vector: with the codes in memory the count comes from them, kept
    in step with another connection's writes, whether they touch vectors or not."""
    x = _clustered(300, seed=9)
    _fill(table, x)
    table.knn(x[0], 1, exact=False)  # the codes are in memory now
    with _elsewhere(tmp_path) as other:
        other.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('other', 'row')")
    statements: list[str] = []
    table.conn.set_trace_callback(statements.append)
    assert table.count() == 300
    with _elsewhere(tmp_path) as other:
        other.insert(7000, -x[0])
        other.delete([1, 2])
    assert table.count() == 299
    table.conn.set_trace_callback(None)
    assert not [s for s in statements if f"COUNT(*) FROM {vectors.TABLE}" in s]


def _loads(table) -> list[str]:
    """The statements of ``table``'s connection that read every stored vector (loading the codes)."""
    statements: list[str] = []
    table.conn.set_trace_callback(statements.append)
    return statements


def test_codes_catch_up_with_another_connections_writes_without_loading_again(table, tmp_path):
    """A save in the app is embedded on another connection: the searching one reads what that wrote from the
    journal, not every stored vector again (1.5 GB at 1,000,000)."""
    x = _clustered(400, seed=10)
    _fill(table, x)
    assert table.knn(x[5], 1, exact=False)[0][0] == 6
    statements = _loads(table)
    with _elsewhere(tmp_path) as other:
        other.insert(9000, -x[5])
        other.delete([6])
        other.delete([400])
        other.insert(400, -x[9])  # a re-used chunk id
    assert table.knn(-x[5], 1, exact=False)[0][0] == 9000
    assert 6 not in [c for c, _ in table.knn(x[5], 5, exact=False)]
    assert table.knn(-x[9], 1, exact=False)[0][0] == 400
    assert table.count() == 400
    assert not [s for s in statements if f"FROM {vectors.HALVES} ORDER BY" in s]


def test_a_connection_behind_the_journal_or_after_a_clear_loads_again(table, tmp_path, monkeypatch):
    monkeypatch.setattr(vectors, "JOURNAL_KEEP", 20)
    monkeypatch.setattr(vectors, "JOURNAL_PRUNE_EVERY", 10)
    x = _clustered(200, seed=11)
    _fill(table, x)
    table.knn(x[0], 1, exact=False)
    with _elsewhere(tmp_path) as other:  # more writes than the journal keeps
        for i in range(50):
            other.insert(5000 + i, -x[i])
    statements = _loads(table)
    assert table.knn(-x[3], 1, exact=False)[0][0] == 5003
    assert [s for s in statements if f"FROM {vectors.HALVES} ORDER BY" in s]  # loaded again
    assert table.count() == 250
    with _elsewhere(tmp_path) as other:
        other.clear()
        other.insert(1, x[0])
    assert table.count() == 1
    assert [c for c, _ in table.knn(x[7], 5, exact=False)] == [1]


def test_a_connection_keeps_writing_after_another_cleared_the_vectors(table, tmp_path):
    """A rebuild on the service's connection clears the vectors while the background unit's connection has
    written some: its next write must land (the journal was dropped under it: 'no such table', embedding off)."""
    x = _clustered(20, seed=5)
    _fill(table, x[:10])
    with _elsewhere(tmp_path) as other:
        other.clear()
    _fill(table, x[10:], start=11)
    assert table.count() == 10
    assert table.knn(x[12], 1, exact=False)[0][0] == 13


def test_vectors_stored_before_the_codes_existed_are_backfilled(table):
    x = _clustered(200, seed=4)
    _fill(table, x)
    table.conn.execute(f"DROP TABLE {vectors.HALVES}")
    table.conn.execute("DELETE FROM meta WHERE key = ?", (vectors.HALVES_COMPLETE,))  # as an older index has it
    table.forget()
    assert table.knn(x[42], 1, exact=False)[0][0] == 43
    # Noted once: a later connection does not read every vector again to look for missing copies.
    other = vectors.VectorTable(table.conn)
    statements = _loads(other)
    assert other.knn(x[42], 1, exact=False)[0][0] == 43
    assert not [s for s in statements if "NOT IN" in s]


def test_large_vaults_go_approximate(table, monkeypatch):
    x = _clustered(200, seed=5)
    _fill(table, x)
    monkeypatch.setattr(vectors, "EXACT_MAX_VALUES", 100)
    table.forget()
    assert table.knn(x[3], 1)[0][0] == 4
    assert table._codes is not None  # the in-memory codes answered


def test_a_reused_chunk_id_written_elsewhere_is_seen(table, tmp_path):
    x = _clustered(300, seed=6)
    _fill(table, x)
    assert table.knn(x[299], 1, exact=False)[0][0] == 300
    with _elsewhere(tmp_path) as other:
        other.delete([300])
        other.insert(300, -x[299])  # SQLite re-uses the highest rowid once it is deleted
    assert table.knn(-x[299], 1, exact=False)[0][0] == 300
    assert 300 not in [c for c, _ in table.knn(x[299], 3, exact=False)]


def test_the_mean_vector_is_the_collections_and_follows_writes(table, tmp_path, monkeypatch):
    # Like a model's embeddings, the vectors share a common direction (the mean) plus their own part.
    rng = np.random.default_rng(7)
    x = rng.standard_normal(64) + 0.6 * rng.standard_normal((300, 64))
    x = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
    _fill(table, x)
    assert np.allclose(table.mean(), x.mean(axis=0), atol=1e-3)  # few enough to read them all
    monkeypatch.setattr(vectors, "MEAN_SAMPLE", 64)  # now a sample spread over the chunk ids
    table.forget()
    sampled, true = table.mean(), x.mean(axis=0)
    assert np.abs(x @ sampled - x @ true).max() < 0.02  # what fusion uses it for: a query's typical similarity
    with _elsewhere(tmp_path) as other:
        for i in range(1, 301):
            other.delete([i])
        other.insert(1000, x[0])
    assert np.allclose(table.mean(), x[0], atol=1e-3)  # another process's writes are seen


def _two_memories_with_chunks(svc):
    """Memory a with two chunks (e0, e1), memory b with one (e2): their pks and the unit vectors."""
    a, b = svc.save("first memory"), svc.save("second memory")
    e = np.eye(4, dtype=np.float32)
    with svc.store.transaction():
        svc.store.vectors.create("test:model", 4)
        svc.store.set_chunks(svc.store.pk_of(a.id), [(0, 0, 3, "x"), (1, 3, 6, "y")], [e[0], e[1]], "h")
        svc.store.set_chunks(svc.store.pk_of(b.id), [(0, 0, 3, "z")], [e[2]], "h")
    return svc.store.pk_of(a.id), svc.store.pk_of(b.id), e


def test_memory_vectors_are_each_memorys_chunk_nearest_the_query(svc):
    pa, pb, e = _two_memories_with_chunks(svc)
    got = svc.store.vectors.memory_vectors([pb, 999, pa], e[1] + 0.1 * e[0])  # rows in the order asked
    assert np.allclose(got.rows, [e[2], np.zeros(4), e[1]]) and got.has.tolist() == [True, False, True]
    tied = svc.store.vectors.memory_vectors([pa], e[3])  # both chunks as far: the first
    assert np.allclose(tied.rows[0], e[0])
    assert not svc.store.vectors.memory_vectors([999], e[0]).has.any()


def test_memory_vectors_of_one_chunk_each_are_placed_in_the_order_asked(svc):
    """The usual case (one chunk per memory, each asked once) takes a shorter way: the rows still land in the
    order asked; a memory asked twice, or one of two chunks, takes the general way (and the same rows)."""
    mems = [svc.save(f"memory {i}") for i in range(5)]
    e = np.eye(5, dtype=np.float32)
    with svc.store.transaction():
        svc.store.vectors.create("test:model", 5)
        for i, m in enumerate(mems):
            svc.store.set_chunks(svc.store.pk_of(m.id), [(0, 0, 3, "x")], [e[i]], "h")
    pks = [svc.store.pk_of(m.id) for m in mems]
    order = [3, 0, 4, 1, 2]
    got = svc.store.vectors.memory_vectors([pks[i] for i in order], e[0])
    assert got.has.all() and np.array_equal(got.rows, e[order])
    twice = svc.store.vectors.memory_vectors([pks[2], pks[2], pks[0]], e[0])
    assert np.array_equal(twice.rows[[0, 2]], e[[2, 0]]) and twice.has.tolist() == [True, False, True]


def test_memory_vectors_leave_out_chunks_that_are_not_finite(svc):
    """A vector stored with NaN or inf in it (before they were refused) gives no row: another chunk of the
    memory stands in, and a memory with no other has none."""
    pa, pb, e = _two_memories_with_chunks(svc)
    with svc.store.transaction():
        half = f"UPDATE {vectors.HALVES} SET half = ? WHERE chunk_id = ?"
        ids = [cid for (cid,) in svc.store.conn.execute("SELECT chunk_id FROM memory_chunks ORDER BY chunk_id")]
        svc.store.conn.execute(half, (np.array([np.nan, 1, 0, 0], np.float16).tobytes(), ids[1]))
        svc.store.conn.execute(half, (np.array([np.inf, 0, 1, 0], np.float16).tobytes(), ids[2]))
    got = svc.store.vectors.memory_vectors([pa, pb], e[1])
    assert got.has.tolist() == [True, False] and np.allclose(got.rows, [e[0], np.zeros(4)])


def test_at_most_max_candidates_are_scored(table, monkeypatch):
    """The cap binds: with every chunk a candidate by share but at most 12 scored, recall against exact falls
    (a cap that did nothing would keep it at 1); with 400 of 3,000 it holds the bar."""
    x = _clustered(3000, seed=11)
    _fill(table, x)
    queries = x[::100] + 0.05
    exact = [{c for c, _ in table.knn(q, 10, exact=True)} for q in queries]
    monkeypatch.setattr(codes, "CANDIDATE_SHARE", 1.0)

    def recall(cap: int) -> float:
        monkeypatch.setattr(codes, "MAX_CANDIDATES", cap)
        monkeypatch.setattr(codes, "MIN_CANDIDATES", min(cap, codes.MIN_CANDIDATES))
        return float(np.mean([len(e & {c for c, _ in table.knn(q, 10, exact=False)}) / 10
                              for e, q in zip(exact, queries, strict=True)]))

    assert recall(12) < 0.9
    assert recall(400) >= 0.99


def test_codes_warmed_in_the_background_are_taken_over_and_caught_up(table, tmp_path, monkeypatch):
    """warm() loads the codes on another thread and connection; the first search takes them over without
    loading them again, with what this connection and another one wrote since (a deleted chunk not returned)."""
    monkeypatch.setattr(vectors, "EXACT_MAX_VALUES", 1000)
    x = _clustered(600, seed=12)
    _fill(table, x)
    table.warm()
    assert table._warming is not None
    assert table._warming.result() is not None  # loaded (the test waits; a search meanwhile is exact)
    table.insert(9999, -x[3])
    with _elsewhere(tmp_path) as other:
        other.delete([8])
        other.insert(7777, -x[5])
    statements: list[str] = []
    table.conn.set_trace_callback(statements.append)
    assert table.count() == 601  # from the codes taken over: counting the table reads every vector
    assert table.knn(-x[3], 1)[0][0] == 9999
    assert table.knn(-x[5], 1)[0][0] == 7777
    assert 8 not in [c for c, _ in table.knn(x[7], 5)]
    table.conn.set_trace_callback(None)
    assert table._codes is not None and table._warming is None
    assert not [s for s in statements if f"FROM {vectors.HALVES} ORDER BY" in s]  # not loaded again
    assert not [s for s in statements if f"COUNT(*) FROM {vectors.TABLE}" in s]


def test_warm_leaves_small_vaults_exact(table):
    x = _clustered(100, seed=13)
    _fill(table, x)
    table.warm()
    assert table._warming is None and table._codes is None


@pytest.mark.parametrize("dim", [64, 256, 448, 768])
def test_the_sign_bit_scan_keeps_the_smallest_hamming_distances(dim, monkeypatch):
    """Pieces of 64, 32, 16 or 8 bytes (faiss's own kernels: 448 bits are 7 of 8), rows in blocks (the last
    one short): the rows kept are the nearest by the whole sign code, dead rows never."""
    monkeypatch.setattr(codes, "HAMMING_BLOCK", 1536)
    x = _clustered(5000, dim=dim, seed=dim)
    bits = codes.sign_bits(x)
    index = codes.Codes(np.arange(1, 5001), codes.as_pieces(bits), np.zeros((5000, dim), np.int8),
                        np.ones(dim, np.float32))
    assert index.words.shape[2] == {64: 8, 256: 32, 448: 8, 768: 32}[dim]
    index.dead[[3, 9]] = True
    for q in x[::700] + 0.05:
        qw = codes.sign_bits(q)[0]
        whole = np.bitwise_count(bits ^ qw).sum(axis=1)
        got = index._hamming_nearest(qw, 100)
        rest = np.setdiff1d(np.arange(5000), np.r_[got, 3, 9])
        assert len(got) == 100 and not {3, 9} & set(got.tolist())
        assert whole[got].max() <= whole[rest].min()


def test_the_sign_bit_pass_cuts_equal_blocks_and_skips_the_mask_when_no_row_is_dead(monkeypatch):
    """5,000 rows at most 1,536 a block: four blocks of 1,250 (no short last block for one thread to wait on),
    every distance the whole code's; with no dead row the pass gets no mask, with one it does."""
    monkeypatch.setattr(codes, "HAMMING_BLOCK", 1536)
    x = _clustered(5000, dim=256, seed=4)
    bits = codes.sign_bits(x)
    index = codes.Codes(np.arange(1, 5001), codes.as_pieces(bits), np.zeros((5000, 256), np.int8),
                        np.ones(256, np.float32))
    assert index.dead_or_none() is None
    qw = codes.sign_bits(x[17] + 0.05)[0]
    sign_pass = codes._SignPass(index.words, index.dead_or_none(), qw)
    assert sign_pass._size == 1250 and sign_pass._blocks._count == 4
    sign_pass.run()
    assert np.array_equal(sign_pass.dist, np.bitwise_count(bits ^ qw).sum(axis=1))
    index.dead[42] = True
    index._live = None
    assert index.dead_or_none() is index.dead
    assert 42 not in index._hamming_nearest(qw, 4999).tolist()  # the dead row is farther than all the rest


def test_the_sign_bit_pass_refuses_pieces_whose_rows_are_not_one_array():
    """faiss reads a piece's rows from one pointer: a strided view (pieces not laid out as as_pieces lays them)
    would be read as other bytes, so the pass refuses it rather than count wrong distances."""
    bits = codes.sign_bits(_clustered(100, dim=768, seed=2))
    strided = bits.reshape(100, 3, 32).transpose(1, 0, 2)  # the same values, rows 96 bytes apart
    with pytest.raises(ValueError):
        codes._SignPass(strided, None, bits[0])
    sign_pass = codes._SignPass(codes.as_pieces(bits), None, bits[0])
    sign_pass.run()
    assert np.array_equal(sign_pass.dist, np.bitwise_count(bits ^ bits[0]).sum(axis=1))


def test_a_scan_shared_by_two_threads_gives_what_one_thread_gives(table, monkeypatch):
    """The sign-bit pass and the int8 scores are cut in blocks that whichever thread is free claims: the
    candidates are the same whether the helper counts none, some or all of the blocks (dead rows included)."""
    monkeypatch.setattr(vectors, "EXACT_MAX_VALUES", 100)
    monkeypatch.setattr(codes, "HAMMING_BLOCK", 256)  # 12 blocks of sign bits
    monkeypatch.setattr(codes, "SCORE_BLOCK", 64)  # and 5 of scores (MIN_CANDIDATES 300)
    monkeypatch.setattr(codes, "MIN_CANDIDATES", 300)
    x = _clustered(3000, seed=5)
    _fill(table, x)
    table.delete(range(1, 3001, 7))
    table.knn(x[0], 10)
    index = table._codes
    for q in x[::500] + 0.05:
        q = q / np.linalg.norm(q)
        alone = codes.CodeScan(index, q, 10)()
        helped = codes.CodeScan(index, q, 10)
        helped.help()  # this thread counts and scores every block; the scan only ranks
        assert helped._scoring._claimed == 5
        assert np.array_equal(helped(), alone)
        assert not set(alone.tolist()) & set(range(1, 3001, 7))
        for _ in range(3):  # two threads racing for the blocks
            scan = codes.CodeScan(index, q, 10)
            other = threading.Thread(target=scan.help)
            other.start()
            got = scan()
            other.join()
            assert np.array_equal(got, alone)


def test_an_error_in_a_helped_block_is_raised_by_the_scan(table, monkeypatch):
    monkeypatch.setattr(vectors, "EXACT_MAX_VALUES", 100)
    monkeypatch.setattr(codes, "MIN_CANDIDATES", 100)
    x = _clustered(1000, seed=6)
    _fill(table, x)
    table.knn(x[0], 10)
    scan = codes.CodeScan(table._codes, x[1], 10)
    scan._codes = None  # a block scored on the helper fails
    scan._pass.run()
    try:
        scan.help()
    except Exception:
        raise AssertionError("the helper raised instead of the scan") from None
    with pytest.raises(AttributeError):
        scan()


def test_the_first_memories_passing_the_filters_come_from_the_hits_in_order(svc):
    """search._first_passing checks the first n hits, then the rest only when those fall short: a memory's
    second chunk does not count twice, a memory the filters hide is skipped, each keeps its nearest chunk."""
    pa, pb, e = _two_memories_with_chunks(svc)
    hidden = svc.save("third memory", category="preference")
    with svc.store.transaction():
        svc.store.set_chunks(svc.store.pk_of(hidden.id), [(0, 0, 3, "w")], [e[3]], "h")
    cid = dict(svc.store.conn.execute("SELECT content_snippet, chunk_id FROM memory_chunks"))
    hits = [(cid["y"], 0.1), (cid["x"], 0.2), (cid["w"], 0.3), (cid["z"], 0.4)]
    got = search._first_passing(svc.store, hits, Filters(category="context"), 2)
    assert list(got.items()) == [(pa, (0.1, "y")), (pb, (0.4, "z"))]
    assert list(search._first_passing(svc.store, hits, Filters(), 2)) == [pa, svc.store.pk_of(hidden.id), pb]



def test_the_int8_candidate_scores_are_the_float_query_s_up_to_its_rounding():
    """The candidates' scores are int8 x int8 dot products (numkong) with the query rounded to int8 in the codes'
    scale: each is the float query's score times 127 / its largest component, within the rounding's bound."""
    rng = np.random.default_rng(5)
    rows = rng.standard_normal((3000, 48)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    c = codes.Codes(np.arange(1, 3001, dtype=np.int64), codes.as_pieces(codes.sign_bits(rows)),
                        codes._quantize(rows, 127 / (np.abs(rows).max(axis=0) * 1.25)),
                        (127 / (np.abs(rows).max(axis=0) * 1.25)).astype(np.float32))
    q = rows[7] + 0.1 * rng.standard_normal(48).astype(np.float32)
    scan = codes.CodeScan(c, q, 10)
    scan()
    scaled = q / c.scale
    peak = np.abs(scaled).max()
    exact = c.codes[scan._pick].astype(np.float64) @ scaled * (127 / peak)
    bound = np.abs(c.codes[scan._pick]).sum(axis=1) * 0.5 + 1e-3
    assert (np.abs(scan._scores - exact) <= bound).all()
    assert 7 + 1 in codes.CodeScan(c, q, 10)().tolist()  # the row the query was made from is kept
    assert not codes._query_int8(np.zeros(48, np.float32)).any()
