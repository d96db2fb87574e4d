"""A large vault's vectors as codes held in memory, and the scan over them (core/index/vectors.py says when
and why: beyond ``EXACT_MAX_VALUES`` stored values a search runs here instead of sqlite-vec's exact scan).

1. the Hamming distance between sign bits (96 bytes per 768-dimensional chunk) keeps ``CANDIDATE_SHARE``
   of the chunks (at least ``MIN_CANDIDATES``, at most ``MAX_CANDIDATES``);
2. those are scored on int8 codes (one byte per dimension, scaled per dimension) and the best ``RERANK``
   kept, for VectorTable to re-rank on their float16 copies.

Both steps are cut in blocks that the searching thread and core/search.py's search worker claim as each is
free (``CodeScan``, ``_Blocks``), so a search uses both cores when it has them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numkong
import numpy as np

from memory_curator.core import heap
from memory_curator.core.index.db import Connection
from memory_curator.core.index.halves import widened

HALVES = "chunk_vector_halves"  # the float16 copies the codes are derived from (core/index/vectors.py)
# Share of the chunks that the sign bits keep as candidates, and at least this many; then this many of
# those, by their int8 codes, are re-ranked on float16. bench/recall_bench.py measures recall against exact.
CANDIDATE_SHARE = 0.02
MIN_CANDIDATES = 1000
# ... and at most this many: at 1,000,000 x 768 (the bench index's 200 queries, after the float16 re-rank, against
# exact search over the same rows) 5,000 candidates reach recall@10 0.998, 7,000 0.9985, 10,000 0.999; each
# candidate costs its int8 score and its place in the selection.
MAX_CANDIDATES = 5_000
RERANK = 100
# At most this many rows per step of the Hamming scan (the rows are cut in equal steps). Each call of a step
# hands the GIL back and forth with the other thread (the keyword leg, or the other half of the scan): 65,536
# rows made numpy's calls twice as long as 32,768 and a 1M search 0.94 x (see ``_SignPass``).
HAMMING_BLOCK = 65_536
# Code lengths (bytes) that faiss's Hamming distance has a kernel of its own for; any other length runs its
# generic loop, 1.3-1.7 x the time at 96 bytes (768 dimensions) against three 32-byte pieces.
PIECE_BYTES = (64, 32, 16, 8)
SCORE_BLOCK = 512  # candidates scored on their int8 codes at a time: their float copy (1.5 MB) fits in L2
# float16 rows read at a time when the codes are built: bounded memory (each block's rows, their bytes joined,
# float32 and two float32 temporaries of the int8 conversion: ~215 MB at 20,000 rows of 768, ~55 MB at 5,000)
LOAD_BLOCK = 5_000
# The int8 scale is taken from the first rows in chunk order (with room to spare; later values are clipped):
# this many, the first block's when blocks were of 20,000, so that the codes stay those of before.
SCALE_ROWS = 20_000
# Rows of room kept past the last one (a share of them, at least ``SPARE_MIN``): a save appends its chunks in
# place. Concatenating the arrays instead took 1.6-5 s and 1.7 GB more memory per save at 1,000,000 x 768.
# Untouched room is not resident memory (the allocator maps those pages lazily).
SPARE_SHARE = 1 / 8
SPARE_MIN = 4096


def sign_bits(arr: np.ndarray) -> np.ndarray:
    """One bit per dimension (1 = positive) per row, padded to whole 64-bit words: (rows, bytes) uint8."""
    arr = np.atleast_2d(arr)
    bits = np.packbits(arr > 0, axis=1)
    pad = (-bits.shape[1]) % 8
    if pad:
        bits = np.concatenate([bits, np.zeros((len(bits), pad), np.uint8)], axis=1)
    return np.ascontiguousarray(bits)


def as_pieces(bits: np.ndarray) -> np.ndarray:
    """``sign_bits`` rows cut in equal pieces of the largest of ``PIECE_BYTES`` that divides their length, piece
    by piece: (pieces, rows, piece bytes), contiguous (faiss reads each piece's rows as one array)."""
    size = next(b for b in PIECE_BYTES if bits.shape[1] % b == 0)
    return np.ascontiguousarray(bits.reshape(len(bits), bits.shape[1] // size, size).transpose(1, 0, 2))


def _pieces_buffer(dim: int, rows: int) -> np.ndarray:
    pieces = as_pieces(sign_bits(np.zeros(dim)))
    return np.empty((pieces.shape[0], rows, pieces.shape[2]), dtype=np.uint8)


def _capacity(n: int) -> int:
    return n + max(int(n * SPARE_SHARE), SPARE_MIN)


class Codes:
    """Every stored chunk's sign bits (cut in pieces, ``as_pieces``, for a fast Hamming scan) and int8 codes, by
    chunk id. The arrays are views of the first ``len(ids)`` rows of larger buffers, so chunks saved later append
    in place."""

    def __init__(self, ids: np.ndarray, words: np.ndarray, codes: np.ndarray, scale: np.ndarray,
                 count: int | None = None):
        """``ids``, ``words`` and ``codes`` may be buffers longer than ``count`` (default: all of them)."""
        self.scale = scale  # float32 per dimension: value = code / scale
        self._take(ids, words, codes, np.zeros(len(ids), dtype=bool), len(ids) if count is None else count)

    def _take(self, ids: np.ndarray, words: np.ndarray, codes: np.ndarray, dead: np.ndarray, n: int) -> None:
        self._buffers = ids, words, codes, dead
        self._n = n
        self.ids = ids[:n]  # int64, ascending
        self.words = words[:, :n]  # uint8, shape (pieces, n, piece bytes)
        self.codes = codes[:n]  # int8, shape (n, dim)
        self.dead = dead[:n]
        self._live: int | None = None

    @classmethod
    def load(cls, conn: Connection, dim: int) -> Codes:
        n = conn.execute(f"SELECT COUNT(*) FROM {HALVES}").fetchone()[0]
        cap = _capacity(n)
        ids = np.empty(cap, dtype=np.int64)
        codes = np.empty((cap, dim), dtype=np.int8)
        words = _pieces_buffer(dim, cap)
        scale = _first_rows_scale(conn, dim, min(n, SCALE_ROWS))
        cur = conn.execute(f"SELECT chunk_id, half FROM {HALVES} ORDER BY chunk_id")
        pos = 0
        while pos < n:
            rows = cur.fetchmany(LOAD_BLOCK)
            if not rows:
                break
            rows = rows[: n - pos]
            block = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float16).reshape(len(rows), dim)
            block = widened(block)
            end = pos + len(rows)
            ids[pos:end] = [r[0] for r in rows]
            codes[pos:end] = _quantize(block, scale)
            words[:, pos:end] = as_pieces(sign_bits(block))
            pos = end
        if scale is None:
            scale = np.full(dim, 127.0 * np.sqrt(dim) / 4, dtype=np.float32)
        if pos >= heap.BULK_ROWS:  # the blocks' rows and conversions, dropped
            heap.give_back()
        return cls(ids, words, codes, scale, pos)

    @property
    def live(self) -> int:
        if self._live is None:
            self._live = len(self.ids) - int(self.dead.sum())
        return self._live

    def dead_or_none(self) -> np.ndarray | None:
        """``dead``, or None when no row is (the scan then skips the mask)."""
        return self.dead if self.live < len(self.ids) else None

    def apply(self, inserted: dict[int, np.ndarray], deleted: set[int]) -> None:
        """Chunks written (their float16 or float32 vectors) and deleted since. A written id already held (a
        chunk id SQLite gave again) is replaced in its row; ids past the last are appended in place."""
        self._live = None
        if deleted:
            gone = np.fromiter(deleted, dtype=np.int64)
            pos = np.searchsorted(self.ids, gone)
            ok = pos < len(self.ids)
            pos, gone = pos[ok], gone[ok]
            self.dead[pos[self.ids[pos] == gone]] = True
        if not inserted:
            return
        new_ids = np.fromiter(inserted, dtype=np.int64, count=len(inserted))
        new = np.stack(list(inserted.values())).astype(np.float32)
        pos = np.searchsorted(self.ids, new_ids)
        held = pos < len(self.ids)
        held[held] = self.ids[pos[held]] == new_ids[held]
        if held.any():
            at = pos[held]
            self.codes[at] = _quantize(new[held], self.scale)
            self.words[:, at] = as_pieces(sign_bits(new[held]))
            self.dead[at] = False
        order = np.argsort(new_ids[~held], kind="stable")
        new_ids, new = new_ids[~held][order], new[~held][order]
        if not len(new_ids):
            return
        if len(self.ids) and new_ids[0] < self.ids[-1]:
            self._merge(new_ids, new)  # ids SQLite does not give on its own (max + 1): not on the save path
            return
        n, end = self._n, self._n + len(new_ids)
        if end > len(self._buffers[0]):
            self._grow(_capacity(end))
        ids, words, codes, dead = self._buffers
        ids[n:end], codes[n:end], words[:, n:end], dead[n:end] = new_ids, _quantize(new, self.scale), \
            as_pieces(sign_bits(new)), False
        self._take(ids, words, codes, dead, end)

    def _grow(self, cap: int) -> None:
        n = self._n
        ids, words, codes, dead = self._buffers
        more = (np.empty(cap, np.int64), np.empty((words.shape[0], cap, words.shape[2]), np.uint8),
                np.empty((cap, codes.shape[1]), np.int8), np.zeros(cap, bool))
        more[0][:n], more[1][:, :n], more[2][:n], more[3][:n] = self.ids, self.words, self.codes, self.dead
        self._take(*more, n)

    def _merge(self, new_ids: np.ndarray, new: np.ndarray) -> None:
        ids = np.concatenate([self.ids, new_ids])
        order = np.argsort(ids, kind="stable")
        words = np.ascontiguousarray(np.concatenate([self.words, as_pieces(sign_bits(new))], axis=1)[:, order])
        codes = np.concatenate([self.codes, _quantize(new, self.scale)])[order]
        dead = np.concatenate([self.dead, np.zeros(len(new_ids), dtype=bool)])[order]
        self._take(ids[order], words, codes, dead, len(ids))

    def nearest(self, query: np.ndarray, k: int) -> np.ndarray:
        """Chunk ids of the ``k`` best candidates for ``query``: sign bits keep a share, int8 codes rank it."""
        return self.scan(query, k)()

    def scan(self, query: np.ndarray, k: int) -> CodeScan:
        """``nearest`` as a Scan that two threads can share (VectorTable.knn_split)."""
        return CodeScan(self, query, k)

    def _hamming_nearest(self, query_bits: np.ndarray, m: int) -> np.ndarray:
        """Positions of about the ``m`` smallest Hamming distances among live rows, scanned on this thread."""
        sign_pass = _SignPass(self.words, self.dead_or_none(), query_bits)
        sign_pass.run()
        return sign_pass.nearest(m)


class Scan:
    """The first part of a vector search (see ``VectorTable.knn_split``): ``scan()`` gives the candidates.
    ``help()`` lends the calling thread to a scan that runs on another one. This one finds nothing (the exact
    search needs no scan)."""

    def __call__(self) -> np.ndarray | None:
        return None

    def help(self) -> None:
        return None


class _Blocks:
    """Blocks of one computation that the threads sharing it claim one at a time until none is left; ``wait``
    returns once every block is done, and raises, on the thread that waits, what a block raised on any."""

    def __init__(self, count: int):
        self._count, self._claimed, self._done = count, 0, 0
        self._lock = threading.Lock()
        self._all_done = threading.Event()
        self._error: BaseException | None = None
        if not count:
            self._all_done.set()

    def run(self, work: Callable[[int], object]) -> None:
        while True:
            with self._lock:
                if self._claimed >= self._count:
                    return
                block, self._claimed = self._claimed, self._claimed + 1
            try:
                work(block)
            except BaseException as e:
                self._error = e
            finally:
                with self._lock:
                    self._done += 1
                    if self._done == self._count:
                        self._all_done.set()

    def wait(self) -> None:
        self._all_done.wait()
        if self._error is not None:
            raise self._error


class CodeScan(Scan):
    """``Codes.nearest`` as a ``Scan`` that the threads running or helping it share: the sign-bit pass over
    every row in row blocks, then the kept rows' int8 scores in blocks of ``SCORE_BLOCK``; the thread that
    runs it waits for the last block and keeps the best. Whoever computes which block, the numbers and the
    result are the same."""

    def __init__(self, codes: Codes, query: np.ndarray, k: int):
        self._codes, self._k = codes, k
        self._q = _query_int8(query / codes.scale)
        self._m = max(min(MAX_CANDIDATES, max(MIN_CANDIDATES, int(np.ceil(CANDIDATE_SHARE * codes.live)))), k)
        self._pass = None if self._m >= codes.live else _SignPass(codes.words, codes.dead_or_none(), sign_bits(query)[0])
        self._lock = threading.Lock()
        self._pick = np.empty(0, dtype=np.int64)
        self._scores = np.empty(0, dtype=np.float32)
        self._scoring: _Blocks | None = None
        self._error: BaseException | None = None

    def help(self) -> None:
        self._work()

    def __call__(self) -> np.ndarray:
        self._work()
        assert self._scoring is not None
        self._scoring.wait()
        if self._error is not None:
            raise self._error
        codes, pick = self._codes, self._pick
        r = max(RERANK, self._k)
        if len(pick) > r:
            pick = pick[np.argpartition(-self._scores, r)[:r]]
        return codes.ids[pick] if len(codes.ids) else codes.ids

    def _work(self) -> None:
        if self._pass is not None:
            self._pass.run()
        with self._lock:  # the rows to score, chosen once (the other thread waits here meanwhile)
            if self._scoring is None:
                try:
                    self._pick = (np.flatnonzero(~self._codes.dead) if self._pass is None
                                  else self._pass.nearest(self._m))
                    self._scores = np.empty(len(self._pick), dtype=np.float32)
                    self._scoring = _Blocks(-(-len(self._pick) // SCORE_BLOCK))
                except BaseException as e:  # raised by the thread that runs the scan
                    self._error, self._scoring = e, _Blocks(0)
        self._scoring.run(self._score)

    def _score(self, block: int) -> None:
        at = block * SCORE_BLOCK  # a block's gathered rows stay in L2
        part = self._pick[at : at + SCORE_BLOCK]
        # int8 x int8 dot products in SIMD (integer sums, exact): 0.47 x numpy's float copy and product
        # (10,000 random rows of 1,000,000 x 768, one thread, alternating, load 5.7: 4.11 -> 1.85 ms).
        self._scores[at : at + len(part)] = np.asarray(numkong.cdist(self._q, self._codes.codes[part], "dot")).reshape(-1)


def _query_int8(scaled: np.ndarray) -> np.ndarray:
    """The query in the codes' per-dimension scale, as one int8 row (largest component 127) for the int8 dot
    products: scores then rank the candidates as the float query does, up to its rounding."""
    peak = float(np.abs(scaled).max()) if len(scaled) else 0.0
    if not np.isfinite(peak) or peak <= 0:
        return np.zeros((1, len(scaled)), dtype=np.int8)
    return np.rint(scaled * (127.0 / peak)).astype(np.int8).reshape(1, -1)


class _SignPass:
    """The Hamming distance between the query's sign bits and every row's, in row blocks (``_Blocks``): two
    threads share one pass over the 96 MB of sign bits at 1,000,000 x 768, and the distances are the same
    whoever counts them. Each block is one faiss call per piece of the code (``as_pieces``), which holds no GIL
    while it counts, so the pass goes on while the other thread runs Python (a hybrid search's keyword leg):
    numpy's pass (36 calls per block) nearly stopped then, each of its calls waiting for the GIL back. A dead
    row counts as farther than any real distance. Each block also adds up its distances' histogram, from which
    ``nearest`` finds the cut-off (distances are small integers: faster than a partition)."""

    def __init__(self, words: np.ndarray, dead: np.ndarray | None, query_bits: np.ndarray):
        """``words``: ``Codes.words``; ``query_bits``: the query's ``sign_bits`` row; ``dead``: which rows are
        deleted, or None when none is."""
        # faiss is loaded by the first search that runs here, not with the engine: every command-line call and the
        # app's start paid its 35-45 ms and ~13 MB (with its own OpenBLAS) for vaults searched exactly.
        import faiss  # noqa: PLC0415

        if not all(piece.flags.c_contiguous for piece in words):
            raise ValueError("faiss reads each piece's rows as one contiguous array")
        self._hammings, self._ptr = faiss.hammings, faiss.swig_ptr
        self._words, self._dead = words, dead
        self._query = as_pieces(query_bits.reshape(1, -1))[:, 0]  # (pieces, piece bytes)
        n = words.shape[1]
        self._far = words.shape[0] * words.shape[2] * 8 + 1  # farther than any two codes
        self.dist = np.empty(n, dtype=np.uint16)
        blocks = -(-n // HAMMING_BLOCK)
        self._size = -(-n // blocks) if n else HAMMING_BLOCK  # equal blocks: neither thread waits long at the end
        self._blocks = _Blocks(blocks)
        self._hist = np.zeros((blocks, self._far + 1), dtype=np.int64)

    def run(self) -> None:
        """Count blocks until every block is claimed (by this thread or another)."""
        tmp = np.empty(min(len(self.dist), self._size), np.int32)
        self._blocks.run(lambda block: self._count(block, tmp))

    def _count(self, block: int, tmp: np.ndarray) -> None:
        # Row blocks, so the distances stay in the cache between the pieces' calls.
        start = block * self._size
        end = min(len(self.dist), start + self._size)
        part, t = self.dist[start:end], tmp[: end - start]
        for i, (piece, q) in enumerate(zip(self._words, self._query, strict=True)):
            rows = piece[start:end]
            self._hammings(self._ptr(q), self._ptr(rows), 1, len(rows), rows.shape[1], self._ptr(t))
            if i:
                np.add(part, t, out=part, casting="unsafe")
            else:
                np.copyto(part, t, casting="unsafe")
        if self._dead is not None:
            part[self._dead[start:end]] = self._far
        self._hist[block] = np.bincount(part, minlength=self._far + 1)

    def nearest(self, m: int) -> np.ndarray:
        """Positions of about the ``m`` smallest distances among live rows, once every block is counted.
        (A first stage over the first 4 of 12 words, keeping 4-16 x ``m`` rows for the whole code, lost recall
        at 1,000,000 x 768, 0.949-0.995 against 0.999, and saved no time: the selection and the gather cost
        what it skipped.)"""
        self._blocks.wait()
        cum = np.cumsum(self._hist.sum(axis=0)[: self._far])
        cut = min(int(np.searchsorted(cum, m)), self._far - 1)
        pick = np.flatnonzero(self.dist <= cut)
        if len(pick) > m:  # ties at the cut-off
            pick = pick[np.argpartition(self.dist[pick], m)[:m]]
        return pick


def _first_rows_scale(conn: Connection, dim: int, rows: int) -> np.ndarray | None:
    """Each dimension's int8 scale from the largest magnitude among the first ``rows`` float16 rows (None when
    there are none), read LOAD_BLOCK at a time. Taken on float16: the widening is exact, so is the maximum."""
    top: np.ndarray | None = None
    cur = conn.execute(f"SELECT half FROM {HALVES} ORDER BY chunk_id LIMIT ?", (rows,))
    while part := cur.fetchmany(LOAD_BLOCK):
        block = np.frombuffer(b"".join(r[0] for r in part), dtype=np.float16).reshape(len(part), dim)
        most = np.abs(block).max(axis=0)
        top = most if top is None else np.maximum(top, most)
    if top is None:
        return None
    return (127.0 / np.maximum(top.astype(np.float32) * 1.25, 1e-6)).astype(np.float32)


def _quantize(block: np.ndarray, scale: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(block * scale), -127, 127).astype(np.int8)
