"""The common words' postings kept as arrays beside the full-text index, so a keyword ranking reads them whole
instead of FTS5 scoring every matching row (~2 us a row: 22-35 ms a query at 1,000,000 memories). The scores are
bm25.py's, FTS5's own floats.

Derived from the index, in four tables (migrations 14 and 15) and three ``meta`` keys:
- ``fts_postings``: the base. For each word held by ``COMMON`` rows or more when it was built: its rows (int64,
  ascending), their instances of it per text column (uint16 x 3) and their sizes D (uint32).
- ``fts_postings_terms``: each base word's ``seq``: the entry holds every row as it was after the write
  numbered ``seq``.
- ``fts_postings_dirty``: rows written since tracking began (saved, updated, deleted), each with the number of
  its last write (``meta`` SEQ counts them). A word's base entries of rows written after its ``seq`` are stale.
- ``fts_postings_delta``: a written row's instances of each of its words, read with the index's own tokenizer.
A word's postings are its base rows not written after its ``seq``, plus the delta of those that were; a word
outside the base is read from FTS5 itself (fts5vocab: ~1.5 us a row, and such words have fewer than
``COMMON``). Writes are tracked (SEQ set) from the start of a build on; the base answers queries once BUILT.

The base is built word by word (``candidates``, ``read_word``, ``put_word``: core/index/postings_unit.py does
it in the background, after a migration or a rebuild too; ``build`` does it at once), each word read in a read transaction of its own and
written in a short write transaction, so other processes keep writing meanwhile; a write that lands between
the read and the write is newer than the word's ``seq``, and its delta covers it. ``fold`` takes the rows written
since back into a word's entry and ``drop_folded`` forgets what every word holds, so searches stop paying for them.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memory_curator.core.index import bm25
from memory_curator.core.index.db import Connection

COMMON = 100  # rows holding a word for it to be in the base (1,000 left the rare words 1.6 ms of a 4.4 ms ranking at 1M)
# Below this many rows FTS5 ranks a query in a few ms. At 100,000 it was still 4 times the kept ranking (the
# bench's queries, alternating per query, load 7: p50 7.9 -> 2.1 ms, the keyword search 0.65 x), while a save
# paid ~0.9 ms more for its deltas (7.8 -> 8.7 ms at load 6); FTS5's cost grows with the rows a query matches.
MIN_ROWS = 50_000
FOLD_AT = 1_000  # written rows past which they are folded back (each query reads them: at 100,000 memories
# +3.6 ms a keyword query with 1,000 of them, +30 ms with 5,000, +83 ms with 20,000; load 5, tidy's notes)
SEQ, BUILT, EPOCH = "fts_postings_seq", "fts_postings_built", "fts_postings_epoch"  # meta keys

SCHEMA = """
CREATE TABLE IF NOT EXISTS fts_postings (term TEXT PRIMARY KEY, docs BLOB NOT NULL, counts BLOB NOT NULL,
                                         sizes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS fts_postings_dirty (doc INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS fts_postings_delta (term TEXT NOT NULL, doc INTEGER NOT NULL, title INTEGER NOT NULL,
    content INTEGER NOT NULL, keywords INTEGER NOT NULL, PRIMARY KEY (term, doc)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_fts_postings_delta_doc ON fts_postings_delta(doc);
"""
# Migration 15: a word's seq apart from its blobs (updating a row rewrites all of it), and each written row's seq.
SCHEMA_15 = """
CREATE TABLE IF NOT EXISTS fts_postings_terms (term TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_fts_postings_terms_seq ON fts_postings_terms(seq);
ALTER TABLE fts_postings_dirty ADD COLUMN seq INTEGER NOT NULL DEFAULT 1;
"""
_IN_TEXT = f"col IN ({', '.join(repr(c) for c in bm25.TEXT)})"
# A row's instance as one integer, doc * 4 + its text column: joined by SQLite and parsed by numpy, reading a
# word's 1.6 M instances takes 0.9 s where fetching them as rows took 2.9 s.
_CODED = f"group_concat(doc * 4 + (col = '{bm25.TEXT[1]}') + 2 * (col = '{bm25.TEXT[2]}'))"


def _meta(conn: Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def _seq(conn: Connection) -> int | None:
    """The number of the last tracked write; None while writes are not tracked (no base, none being built)."""
    value = _meta(conn, SEQ)
    return None if value is None else int(value)


def current_seq(conn: Connection) -> int:
    """The number of the last tracked write (0 before any)."""
    return _seq(conn) or 0


def epoch(conn: Connection) -> str | None:
    """The build the base belongs to (None when none began since the last clear)."""
    return _meta(conn, EPOCH)


def has_base(conn: Connection) -> bool:
    """The base is complete: queries read it."""
    return _meta(conn, BUILT) is not None


def clear(conn: Connection) -> None:
    for table in ("fts_postings", "fts_postings_terms", "fts_postings_dirty", "fts_postings_delta"):
        conn.execute(f"DELETE FROM {table}")
    conn.execute("DELETE FROM meta WHERE key IN (?, ?, ?)", (SEQ, BUILT, EPOCH))


def migrate_15(conn: Connection) -> None:
    """Migration 15 on a base built whole by migration 14 or a rebuild: every word's seq 0, the written rows 1."""
    built = conn.execute("SELECT 1 FROM fts_postings LIMIT 1").fetchone() is not None
    if built:
        conn.execute("INSERT OR IGNORE INTO fts_postings_terms (term, seq) SELECT term, 0 FROM fts_postings")
        for key, value in ((SEQ, "1"), (BUILT, "1"), (EPOCH, _new_epoch())):
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))


def _new_epoch() -> str:
    return os.urandom(8).hex()


def _counts(coded: str | None) -> tuple[np.ndarray, np.ndarray]:
    """``_CODED`` instances -> the docs (ascending) and their instances per text column."""
    if not coded:
        return np.zeros(0, np.int64), np.zeros((0, 3), np.uint16)
    inst = np.fromstring(coded, dtype=np.int64, sep=",")  # text mode, parsed in C: 0.26 x the str split's time
    inst.sort(kind="stable")
    doc = inst >> 2
    new = np.r_[True, doc[1:] != doc[:-1]]
    at = np.cumsum(new) - 1
    docs = doc[new]
    counts = np.bincount(at * 3 + (inst & 3), minlength=3 * len(docs)).reshape(-1, 3)
    return docs, counts.astype(np.uint16)


def _fts_word(conn: Connection, token: str) -> tuple[np.ndarray, np.ndarray]:
    """A word's docs and instances per text column, from FTS5 itself."""
    bm25.ready(conn)
    return _counts(conn.execute(f"SELECT {_CODED} FROM temp.{bm25.WORDS} WHERE term = ? AND {_IN_TEXT}",
                                (token,)).fetchone()[0])


def _all_sizes(conn: Connection) -> np.ndarray:
    """D of every row, indexed by rowid."""
    rows = conn.execute("SELECT id, sz FROM memories_fts_docsize").fetchall()
    out = np.zeros((max((r for r, _ in rows), default=0) + 1), np.uint32)
    for rid, sz in rows:
        out[rid] = bm25.size(sz)
    return out


# -- building ---------------------------------------------------------------------------------------------


def start(conn: Connection) -> str:
    """Track writes from now on (a build begins); call in a write transaction. Returns the epoch: a build's
    words are written only while it holds (``clear``, a rebuild, ends it)."""
    if _seq(conn) is None:
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '0')", (SEQ,))
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (EPOCH, _new_epoch()))
    return _meta(conn, EPOCH) or ""


