"""Chunk vectors: a sqlite-vec ``vec0`` table plus a float16 copy, and exact-quality search at any size.

Vectors are L2-normalised before they are stored, so cosine distance is the metric and a score is
``1 - distance``. The model that made them is recorded in ``meta``; vectors of two models never mix.

Tables, created when the embedding dimension is known (and dropped with the model):

- ``chunk_vectors`` (vec0, float32): the vectors themselves; exact KNN for small vaults.
- ``chunk_vector_halves``: the vector in float16, read by primary key (1 us a row; a vec0 point read costs
  70 us): re-ranking, context vectors for fusion, and the source of the in-memory codes below.
- ``chunk_vector_journal``: the chunk ids written or deleted, in order (the last ``JOURNAL_KEEP``), so that
  another connection's codes catch up with a save instead of loading every vector again (1.5 GB at 1,000,000).

A brute-force float scan costs about 1 ns per stored value, so beyond ``EXACT_MAX_VALUES`` the search runs
on codes held in memory, derived from the float16 copies when first needed (and kept in step with writes):

1. the Hamming distance between sign bits (96 bytes per 768-dimensional chunk) keeps ``CANDIDATE_SHARE``
   of the chunks (at least ``MIN_CANDIDATES``, at most ``MAX_CANDIDATES``);
2. those are scored on int8 codes (one byte per dimension, scaled per dimension) and the best
   ``RERANK`` kept;
3. those are re-ranked by cosine on their float16 copies.

Measured on the benchmark's vectors (bench/recall_bench.py, 100,000 x 768, 200 queries): recall@10 against
exact float32 search 0.997 at 2 % candidates, in 0.45 x the time of a numpy float32 scan of the same vectors.
Graph (usearch HNSW, M 16, ef 256: 0.94; again on 2026-11-27, rows scaled to int8 each on its own,
expansion_add 128, its best 100 re-ranked on float16: 100,000 x 768 0.876 / 0.895 / 0.947 at search width 64 /
128 / 256, and its build of 1,000,000 took over an hour on the 2 loaded cores) and inverted-file (faiss
IVF-SQ8, 1024 lists, 64 probed: 0.63) indexes stayed far below 0.99 on these vectors (64 intrinsic
dimensions), and an HNSW build ran at about 1,000 vectors/s on the 2 loaded cores; the sign bits lose nothing
that enough candidates cannot recover.
The sign-bit pass and the int8 scores are cut in blocks that the searching thread and core/search.py's
search worker claim as each is free (core/index/codes.py), so a search uses both cores when it has
them, and a hybrid search's keyword leg runs beside the pass first. An inverted file (k-means lists, 256 of
them over 100,000 x 768) was measured and not built: the lists probed held 0.59 of the exact top 10 at an
eighth of the rows (0.76 at a quarter), as the benchmark's neighbours lie in no cluster of their own; a
graph over the sign bits (usearch, M 16) needed 8.4 ms at 100,000 for 0.99, against the pass's 2-3 ms.
Memory: 0.9 GB at 1,000,000 x 768 (bits 96 MB, int8 768 MB), per connection that searches; the app's reader
loads them in the background when a vault opens (``warm``); searches meanwhile answer by keyword (``loading``).
"""

from __future__ import annotations

import json
import logging
import math
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

import numpy as np

from memory_curator.core import blas
from memory_curator.core.errors import DimensionMismatch, IndexBusy
from memory_curator.core.index.codes import HALVES, Codes, Scan
from memory_curator.core.index.db import Connection, OperationalError, connect
from memory_curator.core.index.halves import widened

log = logging.getLogger(__name__)

TABLE = "chunk_vectors"
BITS = "chunk_vector_bits"  # sign bits of an older layout: dropped, the bits are derived in memory now
JOURNAL = "chunk_vector_journal"
HALVES_COMPLETE = "vector_halves_complete"  # in meta: every stored vector has its float16 copy
JOURNAL_KEEP = 100_000  # entries kept: a connection further behind loads its codes again
JOURNAL_PRUNE_EVERY = 10_000

