"""Each memory's unreadable share (core/text/tokens.unreadable) kept with its row, and the background fill of
the rows an index made before migration 17 has.

Hybrid search with an English-only model lowers the semantic rank of a memory whose embedded text is mostly
CJK. It read that text for every fusion member (~330 rows at 1,000,000 memories, most of them pages no other
step reads: p50 2.7 / p95 6.8 ms of a hybrid search there) to find the few it concerns. The share is now
written with the row (core/index/rows.py), and a table holds the rows above 0 (``TABLE``), so a search reads
a few of its pages and no row at all (1,000,000 memories, old/new alternating, load 6.5-7.7: p50 5.26 -> 0.21 ms,
p95 11.0 -> 0.59 ms; the hybrid search 0.94 x per query; the same results).

Rows written before the column existed are NULL. ``KEY`` in meta is where the fill stands: a NULL row at or
below it was read and is 0 (only rows above 0 are written, so the fill rewrites no page of English text);
one above it is not yet known, and a search computes it from the text as before (results are the same
either way). Once the key is gone, searches read ``TABLE`` alone.

``TABLE`` holds the rows above 0 (pk, share), kept by triggers on every write (migration 19). It replaced a
partial index of the same rows (migration 17's ``INDEX``), which a fill had to make at its end: a CREATE INDEX
reading the whole table inside the write lock (0.5-1.2 s at 1,000,000 memories; another process's save waited
1.48 s once). The triggers fill the table as the fill writes the shares, so its last step is as short as the
others. A new index has the table and no key. A rebuild (every row written again) empties it with the rows
and leaves no key; its bulk load drops the triggers and fills the table from the rows at the end
(core/index/bulk.py), so other processes' hybrid searches meanwhile miss the shares of the rows it has loaded.

The fill runs on a thread of its own (a Kicked unit, kicked by the polls like the keyword postings' unit),
in write transactions of ``STEP_S`` with the lock left free as long after each. At 1,000,000 memories it
reads every row once (4.0-5.5 s of a core in 200 steps at load 5-10). Processes that fill at the same time
only repeat steps.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from memory_curator.core.index.db import Connection, connect
from memory_curator.core.kicked import IDLE, SteppedUnit
from memory_curator.core.text.tokens import EMBEDDED_CHARS, unreadable

KEY = "unreadable_known_to"  # in meta: the pk the fill has read up to; absent: every row's value is written
TABLE = "memories_unreadable"  # pk -> share of the rows above 0, complete once KEY is absent (migration 19)
INDEX = "idx_memories_unreadable"  # migration 17's partial index of those rows, until migration 19
_MAKE_INDEX = f"CREATE INDEX IF NOT EXISTS {INDEX} ON memories(pk, unreadable) WHERE unreadable > 0"
ROWS = "SELECT pk, unreadable FROM memories WHERE unreadable > 0"  # what TABLE holds, read from the rows
TRIGGERS = "memories_unreadable_"  # the prefix of its triggers' names (core/index/bulk.py drops them by it)
# Migration 19's table and its triggers. A memory deleted takes its row along (the foreign key); an update
# rewrites the row only when the share changed (an edit of English text fires a test, no write).
_TABLE = (
    f"""CREATE TABLE {TABLE} (
        pk INTEGER PRIMARY KEY REFERENCES memories(pk) ON DELETE CASCADE,
        share REAL NOT NULL
    )""",
    f"""CREATE TRIGGER {TRIGGERS}insert AFTER INSERT ON memories WHEN NEW.unreadable > 0 BEGIN
        INSERT OR REPLACE INTO {TABLE} (pk, share) VALUES (NEW.pk, NEW.unreadable);
    END""",
    f"""CREATE TRIGGER {TRIGGERS}update AFTER UPDATE OF unreadable ON memories
        WHEN OLD.unreadable IS NOT NEW.unreadable BEGIN
        DELETE FROM {TABLE} WHERE pk = OLD.pk;
        INSERT INTO {TABLE} (pk, share) SELECT NEW.pk, NEW.unreadable WHERE NEW.unreadable > 0;
    END""",
)
# The text the vectors come from (MemoryItem.embedded_source: an empty summary is none), read in SQL so a
# fill step or a search's fallback does not fetch whole contents.
_EMBEDDED = f"substr(coalesce(nullif(json_extract(meta_json, '$.summary'), ''), content), 1, {EMBEDDED_CHARS})"
PART = 2000  # rows read per statement of a fill step
STEP_S = 0.05  # a fill step's write transaction
RETRY_S = 60.0  # after a failure (a read-only vault, a full disk) the kicks wait this long
FILLING = "filling"  # the unit's state while it fills: done of total is its key of the last pk


def add_column(conn: Connection) -> None:
    """Migration 17: the column, and its index where there are no rows yet; with rows, a fill to do (the index
    made here read the whole table: 7.8 s at 1,000,000 memories, cold). Migration 19 replaced the index."""
    conn.execute("ALTER TABLE memories ADD COLUMN unreadable REAL")
    if conn.execute("SELECT 1 FROM memories LIMIT 1").fetchone() is None:
        conn.execute(_MAKE_INDEX)
    else:
        conn.execute("INSERT INTO meta (key, value) VALUES (?, '0')", (KEY,))


def add_table(conn: Connection) -> None:
    """Migration 19: ``TABLE`` and its triggers in place of migration 17's index. A filled index copies the
    index's rows (a few pages: only text the model cannot read); one whose fill is under way starts it again
    from the first row, and the fill copies the shares written since migration 17 as it reads them (finding
    them here would read the whole table: 7.8 s at 1,000,000 memories, cold)."""
    for statement in _TABLE:
        conn.execute(statement)
    if pending(conn):
        conn.execute("UPDATE meta SET value = '0' WHERE key = ?", (KEY,))
    else:  # read from the index, there once the fill is done (SQLite's plan: the index alone)
        conn.execute(f"INSERT INTO {TABLE} (pk, share) {ROWS}")
    conn.execute(f"DROP INDEX IF EXISTS {INDEX}")


def all_known(conn: Connection) -> None:
    """Every row's value is written and ``TABLE`` holds the rows above 0: searches read it alone."""
    conn.execute("DELETE FROM meta WHERE key = ?", (KEY,))