def candidates(conn: Connection, common: int = COMMON) -> list[str]:
    """The words held by ``common`` rows or more that the base lacks (4 s at 1,000,000: read transaction)."""
    bm25.ready(conn)
    kept = {t for (t,) in conn.execute("SELECT term FROM fts_postings_terms")}
    return [t for (t,) in conn.execute(f"SELECT term FROM temp.{bm25.WORD_ROWS} WHERE doc >= ? ORDER BY term",
                                       (common,)) if t not in kept]


@dataclass
class Sizes:
    """Every row's D as of write ``seq`` (read once per build: 2.5 s at 1,000,000)."""

    seq: int
    of: np.ndarray

    @classmethod
    def read(cls, conn: Connection) -> Sizes:
        return cls(_seq(conn) or 0, _all_sizes(conn))

    def get(self, conn: Connection, docs: np.ndarray, seq: int) -> np.ndarray:
        """D of ``docs`` as of write ``seq`` (>= self.seq): rows written in between are read again."""
        out = self.of[np.minimum(docs, len(self.of) - 1)] if len(self.of) else np.zeros(len(docs), np.uint32)
        moved = {d for (d,) in conn.execute(
            "SELECT doc FROM fts_postings_dirty WHERE seq > ? AND seq <= ?", (self.seq, seq))}
        moved.update(docs[docs >= len(self.of)].tolist())
        if moved:
            at = np.flatnonzero(np.isin(docs, np.fromiter(moved, np.int64, len(moved))))
            fresh = bm25.sizes(conn, docs[at].tolist())
            out = out.copy()
            out[at] = [fresh.get(d, 0) for d in docs[at].tolist()]
        return out.astype(np.uint32)