# Up to this many stored values (chunks x dimensions) the exact scan takes a few ms: keep it exact.
EXACT_MAX_VALUES = 4_000_000
# Stored vectors read to estimate the collection's mean direction (all of them in a vault this small).
MEAN_SAMPLE = 1024


class MemberVectors(NamedTuple):
    """Rows of memories' vectors in the order asked (float32; zeros where ``has`` is False)."""

    rows: np.ndarray
    has: np.ndarray


def normalized(vec: Sequence[float] | np.ndarray, dim: int) -> np.ndarray:
    arr = np.asarray(vec, dtype=np.float32).reshape(-1)
    if arr.shape[0] != dim:
        raise DimensionMismatch(
            f"The embedder returned vectors of {arr.shape[0]} dimensions, but this vault's index holds {dim}. "
            "Choose the vault's model again, or change the model (which re-embeds every memory)."
        )
    norm = float(np.linalg.norm(arr))
    return arr / norm if norm > 0 else arr


class _Warming:
    """The codes loaded on a thread of their own, through a connection of its own, in one read transaction:
    with the journal's last entry and the epoch they reflect, so that the connection that takes them catches
    up with what was written meanwhile."""

    def __init__(self, path: str, dim: int, hold: threading.Event | None = None):
        self._result: tuple[Codes, int, str | None] | None = None
        self._thread = threading.Thread(target=self._run, args=(path, dim, hold), name="vector-codes", daemon=True)
        self._thread.start()

    def _run(self, path: str, dim: int, hold: threading.Event | None) -> None:
        if hold is not None:
            hold.wait()
        try:
            conn = connect(path)
            try:
                conn.execute("BEGIN")
                seen = conn.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {JOURNAL}").fetchone()[0]
                row = conn.execute("SELECT value FROM meta WHERE key = 'vector_epoch'").fetchone()
                codes = Codes.load(conn, dim)
                conn.execute("COMMIT")
            finally:
                conn.close()
            self._result = (codes, seen, row[0] if row else None)
        except Exception:  # the search thread loads them itself then (and meets the error there, if it lasts)
            log.warning("Loading the vector codes in the background failed", exc_info=True)

    def done(self) -> bool:
        return not self._thread.is_alive()

    def result(self) -> tuple[Codes, int, str | None] | None:
        self._thread.join()
        return self._result