def clear(conn: Connection) -> None:
    """Every row is about to go (a rebuild's clear, before the memories' DELETE): the table with them, at once
    rather than a cascade per row, and nothing is left to fill (the rows to come bring their shares)."""
    conn.execute(f"DELETE FROM {TABLE}")
    all_known(conn)


def shares(conn: Connection, pks: Sequence[int]) -> dict[int, float]:
    """pk -> unreadable share of the memories among ``pks`` whose share is above 0."""
    if not pks:
        return {}
    marks = ",".join("?" * len(pks))
    known = conn.execute("SELECT value FROM meta WHERE key = ?", (KEY,)).fetchone()
    if known is None:
        return dict(conn.execute(f"SELECT pk, share FROM {TABLE} WHERE pk IN ({marks})", list(pks)))
    out = {}
    for pk, share, text in conn.execute(
            f"SELECT pk, unreadable, CASE WHEN unreadable IS NULL AND pk > ? THEN {_EMBEDDED} END "
            f"FROM memories WHERE pk IN ({marks})", [int(known[0]), *pks]):
        if text is not None:
            share = unreadable(text)
        if share:
            out[pk] = share
    return out


def pending(conn: Connection) -> bool:
    return conn.execute("SELECT 1 FROM meta WHERE key = ?", (KEY,)).fetchone() is not None


def reach(conn: Connection) -> tuple[int, int] | None:
    """(the pk the fill has read up to, the last pk), or None when nothing is left to fill."""
    known = conn.execute("SELECT value FROM meta WHERE key = ?", (KEY,)).fetchone()
    if known is None:
        return None
    return int(known[0]), conn.execute("SELECT MAX(pk) FROM memories").fetchone()[0] or 0


def left(conn: Connection) -> int:
    """About how many memories' shares are not yet known (pks are dense): 0 once the fill is done."""
    where = reach(conn)
    return 0 if where is None else max(where[1] - where[0], 1)  # 1: all read, the end not yet seen


def fill_step(conn: Connection, budget_s: float = STEP_S) -> bool:
    """Write the shares of the next rows not yet known, for about ``budget_s``, in a write transaction of its
    own; False when none are left (the key is gone)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        known = conn.execute("SELECT value FROM meta WHERE key = ?", (KEY,)).fetchone()
        more = known is not None
        if more:
            last, until = int(known[0]), time.monotonic() + budget_s
            while more:  # one part at least
                rows = conn.execute(f"SELECT pk, unreadable, CASE WHEN unreadable IS NULL THEN {_EMBEDDED} END "
                                    "FROM memories WHERE pk > ? ORDER BY pk LIMIT ?", (last, PART)).fetchall()
                # A share not known is written (the trigger adds it to TABLE); one written before migration
                # 19 is copied there.
                conn.executemany("UPDATE memories SET unreadable = ? WHERE pk = ?",
                                 [(u, pk) for pk, _, text in rows if text is not None and (u := unreadable(text)) > 0])
                conn.executemany(f"INSERT OR REPLACE INTO {TABLE} (pk, share) VALUES (?, ?)",
                                 [(pk, share) for pk, share, _ in rows if share is not None and share > 0])
                more = len(rows) == PART
                last = rows[-1][0] if rows else last
                if time.monotonic() >= until:
                    break
            if more:
                conn.execute("UPDATE meta SET value = ? WHERE key = ?", (str(last), KEY))
            else:
                all_known(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return more


class UnreadableFill(SteppedUnit):
    """The fill on a daemon thread with its own connection; the thread ends once nothing is left to fill."""

    WHAT = "Filling the unreadable shares"  # searches compute the shares not yet written meanwhile
    SHOWN = {FILLING: "Finishing the index upgrade"}  # after migration 17: 4-6 s of a core at 1,000,000 memories
    MEANWHILE = ("Each memory's share of text the embedding model cannot read (CJK, for one) is stored; hybrid "
                 "search reads the text of those not done yet meanwhile")

    def __init__(self, index_path: Path, *, step_s: float = STEP_S, pause_s: float = STEP_S,
                 retry_s: float = RETRY_S):
        super().__init__("memory-curator-unreadable", pause_s, retry_s)
        self._path, self._step_s = index_path, step_s

    def _open(self) -> Connection:
        return connect(self._path)

    def _serve(self, conn: Connection) -> bool:
        """Steps until no row is left, with the lock free between them as long as each held it."""
        if not pending(conn):  # most vaults: a read, no write lock (a read-only vault has nothing to say)
            return True
        try:
            while (at := reach(conn)) is not None:
                self._set(FILLING, *at)
                self._check()
                since = time.monotonic()
                if not fill_step(conn, self._step_s):
                    return True
                self._pause(since)
            return True
        finally:
            self._set(IDLE)