@dataclass
class Word:
    term: str
    seq: int
    docs: np.ndarray
    counts: np.ndarray
    sizes: np.ndarray


def read_word(conn: Connection, term: str, sizes: Sizes) -> Word:
    """A word's postings as the index holds them now; call in a read transaction (or a write one)."""
    seq = _seq(conn) or 0
    docs, counts = _fts_word(conn, term)
    return Word(term, seq, docs, counts, sizes.get(conn, docs, seq))


def put_word(conn: Connection, word: Word, epoch: str) -> bool:
    """Add a word read by ``read_word`` to the base; call in a write transaction. False when the build it belongs
    to has ended (the base was cleared meanwhile) or the word is there already."""
    if _meta(conn, EPOCH) != epoch or conn.execute(
            "SELECT 1 FROM fts_postings_terms WHERE term = ?", (word.term,)).fetchone():
        return False
    conn.execute("INSERT OR REPLACE INTO fts_postings (term, docs, counts, sizes) VALUES (?, ?, ?, ?)",
                 (word.term, word.docs.tobytes(), word.counts.tobytes(), word.sizes.tobytes()))
    conn.execute("INSERT INTO fts_postings_terms (term, seq) VALUES (?, ?)", (word.term, word.seq))
    return True


def finish(conn: Connection, epoch: str) -> bool:
    """The build is complete: queries read the base from now on. In a write transaction."""
    if _meta(conn, EPOCH) != epoch:
        return False
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", (BUILT,))
    return True


def build(conn: Connection, *, common: int = COMMON, min_rows: int = MIN_ROWS) -> None:
    """The whole base from the index as it is now, at once; call inside the write transaction."""
    clear(conn)
    if bm25.totals(conn)[0] < min_rows:
        return
    epoch = start(conn)
    sizes = Sizes.read(conn)
    for term in candidates(conn, common):
        put_word(conn, read_word(conn, term, sizes), epoch)
    finish(conn, epoch)


def pending(conn: Connection, *, min_rows: int = MIN_ROWS, fold_at: int = FOLD_AT) -> str | None:
    """What the base needs now: "build", "fold" or None."""
    if not has_base(conn):
        return "build" if bm25.totals(conn)[0] >= min_rows else None
    return "fold" if written_count(conn, fold_at) >= fold_at else None


