"""FTS5's ``bm25()`` computed here from each word's postings, float for float.

A step towards keyword ranking from postings read as arrays (notes/kw2.md: at 1,000,000 memories FTS5 spends
~2 us a matching row, p50 22-35 ms a query; the same scores from stored postings took 4.4 ms). Nothing ranks
with it yet: it pins down, under a property test against ``ORDER BY bm25``, what such a ranking must compute.

FTS5 (ext/fts5/fts5_aux.c) scores a row for the query's phrases p, in the query's order, as
``-1.0 * sum_p idf_p * ((f_p * (k1 + 1.0)) / (f_p + k1 * (1 - b + b * D / avgdl)))``, the sum starting at 0.0:
``f_p`` the sum of the column weights over p's instances in the row (in the phrase's columns, in instance
order), ``D`` the row's size in tokens over all columns (``%_docsize``), ``avgdl`` the total tokens over the
rows (the averages record) and ``idf_p = log((N - n_p + 0.5) / (n_p + 0.5))``, 1e-6 when not positive, with
``n_p`` the rows holding p in those columns. A phrase a row lacks adds exactly 0.0. Python floats are the same
IEEE doubles as C's, so computed in this order the scores are FTS5's own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from memory_curator.core.index.db import Connection

K1, B = 1.2, 0.75  # fts5_aux.c
COLUMNS = ("title", "content", "keywords", "stems")  # memories_fts, in order (migration m007)
TEXT = COLUMNS[:3]  # what text.tokens.TEXT_COLUMNS matches a query's words in
WORDS, WORD_ROWS = "memories_fts_words", "memories_fts_word_rows"  # temp, per connection (ready)
PROBE, PROBE_WORDS = "memories_fts_probe", "memories_fts_probe_words"


def _varints(blob: bytes) -> list[int]:
    """FTS5's (SQLite's) big-endian varints, 7 bits a byte, the 9th byte whole."""
    out, i = [], 0
    while i < len(blob):
        v = 0
        for k in range(9):
            x = blob[i]
            i += 1
            if k == 8:
                v = (v << 8) | x
                break
            v = (v << 7) | (x & 0x7F)
            if x < 0x80:
                break
        out.append(v)
    return out


def ready(conn: Connection) -> None:
    """The temp tables this reads through, made once per connection: the index's words (fts5vocab 'instance'
    and 'row') and a probe table of the text columns with the index's own tokenizer, which tells the words of
    a text as the index stores them."""
    if conn.execute("SELECT 1 FROM temp.sqlite_master WHERE name = ?", (WORDS,)).fetchone():
        return
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'memories_fts'").fetchone()[0]
    tokenize = re.search(r"tokenize\s*=\s*('(?:[^']|'')*')", sql)
    conn.execute(f"CREATE VIRTUAL TABLE temp.{WORDS} USING fts5vocab(main, memories_fts, instance)")
    conn.execute(f"CREATE VIRTUAL TABLE temp.{WORD_ROWS} USING fts5vocab(main, memories_fts, row)")
    conn.execute(f"CREATE VIRTUAL TABLE temp.{PROBE} USING fts5({', '.join(TEXT)}"
                 f"{', tokenize=' + tokenize.group(1) if tokenize else ''})")
    conn.execute(f"CREATE VIRTUAL TABLE temp.{PROBE_WORDS} USING fts5vocab(temp, {PROBE}, instance)")


def totals(conn: Connection) -> tuple[int, float]:
    """(N, avgdl) as bm25 reads them: the row count and the tokens of all columns over it."""
    blob = conn.execute("SELECT block FROM memories_fts_data WHERE id = 1").fetchone()
    if blob is None:
        return 0, 0.0
    values = _varints(blob[0])
    rows = values[0] if values else 0  # a new index's record is empty
    return rows, (float(sum(values[1:])) / float(rows) if rows else 0.0)


def stored_token(conn: Connection, word: str) -> str | None:
    """The token the index holds for a query word (its porter stem, lower case, without diacritics); None
    when the tokenizer makes it more or fewer than one token (then it is a phrase, or nothing)."""
    return stored_tokens(conn, [word])[0]


def stored_tokens(conn: Connection, words: Sequence[str]) -> list[str | None]:
    """``stored_token`` of each word, read in one insert and one select (a row per word)."""
    ready(conn)
    conn.execute(f"DELETE FROM temp.{PROBE}")
    conn.executemany(f"INSERT INTO temp.{PROBE} (rowid, {TEXT[0]}) VALUES (?, ?)", list(enumerate(words)))
    found: dict[int, list[str]] = {}
    for term, doc in conn.execute(f"SELECT term, doc FROM temp.{PROBE_WORDS}"):
        found.setdefault(doc, []).append(term)
    conn.execute(f"DELETE FROM temp.{PROBE}")
    return [found[i][0] if len(found.get(i, ())) == 1 else None for i in range(len(words))]


def postings(conn: Connection, token: str, weights: Sequence[float]) -> dict[int, float]:
    """rowid -> f: the sum of the column weights (per COLUMNS) over ``token``'s instances in the text
    columns, added in instance order as bm25 adds them."""
    ready(conn)
    weight = dict(zip(COLUMNS, (float(w) for w in weights), strict=False))
    out: dict[int, float] = {}
    for doc, col in conn.execute(
            f"SELECT doc, col FROM temp.{WORDS} WHERE term = ? AND col IN ({', '.join('?' * len(TEXT))})",
            (token, *TEXT)):
        out[doc] = out.get(doc, 0.0) + weight.get(col, 1.0)
    return out


def size(blob: bytes) -> int:
    """D from a ``%_docsize`` record: the sum of its varints (one byte each below 128 tokens a column)."""
    return sum(blob) if max(blob, default=0) < 0x80 else sum(_varints(blob))


def sizes(conn: Connection, rowids: Sequence[int]) -> dict[int, int]:
    """rowid -> D, the row's tokens over all columns."""
    out: dict[int, int] = {}
    for i in range(0, len(rowids), 500):
        part = list(rowids[i : i + 500])
        out.update((rid, size(sz)) for rid, sz in conn.execute(
            f"SELECT id, sz FROM memories_fts_docsize WHERE id IN ({','.join('?' * len(part))})", part))
    return out


def ranked(conn: Connection, words: Sequence[str], weights: Sequence[float], depth: int = -1,
           ) -> list[tuple[int, float]] | None:
    """The rows holding any of ``words`` (each one phrase, over the text columns) as (rowid, bm25), best
    first, ties by rowid: ``search_rows.fts_top`` of their plain OR, the same floats. None when a word is not
    one token."""
    tokens = stored_tokens(conn, words)
    if any(t is None for t in tokens):
        return None
    rows, avgdl = totals(conn)
    lists = [postings(conn, t, weights) for t in tokens]
    docs = sorted(set().union(*lists))
    size = sizes(conn, docs)
    score = dict.fromkeys(docs, 0.0)
    for held in lists:
        idf = math.log((rows - len(held) + 0.5) / (len(held) + 0.5)) if held else 0.0
        if idf <= 0.0:
            idf = 1e-6
        for doc, f in held.items():
            score[doc] += idf * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * float(size[doc]) / avgdl)))
    out = sorted(((doc, -1.0 * s) for doc, s in score.items()), key=lambda kv: (kv[1], kv[0]))
    return out if depth < 0 else out[:depth]