class VectorTable:
    def __init__(self, conn: Connection):
        self.conn = conn
        self._codes: Codes | None = None
        self._data_version: int | None = None
        self._inserted: dict[int, np.ndarray] = {}
        self._deleted: set[int] = set()
        self._writes_seen = 0  # the stored write counter when the in-memory codes were last in step
        self._own_writes = 0
        self._mean: tuple[int, np.ndarray | None] | None = None  # (stored write counter, mean)
        self._halves_ready = False  # vectors stored before the float16 table existed have their copies
        self._journal_ready = False
        self._journal_seen = 0  # the last journal entry the codes reflect
        self._epoch: str | None = None  # meta 'vector_epoch' when the codes were loaded (moves on create, clear)
        self._warming: _Warming | None = None

    @property
    def dim(self) -> int | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'embed_dim'").fetchone()
        return int(row[0]) if row else None

    @property
    def model(self) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'embed_model'").fetchone()
        return row[0] if row else None

    def exists(self) -> bool:
        return (
            self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (TABLE,)).fetchone() is not None
        )

    def warm(self, hold: threading.Event | None = None) -> None:
        """Load the codes on another thread now, when this vault searches on them (above ``EXACT_MAX_VALUES``),
        instead of in the first search (19-40 s at 1,000,000 x 768); searches meanwhile answer by keyword
        (core/embedding.py: VECTORS_LOADING; ``knn`` meanwhile is exact, 14 s at 1,000,000). For the
        connection that searches (the app's reader): every connection that searches holds its own codes.
        ``hold``: the load starts once it is set (a test's view of the time loading takes)."""
        dim = self.dim
        if self._codes is not None or self._warming is not None or dim is None or not self.exists():
            return
        path = getattr(self.conn, "path", ":memory:")
        # The highest chunk id bounds the count without reading every vector as COUNT(*) does.
        top = self.conn.execute(f"SELECT MAX(chunk_id) FROM {HALVES}").fetchone()[0] if self._has_halves() else None
        if path == ":memory:" or not top or top * dim <= EXACT_MAX_VALUES:
            return
        self._ensure_codes()  # the one-off float16 backfill writes: on this connection, first
        self._warming = _Warming(path, dim, hold)

    def loading(self) -> bool:
        """True while ``warm`` still loads the codes (searches would be exact, 14 s at 1,000,000 chunks)."""
        return not self._warmed()

    def _has_halves(self) -> bool:
        return self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (HALVES,)).fetchone() is not None

    def forget(self) -> None:
        """Drop what is cached in memory (after a rollback, or when another process changed the model)."""
        self._codes = None
        self._data_version = None
        self._journal_ready = False
        self._inserted.clear()
        self._deleted.clear()
        self._own_writes = 0
        self._mean = None

    def create(self, model: str, dim: int) -> None:
        self._drop_tables()
        self._create_vectors(dim)
        self._create_codes()
        self._new_epoch()
        self.conn.execute(f"INSERT OR REPLACE INTO meta (key, value) VALUES ('{HALVES_COMPLETE}', '1')")
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('embed_model', ?)", (model,))
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('embed_dim', ?)", (str(dim),))
        self.forget()

    def _create_vectors(self, dim: int) -> None:
        self.conn.execute(
            f"CREATE VIRTUAL TABLE {TABLE} USING vec0(chunk_id INTEGER PRIMARY KEY, "
            f"embedding float[{int(dim)}] distance_metric=cosine)"
        )

    def _create_codes(self) -> None:
        self.conn.execute(f"CREATE TABLE IF NOT EXISTS {HALVES} (chunk_id INTEGER PRIMARY KEY, half BLOB NOT NULL)")
        self._ensure_journal()

    def _ensure_journal(self) -> None:
        if not self._journal_ready:
            self.conn.execute(f"CREATE TABLE IF NOT EXISTS {JOURNAL} "
                              "(seq INTEGER PRIMARY KEY AUTOINCREMENT, chunk_id INTEGER NOT NULL)")
            self._journal_ready = True

    def _journal(self, chunk_ids: list[tuple[int]]) -> None:
        self._ensure_journal()
        self.conn.executemany(f"INSERT INTO {JOURNAL} (chunk_id) VALUES (?)", chunk_ids)
        seq = self.conn.execute("SELECT last_insert_rowid()").fetchone()[0]
        if seq // JOURNAL_PRUNE_EVERY != (seq - len(chunk_ids)) // JOURNAL_PRUNE_EVERY:
            self.conn.execute(f"DELETE FROM {JOURNAL} WHERE seq <= ?", (seq - JOURNAL_KEEP,))

    def _new_epoch(self) -> None:
        """Every other connection's codes are stale (a new model, or every vector deleted)."""
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES ('vector_epoch', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

    def _drop_tables(self) -> None:
        for name in (TABLE, BITS, HALVES, JOURNAL):
            self.conn.execute(f"DROP TABLE IF EXISTS {name}")

    def drop(self) -> None:
        self._drop_tables()
        self.conn.execute(f"DELETE FROM meta WHERE key IN ('embed_model', 'embed_dim', '{HALVES_COMPLETE}')")
        self.forget()

    def clear(self) -> None:
        if self.exists():
            dim = self.dim
            if dim is None:
                self.conn.execute(f"DELETE FROM {TABLE}")
            else:  # vec0 deletes row by row: 1,000,000 vectors took more than 8 minutes before a rebuild's first file
                self.conn.execute(f"DROP TABLE {TABLE}")
                self._create_vectors(dim)
            self.conn.execute(f"DELETE FROM {HALVES}")
            self.conn.execute(f"DROP TABLE IF EXISTS {BITS}")
            # Emptied, not dropped: another connection (the background unit's) that made the journal keeps
            # writing to it after a rebuild ('no such table' disabled embedding), and its seq never goes back.
            self._ensure_journal()
            self.conn.execute(f"DELETE FROM {JOURNAL}")
            self._new_epoch()
            self._count_write()  # other processes' copies (codes, mean) are stale now
        self.forget()

    def insert(self, chunk_id: int, vec: Sequence[float] | np.ndarray) -> None:
        dim = self.dim
        if dim is None:
            raise DimensionMismatch("The vector table has not been created for a model yet.")
        arr = normalized(vec, dim)
        half = arr.astype(np.float16)
        self.conn.execute(f"INSERT INTO {TABLE} (chunk_id, embedding) VALUES (?, ?)", (chunk_id, arr.tobytes()))
        self.conn.execute(f"INSERT OR REPLACE INTO {HALVES} (chunk_id, half) VALUES (?, ?)", (chunk_id, half.tobytes()))
        self._journal([(chunk_id,)])
        if self._codes is not None:  # without codes in memory there is nothing to keep in step: the next
            # search loads them from the table (a backfill of 1,000,000 vectors held 1.7 GB here)
            self._deleted.discard(chunk_id)
            self._inserted[chunk_id] = half  # the codes are made from the float16 copy, as on loading
        self._count_write()

    def delete(self, chunk_ids: Iterable[int]) -> None:
        if not self.exists():
            return
        rows = [(c,) for c in chunk_ids]
        for name in (TABLE, HALVES):
            self.conn.executemany(f"DELETE FROM {name} WHERE chunk_id = ?", rows)
        if rows:
            self._journal(rows)
        if self._codes is not None:
            for (c,) in rows:
                self._inserted.pop(c, None)
                self._deleted.add(c)
        if rows:
            self._count_write()

    def _count_write(self) -> None:
        # Other processes compare this counter with their own tally to see whether their in-memory copy is
        # stale (row counts alone miss a deleted chunk id being re-used).
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES ('vector_writes', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )
        self._own_writes += 1

    def _stored_writes(self) -> int:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'vector_writes'").fetchone()
        return int(row[0]) if row else 0

    def knn(self, query: Sequence[float] | np.ndarray, k: int, *, exact: bool | None = None) -> list[tuple[int, float]]:
        """The ``k`` nearest chunks as (chunk_id, cosine distance), nearest first. An exact scan for small
        vaults; for large ones the in-memory codes find candidates that float16 copies re-rank (recall@10
        against exact about 0.997, see the module's docstring); ``exact`` forces either."""
        scan, finish = self.knn_split(query, k, exact=exact)
        with blas.one_thread():
            return finish(scan())

    def knn_split(self, query: Sequence[float] | np.ndarray, k: int, *, exact: bool | None = None,
                  ) -> tuple[Scan, Callable[[np.ndarray | None], list[tuple[int, float]]]]:
        """``knn`` in two parts, ``finish(scan())``: ``scan`` touches no connection (faiss and numpy over the
        in-memory codes, which release the GIL), so it may run on another thread while this one reads the
        database (core/search.py runs a hybrid search's keyword leg beside it) and then helps
        (``scan.help()``); ``finish`` reads on this connection."""
        dim = self.dim
        if dim is None or not self.exists() or k <= 0:
            return Scan(), lambda _: []
        arr = normalized(query, dim)
        if exact is None:
            exact = self.count() * dim <= EXACT_MAX_VALUES or not self._warmed()
        if exact:
            return Scan(), lambda _: self._exact(arr, k)
        codes = self._code_index()
        return codes.scan(arr, k), (lambda cand: self._rerank(arr, cand, k))

    def _exact(self, arr: np.ndarray, k: int) -> list[tuple[int, float]]:
        rows = self.conn.execute(
            f"SELECT chunk_id, distance FROM {TABLE} WHERE embedding MATCH ? AND k = ? ORDER BY distance",
            (arr.tobytes(), int(k)),
        )
        # A vector stored with NaN in it (before they were refused) has no distance: it is left out, so one
        # row never breaks a search.
        return [(cid, d) for cid, d in rows if d is not None and math.isfinite(d)]

    def _rerank(self, arr: np.ndarray, cand: np.ndarray | None, k: int) -> list[tuple[int, float]]:
        """The candidates re-ranked by cosine on their float16 copies."""
        ids: list[int] = []
        halves: list[bytes] = []
        cand_list = [] if cand is None else cand.tolist()
        for i in range(0, len(cand_list), 30_000):
            part = cand_list[i : i + 30_000]
            marks = ",".join("?" * len(part))
            for cid, half in self.conn.execute(f"SELECT chunk_id, half FROM {HALVES} WHERE chunk_id IN ({marks})", part):
                ids.append(cid)
                halves.append(half)
        if not ids:
            return []
        mat = widened(np.frombuffer(b"".join(halves), dtype=np.float16).reshape(len(ids), -1))
        dist = 1.0 - mat @ arr
        top = np.argsort(dist, kind="stable")[:k]
        return [(ids[i], float(dist[i])) for i in top if np.isfinite(dist[i])]

    def _member_halves(self, wanted: list[int], dim: int) -> tuple[np.ndarray, np.ndarray]:
        """The float16 rows of every chunk of the memories ``wanted`` (ascending) and the memory of each row, by
        memory and each memory's chunks in order. One statement gives them all in one row (one SQLite step, the
        rows gathered in C), where a row per chunk cost a Python step each: memory_vectors 0.95 x per query at
        1,000,000 (hybrid 4.42 -> 4.17 ms p50). The re-rank's 100 rows read so were no faster (1.00 x at 1,000,000,
        1.02-1.04 x at 100,000)."""
        self._ensure_codes()
        # The subquery's order holds in the aggregate (SQLite keeps a FROM subquery's ORDER BY when the outer
        # query aggregates with group_concat), and the index gives it without a sort; ORDER BY inside the
        # aggregates sorted the rows twice (1.6 x the time of a row per chunk at 1,000,000). SQLite does not
        # promise that order, so memory_vectors depends on it only for its fast path, which checks it.
        owners, halves = self.conn.execute(
            "SELECT json_group_array(pk), CAST(group_concat(half, x'') AS BLOB) FROM (SELECT c.memory_pk AS pk, "
            f"h.half AS half FROM memory_chunks c JOIN {HALVES} h ON h.chunk_id = c.chunk_id "
            "WHERE c.memory_pk IN (SELECT value FROM json_each(?)) ORDER BY c.memory_pk, c.chunk_id)",
            (json.dumps(wanted),),
        ).fetchone()
        owner = np.asarray(json.loads(owners), dtype=np.int64)
        return owner, np.frombuffer(halves or b"", dtype=np.float16).reshape(len(owner), dim)

    def memory_vectors(self, memory_pks: Sequence[int], query: Sequence[float] | np.ndarray) -> MemberVectors:
        """Per memory, the stored vector of its chunk nearest to ``query`` (float16 precision, read by primary
        key: a vec0 point read costs 70 us, a plain row 1 us), as rows in ``memory_pks`` order for fusion to
        read without a lookup per memory. Memories without vectors keep a zero row and ``has`` False."""
        dim = self.dim
        if dim is None or not self.exists() or not memory_pks:
            return MemberVectors(np.zeros((len(memory_pks), dim or 0), dtype=np.float32), np.zeros(len(memory_pks), bool))
        q = normalized(query, dim)
        asked = np.fromiter(memory_pks, dtype=np.int64, count=len(memory_pks))
        by_pk = np.argsort(asked, kind="stable")
        wanted = np.unique(asked)
        owner, mat = self._member_halves(wanted.tolist(), dim)
        if not len(owner):
            return MemberVectors(np.zeros((len(asked), dim), dtype=np.float32), np.zeros(len(asked), dtype=bool))
        # A stored vector with NaN or inf in it (before they were refused) has no similarity to give: its
        # exponent bits all set (5x faster than np.isfinite on float16).
        finite = ((mat.view(np.uint16) & 0x7C00) != 0x7C00).all(axis=1)
        if len(owner) == len(wanted) == len(asked) and (owner[1:] > owner[:-1]).all() and finite.all():
            # The usual case: each member asked once, with one stored chunk (the rows are then exactly the pks
            # asked, ascending). The float16 rows are put in the order asked (half the bytes of float32 ones) and
            # widened at once (core/index/halves.py): no zeroed rows, no copy of the float32 rows.
            return MemberVectors(widened(mat[np.argsort(by_pk)]), np.ones(len(asked), dtype=bool))
        rows = np.zeros((len(asked), dim), dtype=np.float32)
        has = np.zeros(len(asked), dtype=bool)
        keep = np.flatnonzero(finite)
        owner = owner[keep]
        if len(owner) > 1 and len(np.unique(owner)) < len(owner):
            # a memory of several chunks: the one nearest the query (the first on ties). Found without relying
            # on the rows' order: SQLite does not promise group_concat's (_member_halves); only the usual
            # case above counts on it, and checks it.
            sims = (widened(mat) @ q)[keep]
            order = np.lexsort((keep, -sims, owner))
            keep, owner = keep[order], owner[order]
            first = np.r_[True, owner[1:] != owner[:-1]]
            keep, owner = keep[first], owner[first]
        # Each row's place in the list asked: a search on arrays, not a dict per memory.
        place = by_pk[np.searchsorted(asked, owner, sorter=by_pk)]
        rows[place] = widened(mat[keep])
        has[place] = True
        return MemberVectors(rows, has)

    def mean(self) -> np.ndarray | None:
        """The mean of the stored vectors (from up to ``MEAN_SAMPLE`` of them, spread over the chunk ids):
        the similarity a query has with a typical memory, which hybrid fusion measures semantic scores from.
        Cached until vectors are written."""
        dim = self.dim
        if dim is None or not self.exists():
            return None
        key = self._stored_writes()  # moves with this connection's writes and any other process's
        if self._mean is not None and self._mean[0] == key:
            return self._mean[1]
        self._ensure_codes()
        lo, hi, n = self.conn.execute(f"SELECT MIN(chunk_id), MAX(chunk_id), COUNT(*) FROM {HALVES}").fetchone()
        if not n:
            mean = None
        else:
            if n <= MEAN_SAMPLE:
                rows = self.conn.execute(f"SELECT half FROM {HALVES}").fetchall()
            else:  # the first stored id at each of evenly spaced points: a few hundred primary-key seeks
                points = np.unique(np.linspace(lo, hi, MEAN_SAMPLE).round().astype(np.int64)).tolist()
                rows = self.conn.execute(
                    f"SELECT DISTINCT (SELECT half FROM {HALVES} WHERE chunk_id >= p.value ORDER BY chunk_id LIMIT 1) "
                    "FROM json_each(?) p", (json.dumps(points),),
                ).fetchall()
            mat = np.frombuffer(b"".join(r[0] for r in rows if r[0] is not None), dtype=np.float16)
            rows_f = widened(mat.reshape(-1, dim))
            rows_f = rows_f[np.isfinite(rows_f).all(axis=1)]
            mean = rows_f.mean(axis=0) if len(rows_f) else None
        self._mean = (key, mean)
        return mean

    def _ensure_codes(self) -> None:
        if not self._halves_ready:
            self._create_codes()
            # Checking for vectors without their float16 copy reads every stored vector (5.2 s at 1,000,000,
            # in each connection's first search): once done, meta says so; tables made since never lack one.
            if self.conn.execute(f"SELECT 1 FROM meta WHERE key = '{HALVES_COMPLETE}'").fetchone() is None:
                self._backfill_codes()
                try:
                    self.conn.execute(f"INSERT OR REPLACE INTO meta (key, value) VALUES ('{HALVES_COMPLETE}', '1')")
                except (IndexBusy, OperationalError):
                    pass  # another process is writing: a later connection notes it
            self._halves_ready = True

    def _warmed(self) -> bool:
        """False while the codes are still loading on another thread; once loaded, they are taken over."""
        warming = self._warming
        if warming is None or self._codes is not None:
            return True
        if not warming.done():
            return False
        self._warming = None
        loaded = warming.result()
        if loaded is not None:
            codes, self._journal_seen, self._epoch = loaded
            caught = self._catch_up(codes) if self._journal_behind() else codes
            if caught is not None and self._epoch == self._stored_epoch():
                self._codes, self._data_version = caught, self.conn.execute("PRAGMA data_version").fetchone()[0]
                self._inserted, self._deleted = {}, set()
                self._writes_seen, self._own_writes = self._stored_writes(), 0
        return True

    def _journal_behind(self) -> bool:
        self._ensure_journal()
        return self.conn.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {JOURNAL}").fetchone()[0] > self._journal_seen

    def _code_index(self) -> Codes:
        """The in-memory codes, brought up to date with this connection's writes and other processes'."""
        version = self.conn.execute("PRAGMA data_version").fetchone()[0]
        index = self._codes
        if index is not None and version != self._data_version:
            # Another connection committed: if it wrote vectors, catch up from the journal.
            if self._stored_writes() != self._writes_seen + self._own_writes:
                index = self._catch_up(index)
        if index is None:
            self._ensure_codes()
            self._epoch = self._stored_epoch()
            self._journal_seen = self.conn.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {JOURNAL}").fetchone()[0]
            index = Codes.load(self.conn, self.dim or 0)  # what is written meanwhile is caught up again later
        elif self._inserted or self._deleted:
            index.apply(self._inserted, self._deleted)
        self._inserted, self._deleted = {}, set()
        self._writes_seen, self._own_writes = self._stored_writes(), 0
        self._codes = index
        self._data_version = version
        return index

    def _stored_epoch(self) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'vector_epoch'").fetchone()
        return row[0] if row else None

    def _catch_up(self, index: Codes) -> Codes | None:
        """``index`` with the chunks written or deleted since ``_journal_seen`` (this connection's own ones
        included: each is read as it is now), or None when the journal cannot say (pruned past it, emptied,
        a new model, written by a version without it)."""
        self._ensure_journal()
        if self._stored_epoch() != self._epoch:
            return None
        first = self.conn.execute(f"SELECT MIN(seq) FROM {JOURNAL}").fetchone()[0]
        if first is None or first > self._journal_seen + 1:
            return None
        rows = self.conn.execute(f"SELECT seq, chunk_id FROM {JOURNAL} WHERE seq > ? ORDER BY seq",
                                 (self._journal_seen,)).fetchall()
        if not rows:  # vectors were written (the counter moved) but not journaled
            return None
        ids = list(dict.fromkeys(cid for _, cid in rows))
        inserted: dict[int, np.ndarray] = {}
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            for cid, half in self.conn.execute(
                f"SELECT chunk_id, half FROM {HALVES} WHERE chunk_id IN ({','.join('?' * len(part))})", part
            ):
                inserted[cid] = np.frombuffer(half, dtype=np.float16)
        index.apply(inserted, {cid for cid in ids if cid not in inserted})
        self._journal_seen = rows[-1][0]
        self._inserted, self._deleted = {}, set()  # read as they are now, with the rest
        return index

    def _backfill_codes(self) -> None:
        """Vectors stored before the float16 table existed get their copies (a one-off upgrade)."""
        missing = self.conn.execute(
            f"SELECT COUNT(*) FROM {TABLE} WHERE chunk_id NOT IN (SELECT chunk_id FROM {HALVES})"
        ).fetchone()[0]
        if not missing:
            return
        rows = self.conn.execute(
            f"SELECT chunk_id, embedding FROM {TABLE} WHERE chunk_id NOT IN (SELECT chunk_id FROM {HALVES})"
        ).fetchall()
        self.conn.execute("SAVEPOINT vector_codes")
        try:
            for cid, blob in rows:
                arr = np.frombuffer(blob, dtype=np.float32)
                self.conn.execute(f"INSERT OR REPLACE INTO {HALVES} VALUES (?, ?)", (cid, arr.astype(np.float16).tobytes()))
        except BaseException:
            self.conn.execute("ROLLBACK TO vector_codes")
            self.conn.execute("RELEASE vector_codes")
            raise
        self.conn.execute("RELEASE vector_codes")

    def count(self) -> int:
        """Stored vectors. With the codes in memory, from them (brought in step first: another process's
        writes of other rows leave them as they are); counting the table reads every vector (1-2 s at
        1,000,000), which a search did twice after any other connection's commit."""
        if not self.exists():
            return 0
        if self._warmed() and self._codes is not None:  # codes loaded in the background count too, once there
            return self._code_index().live
        return self.conn.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0]