def written_count(conn: Connection, up_to: int) -> int:
    """How many rows were written since the base was built, counted up to ``up_to``."""
    return conn.execute("SELECT count(*) FROM (SELECT 1 FROM fts_postings_dirty LIMIT ?)", (up_to,)).fetchone()[0]


# -- writes -----------------------------------------------------------------------------------------------


def written(conn: Connection, rows: Sequence[tuple[int, str, str, str]]) -> None:
    """Rows (rowid, title, content, keywords as the index got them) just written to the full-text index."""
    if not rows:
        return
    seq = _stale(conn, [r[0] for r in rows])
    if seq is None:
        return
    bm25.ready(conn)
    probe = f"temp.{bm25.PROBE}"
    conn.executemany(f"INSERT INTO {probe} (rowid, {', '.join(bm25.TEXT)}) VALUES (?, ?, ?, ?)", rows)
    # Every word of the row, not only the base's: a word being built meanwhile is read as of an earlier write.
    conn.execute(
        f"INSERT INTO fts_postings_delta (term, doc, title, content, keywords) "
        f"SELECT term, doc, sum(col = '{bm25.TEXT[0]}'), sum(col = '{bm25.TEXT[1]}'), sum(col = '{bm25.TEXT[2]}') "
        f"FROM temp.{bm25.PROBE_WORDS} GROUP BY term, doc")
    conn.execute(f"DELETE FROM {probe}")


def deleted(conn: Connection, pks: Sequence[int]) -> None:
    """Rows removed from (or about to be written again to) the full-text index."""
    if pks:
        _stale(conn, pks)


def _stale(conn: Connection, pks: Sequence[int]) -> int | None:
    """The base's entries of these rows no longer hold, nor does their delta: they are written as write number
    ``seq`` (returned; None while writes are not tracked)."""
    seq = _seq(conn)
    if seq is None:
        return None
    seq += 1
    conn.execute("UPDATE meta SET value = ? WHERE key = ?", (str(seq), SEQ))
    conn.executemany("INSERT OR REPLACE INTO fts_postings_dirty (doc, seq) VALUES (?, ?)", [(pk, seq) for pk in pks])
    conn.executemany("DELETE FROM fts_postings_delta WHERE doc = ?", [(pk,) for pk in pks])
    return seq


# -- reading ----------------------------------------------------------------------------------------------


@dataclass
class Written:
    """The rows written since tracking began, ascending, with the number of each one's last write."""

    docs: np.ndarray
    seqs: np.ndarray

    @classmethod
    def read(cls, conn: Connection) -> Written:
        rows = conn.execute("SELECT doc, seq FROM fts_postings_dirty ORDER BY doc").fetchall()
        arr = np.array(rows, np.int64).reshape(-1, 2)
        return cls(arr[:, 0], arr[:, 1])

    def after(self, seq: int) -> np.ndarray:
        return self.docs[self.seqs > seq]


