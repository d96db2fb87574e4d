"""The common words' postings kept as arrays beside the full-text index, so a keyword ranking reads them whole
instead of FTS5 scoring every matching row (~2 us a row: 22-35 ms a query at 1,000,000 memories). The scores are
bm25.py's, FTS5's own floats.

Derived from the index, in three tables (migration 14):
- ``fts_postings``: the base. For each word held by ``COMMON`` rows or more when it was built (a rebuild, the
  migration), once the index has ``MIN_ROWS`` rows: its rows (int64, ascending), their instances of it per text
  column (uint16 x 3) and their sizes D (uint32). Below ``MIN_ROWS`` there is no base (FTS5 ranks quickly).
- ``fts_postings_dirty``: rows written since the base was built (saved, updated, deleted): their base entries
  are stale.
- ``fts_postings_delta``: a written row's instances of the base's words, read with the index's own tokenizer.
A word's postings are then its base rows that are not dirty plus its delta; a word outside the base is read
from FTS5 itself (fts5vocab: ~1.5 us a row, and such words have fewer than ``COMMON``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from memory_curator.core.index import bm25
from memory_curator.core.index.db import Connection

COMMON = 100  # rows holding a word for it to be in the base (1,000 left the rare words 1.6 ms of a 4.4 ms ranking at 1M)
MIN_ROWS = 250_000  # as maxscore.MIN_ROWS: below, FTS5 ranks a query in a few ms

SCHEMA = """
CREATE TABLE IF NOT EXISTS fts_postings (term TEXT PRIMARY KEY, docs BLOB NOT NULL, counts BLOB NOT NULL,
                                         sizes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS fts_postings_dirty (doc INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS fts_postings_delta (term TEXT NOT NULL, doc INTEGER NOT NULL, title INTEGER NOT NULL,
    content INTEGER NOT NULL, keywords INTEGER NOT NULL, PRIMARY KEY (term, doc)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_fts_postings_delta_doc ON fts_postings_delta(doc);
"""
_COL = f"CASE col WHEN '{bm25.TEXT[0]}' THEN 0 WHEN '{bm25.TEXT[1]}' THEN 1 ELSE 2 END"
_IN_TEXT = f"col IN ({', '.join(repr(c) for c in bm25.TEXT)})"


def has_base(conn: Connection) -> bool:
    return conn.execute("SELECT 1 FROM fts_postings LIMIT 1").fetchone() is not None


def clear(conn: Connection) -> None:
    for table in ("fts_postings", "fts_postings_dirty", "fts_postings_delta"):
        conn.execute(f"DELETE FROM {table}")


def _counts(rows: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """(doc, column) instance rows -> the docs (ascending) and their instances per text column."""
    if not rows:
        return np.zeros(0, np.int64), np.zeros((0, 3), np.uint16)
    pairs = np.array(rows, dtype=np.int64)
    docs, at = np.unique(pairs[:, 0], return_inverse=True)
    counts = np.zeros((len(docs), 3), np.int64)
    np.add.at(counts, (at, pairs[:, 1]), 1)
    return docs, counts.astype(np.uint16)


def _all_sizes(conn: Connection) -> np.ndarray:
    """D of every row, indexed by rowid."""
    rows = conn.execute("SELECT id, sz FROM memories_fts_docsize").fetchall()
    out = np.zeros((max((r for r, _ in rows), default=0) + 1), np.uint32)
    for rid, sz in rows:
        out[rid] = bm25.size(sz)
    return out


def build(conn: Connection, *, common: int = COMMON, min_rows: int = MIN_ROWS) -> None:
    """The base from the index as it is now (a rebuild, the migration); call inside the write transaction."""
    clear(conn)
    if bm25.totals(conn)[0] < min_rows:
        return
    bm25.ready(conn)
    size = _all_sizes(conn)
    terms = [t for (t,) in conn.execute(f"SELECT term FROM temp.{bm25.WORD_ROWS} WHERE doc >= ?", (common,))]
    for term in terms:
        docs, counts = _counts(conn.execute(
            f"SELECT doc, {_COL} FROM temp.{bm25.WORDS} WHERE term = ? AND {_IN_TEXT}", (term,)).fetchall())
        if len(docs):
            conn.execute("INSERT INTO fts_postings (term, docs, counts, sizes) VALUES (?, ?, ?, ?)",
                         (term, docs.tobytes(), counts.tobytes(), size[docs].tobytes()))


def written(conn: Connection, rows: Sequence[tuple[int, str, str, str]]) -> None:
    """Rows (rowid, title, content, keywords as the index got them) just written to the full-text index."""
    if not rows or not has_base(conn):
        return
    bm25.ready(conn)
    _stale(conn, [r[0] for r in rows])
    probe = f"temp.{bm25.PROBE}"
    conn.executemany(f"INSERT INTO {probe} (rowid, {', '.join(bm25.TEXT)}) VALUES (?, ?, ?, ?)", rows)
    conn.execute(
        f"INSERT INTO fts_postings_delta (term, doc, title, content, keywords) "
        f"SELECT term, doc, sum(col = '{bm25.TEXT[0]}'), sum(col = '{bm25.TEXT[1]}'), sum(col = '{bm25.TEXT[2]}') "
        f"FROM temp.{bm25.PROBE_WORDS} w WHERE EXISTS (SELECT 1 FROM fts_postings p WHERE p.term = w.term) "
        "GROUP BY term, doc")  # IN (SELECT term ...) listed every word of the base first: 38 ms at 1,000,000
    conn.execute(f"DELETE FROM {probe}")


def deleted(conn: Connection, pks: Sequence[int]) -> None:
    """Rows removed from (or about to be written again to) the full-text index."""
    if pks and has_base(conn):
        _stale(conn, pks)


def _stale(conn: Connection, pks: Sequence[int]) -> None:
    """The base's entries of these rows no longer hold, nor does their delta."""
    conn.executemany("INSERT OR IGNORE INTO fts_postings_dirty (doc) VALUES (?)", [(pk,) for pk in pks])
    conn.executemany("DELETE FROM fts_postings_delta WHERE doc = ?", [(pk,) for pk in pks])


def _word(conn: Connection, token: str, dirty: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A word's postings now: (docs ascending, instances per text column, D)."""
    base = conn.execute("SELECT docs, counts, sizes FROM fts_postings WHERE term = ?", (token,)).fetchone()
    if base is None:  # not common when the base was built: FTS5 holds every row of it
        docs, counts = _counts(conn.execute(
            f"SELECT doc, {_COL} FROM temp.{bm25.WORDS} WHERE term = ? AND {_IN_TEXT}", (token,)).fetchall())
        size = bm25.sizes(conn, docs.tolist())
        return docs, counts, np.array([size[d] for d in docs.tolist()], np.uint32)
    docs = np.frombuffer(base[0], np.int64)
    counts = np.frombuffer(base[1], np.uint16).reshape(-1, 3)
    sizes = np.frombuffer(base[2], np.uint32)
    if len(dirty):
        keep = ~np.isin(docs, dirty)
        docs, counts, sizes = docs[keep], counts[keep], sizes[keep]
    extra = conn.execute("SELECT doc, title, content, keywords FROM fts_postings_delta WHERE term = ?",
                         (token,)).fetchall()
    if extra:
        size = bm25.sizes(conn, [r[0] for r in extra])
        docs = np.concatenate([docs, np.array([r[0] for r in extra], np.int64)])
        counts = np.concatenate([counts, np.array([r[1:] for r in extra], np.uint16)])
        sizes = np.concatenate([sizes, np.array([size[r[0]] for r in extra], np.uint32)])
        order = np.argsort(docs, kind="stable")
        docs, counts, sizes = docs[order], counts[order], sizes[order]
    return docs, counts, sizes


def ranked(conn: Connection, words: Sequence[str], weights: Sequence[float], depth: int,
           ) -> list[tuple[int, float]] | None:
    """``bm25.ranked`` (FTS5's ranking of the plain OR of ``words`` over the text columns, the same floats and
    order) from the postings: the ``depth`` best. None when there is no base or a word is not one token."""
    if depth < 1 or not has_base(conn):
        return None
    tokens = [bm25.stored_token(conn, w) for w in words]
    if any(t is None for t in tokens):
        return None
    if conn.in_transaction:
        return _ranked(conn, tokens, weights, depth)
    # One snapshot for the totals, the dirty rows, the base and the delta (FTS5 reads its own in one statement):
    # another connection's commit between two reads would mix two states of the index.
    conn.execute("BEGIN")
    try:
        return _ranked(conn, tokens, weights, depth)
    finally:
        conn.execute("COMMIT")


def _ranked(conn: Connection, tokens: Sequence[str], weights: Sequence[float], depth: int) -> list[tuple[int, float]]:
    rows, avgdl = bm25.totals(conn)
    dirty = np.array([d for (d,) in conn.execute("SELECT doc FROM fts_postings_dirty")], np.int64)
    lists = [_word(conn, t, dirty) for t in tokens]
    docs = np.sort(np.concatenate([d for d, _, _ in lists]))  # np.unique hashed: 6 ms at 40,000 rows
    docs = docs[np.r_[True, docs[1:] != docs[:-1]]] if len(docs) else docs
    if not len(docs):
        return []
    score = np.zeros(len(docs))
    w = [float(x) for x in weights[:3]]
    for held, counts, sizes in lists:
        if not len(held):
            continue
        idf = math.log((rows - len(held) + 0.5) / (len(held) + 0.5))
        if idf <= 0.0:
            idf = 1e-6
        f = np.zeros(len(held))
        for col in range(3):  # FTS5 adds a column weight per instance, in column order: so do we
            for k in range(int(counts[:, col].max(initial=0))):
                f = f + np.where(counts[:, col] > k, w[col], 0.0)
        part = idf * ((f * (bm25.K1 + 1.0)) / (f + bm25.K1 * (1 - bm25.B + bm25.B * sizes.astype(np.float64) / avgdl)))
        full = np.zeros(len(docs))
        full[np.searchsorted(docs, held)] = part
        score = score + full
    neg = -1.0 * score
    if depth < len(neg):  # every row tied with the depth-th stays in the sort
        cut = np.flatnonzero(neg <= np.partition(neg, depth - 1)[depth - 1])
    else:
        cut = np.arange(len(neg))
    top = cut[np.lexsort((docs[cut], neg[cut]))][:depth]
    return [(int(docs[i]), float(neg[i])) for i in top]