def _current(conn: Connection, term: str, seq: int, blobs: Sequence[bytes], newer: np.ndarray,
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """A base word's postings now: its entry without the rows written after ``seq`` (``newer``), plus their
    delta. The last value says whether they differ from the entry."""
    docs = np.frombuffer(blobs[0], np.int64)
    counts = np.frombuffer(blobs[1], np.uint16).reshape(-1, 3)
    sizes = np.frombuffer(blobs[2], np.uint32)
    if not len(newer):
        return docs, counts, sizes, False
    at = np.searchsorted(docs, newer)
    at = at[(at < len(docs)) & (docs[np.minimum(at, len(docs) - 1)] == newer)] if len(docs) else at[:0]
    members = set(newer.tolist())
    extra = [r for r in conn.execute("SELECT doc, title, content, keywords FROM fts_postings_delta WHERE term = ?",
                                     (term,)) if r[0] in members]
    if not len(at) and not extra:
        return docs, counts, sizes, False
    if len(at):
        keep = np.ones(len(docs), bool)
        keep[at] = False
        docs, counts, sizes = docs[keep], counts[keep], sizes[keep]
    if extra:
        size = bm25.sizes(conn, [r[0] for r in extra])
        docs = np.concatenate([docs, np.array([r[0] for r in extra], np.int64)])
        counts = np.concatenate([counts, np.array([r[1:] for r in extra], np.uint16)])
        sizes = np.concatenate([sizes, np.array([size.get(r[0], 0) for r in extra], np.uint32)])
        order = np.argsort(docs, kind="stable")
        docs, counts, sizes = docs[order], counts[order], sizes[order]
    return docs, counts, sizes, True


_BASE = ("SELECT t.seq, p.docs, p.counts, p.sizes FROM fts_postings_terms t JOIN fts_postings p ON p.term = t.term "
         "WHERE t.term = ?")


def _word(conn: Connection, token: str, written_: Written) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A word's postings now: (docs ascending, instances per text column, D)."""
    base = conn.execute(_BASE, (token,)).fetchone()
    if base is None:  # not common when the base was built: FTS5 holds every row of it
        docs, counts = _fts_word(conn, token)
        size = bm25.sizes(conn, docs.tolist())
        return docs, counts, np.array([size[d] for d in docs.tolist()], np.uint32)
    docs, counts, sizes, _ = _current(conn, token, base[0], base[1:], written_.after(base[0]))
    return docs, counts, sizes


# -- folding ----------------------------------------------------------------------------------------------


def unfolded(conn: Connection, below: int) -> list[str]:
    """The base's words whose entries are older than write ``below``."""
    return [t for (t,) in conn.execute("SELECT term FROM fts_postings_terms WHERE seq < ? ORDER BY term", (below,))]


def fold(conn: Connection, terms: Sequence[str], until: float = math.inf, written_: Written | None = None,
         stamp: int | None = None) -> int:
    """Take the rows written up to write ``stamp`` into these words' entries, in order, until
    ``time.monotonic()`` passes ``until``; call in a write transaction. ``written_`` and ``stamp`` are read
    once for a whole pass (``Written.read`` and ``current_seq`` in one transaction; default: now): a row written
    again since is newer than the stamp, so queries read it from its delta whatever its entry holds. Returns how
    many words it went through (a word none of those rows held or holds gets only its new seq)."""
    if _seq(conn) is None:
        return len(terms)
    written_ = Written.read(conn) if written_ is None else written_
    stamp = current_seq(conn) if stamp is None else stamp
    done = 0
    for term in terms:
        if done and time.monotonic() > until:
            break
        done += 1
        base = conn.execute(_BASE, (term,)).fetchone()
        if base is None or base[0] >= stamp:
            continue
        docs, counts, sizes, changed = _current(conn, term, base[0], base[1:], written_.after(base[0]))
        if changed:
            conn.execute("UPDATE fts_postings SET docs = ?, counts = ?, sizes = ? WHERE term = ?",
                         (docs.tobytes(), counts.tobytes(), sizes.tobytes(), term))
        conn.execute("UPDATE fts_postings_terms SET seq = ? WHERE term = ?", (stamp, term))
    return done


def drop_folded(conn: Connection) -> int:
    """Forget the written rows every word's entry holds (and their delta); in a write transaction. Returns how
    many rows are still read on each query."""
    low = conn.execute("SELECT min(seq) FROM fts_postings_terms").fetchone()[0]
    if low is None:  # no word in the base: no entry holds any row
        low = current_seq(conn)
    conn.execute("DELETE FROM fts_postings_delta WHERE doc IN (SELECT doc FROM fts_postings_dirty WHERE seq <= ?)",
                 (low,))
    conn.execute("DELETE FROM fts_postings_dirty WHERE seq <= ?", (low,))
    return conn.execute("SELECT count(*) FROM fts_postings_dirty").fetchone()[0]


# -- ranking ----------------------------------------------------------------------------------------------


def ranked(conn: Connection, words: Sequence[str], weights: Sequence[float], depth: int,
           ) -> list[tuple[int, float]] | None:
    """``bm25.ranked`` (FTS5's ranking of the plain OR of ``words`` over the text columns, the same floats and
    order) from the postings: the ``depth`` best. None when the base is not complete or a word is not one token."""
    if depth < 1 or not has_base(conn):
        return None
    tokens = bm25.stored_tokens(conn, words)
    if any(t is None for t in tokens):
        return None
    if conn.in_transaction:
        return _ranked(conn, tokens, weights, depth)
    # One snapshot for the totals, the dirty rows, the base and the delta (FTS5 reads its own in one statement):
    # another connection's commit between two reads would mix two states of the index.
    conn.execute("BEGIN")
    try:
        if not has_base(conn):  # cleared (a rebuild) since the look above
            return None
        return _ranked(conn, tokens, weights, depth)
    finally:
        conn.execute("COMMIT")


def _weighted(counts: np.ndarray, w: Sequence[float]) -> np.ndarray:
    """f: FTS5 adds a column weight per instance, in column order, so ``w[0]`` ``counts[:, 0]`` times, then the
    next. When every weight is a multiple of 1/1024 below 2**20 (the search's 2.0, 1.0, 1.5) every partial sum
    is exact, so the products and their sum are the same floats, at a few passes over the rows instead of one per
    instance of the most repeated word."""
    if all(float(x * 1024).is_integer() and abs(x) < 2**20 for x in w) and int(counts.max(initial=0)) < 2**16:
        c = counts.astype(np.float64)
        return ((0.0 + c[:, 0] * w[0]) + c[:, 1] * w[1]) + c[:, 2] * w[2]
    f = np.zeros(len(counts))
    for col in range(3):
        for k in range(int(counts[:, col].max(initial=0))):
            f = f + np.where(counts[:, col] > k, w[col], 0.0)
    return f


def _union(helds: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The rows any word holds (ascending, once each), and where each word's rows sit among them (the words'
    rows one after another). One stable sort of the words' runs, each already ascending (np.unique hashed: 6 ms
    at 40,000 rows; a sort and a binary search per word: 1.3 x this at 1,000,000, 200 bench queries)."""
    held = np.concatenate(helds)
    order = np.argsort(held, kind="stable")
    ranked = held[order]
    first = np.empty(len(ranked), dtype=bool)
    first[:1] = True
    np.not_equal(ranked[1:], ranked[:-1], out=first[1:])
    at = np.empty(len(held), dtype=np.intp)
    at[order] = np.cumsum(first) - 1
    return ranked[first], at


def _ranked(conn: Connection, tokens: Sequence[str], weights: Sequence[float], depth: int) -> list[tuple[int, float]]:
    rows, avgdl = bm25.totals(conn)
    written_ = Written.read(conn)
    lists = [_word(conn, t, written_) for t in tokens]
    docs, at = _union([d for d, _, _ in lists])
    if not len(docs):
        return []
    score = np.zeros(len(docs))
    w = [float(x) for x in weights[:3]]
    start = 0
    for held, counts, sizes in lists:
        if not len(held):
            continue
        idf = math.log((rows - len(held) + 0.5) / (len(held) + 0.5))
        if idf <= 0.0:
            idf = 1e-6
        f = _weighted(counts, w)
        part = idf * ((f * (bm25.K1 + 1.0)) / (f + bm25.K1 * (1 - bm25.B + bm25.B * sizes.astype(np.float64) / avgdl)))
        score[at[start : start + len(held)]] += part  # a row without the word adds nothing (FTS5 adds 0.0)
        start += len(held)
    neg = -1.0 * score
    if depth < len(neg):  # every row tied with the depth-th stays in the sort
        cut = np.flatnonzero(neg <= np.partition(neg, depth - 1)[depth - 1])
    else:
        cut = np.arange(len(neg))
    top = cut[np.lexsort((docs[cut], neg[cut]))][:depth]
    return [(int(docs[i]), float(neg[i])) for i in top]
