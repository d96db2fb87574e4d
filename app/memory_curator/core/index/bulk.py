"""Loading empty tables in bulk (a rebuild, a new index): secondary indexes made once at the end.

Updating the memories' and the graph's secondary indexes row by row was half of a rebuild's writing at 100,000
files (their keys come in no order: categories, sessions, entity keys, link targets); ``CREATE INDEX`` sorts
them once instead. The unique indexes (a memory's id and file) stay: the load reads through them. The triggers
keeping the browse pane's counts go too (a clear of the table fired them row by row); the counts are made once at the end.

The statements of the dropped indexes are kept in ``meta`` in the transaction that drops them, so an index
whose rebuild was killed midway gets them back when it is next opened (``restore``), and a process opening
the vault meanwhile makes them again too (the rebuild then goes on with them, only slower). Other processes
keep working without them in the meantime, more slowly. A rebuild whose files helper processes read makes them
over its last chunks, a step at a time (``restore_step``: an index, or a count with its triggers), while the
helpers read the rest; the rows written after a step keep its index as any write does.

The full-text index's automatic merging is off meanwhile: with it, each transaction's commit merged the new
segment into older ones (a seventh of the full-text work at 100,000 files), and the rebuild ends by merging
everything into one segment anyway. A level that reaches 16 segments is still merged ('crisismerge'), so a
long load never leaves searches reading hundreds. Its pending terms are held up to HASHSIZE instead of 1 MB, so
that a transaction of several chunks is written as one segment (``indexing.GROUP``). The settings are put back
where the indexes are, and their rows in the FTS config table removed, as a fresh index has none.

The write-ahead log is copied into the database (a checkpoint, with two fsyncs) when a commit finds it past
LOAD_CHECKPOINT_PAGES instead of SQLite's 1,000 pages: a load's commit of up to 10 chunks writes 5-40 MB to it, so
each one checkpointed, and the writer waited on 80-97 fsyncs at 100,000 files (3.0-5.1 s at load 6-11; 7 with this
bound, 0.6-0.8 s). The log stays under the bound plus one commit (275 MB at most at 100,000 files, against 60 MB),
and a page written again by later commits (the id and file indexes, each table's last pages) is copied once per
checkpoint instead of once per commit. The setting is the connection's, put back by ``restore``.
"""

from __future__ import annotations

import json

from memory_curator.core.index import unreadable
from memory_curator.core.index.db import Connection, OperationalError
from memory_curator.core.index.migrations import CONTENT_CHARS, FACET_COUNTS, KEYWORD_COUNTS, LABEL_COUNTS

TABLES = ("memories", "graph_mentions", "graph_edges", "link_names")
# The triggers keeping counts (migrations 11-13) by name prefix, with the table they keep and how it is counted at
# the end; and those keeping the unreadable shares' table, filled at the end from the rows (one read of the table:
# 28-57 ms of CPU at 100,000 memories). Any trigger on the memories makes each insert a statement savepoint, where FTS5
# writes its pending terms out: a group of chunks would no longer be one segment.
COUNTING = {"memories_keywords_": ("keyword_counts", "value, n", KEYWORD_COUNTS),
            "memories_labels_": ("label_counts", "label, n", LABEL_COUNTS),
            "memories_facets_": ("facet_counts", "facet, value, n", FACET_COUNTS),
            "memories_chars_": ("content_totals", "k, n", CONTENT_CHARS),
            unreadable.TRIGGERS: (unreadable.TABLE, "pk, share", unreadable.ROWS)}
KEY = "bulk_load_indexes"  # in meta: the CREATE INDEX statements to run again
FTS = "memories_fts"
AUTOMERGE = 4  # FTS5's default
# FTS5 writes its pending terms out as a segment when they pass its hash size (1 MB: two segments a chunk of
# 1,000 bench files), at a commit and at any savepoint. A load's transaction of 10 chunks fits in 64 MB (~20 MB
# of terms at 10,000 bench files), so each is written once, and merged once at the end.
HASHSIZE, DEFAULT_HASHSIZE = 64 * 1024 * 1024, 1024 * 1024
_SETTINGS = (("automerge", 0, AUTOMERGE), ("hashsize", HASHSIZE, DEFAULT_HASHSIZE))  # (key, load's, default)
LOAD_CHECKPOINT_PAGES, CHECKPOINT_PAGES = 65536, 1000  # 256 MiB of 4 KiB pages; SQLite's default, kept otherwise


def drop_indexes(conn: Connection) -> None:
    """Drop the secondary indexes of TABLES, keeping their statements. Call in a transaction."""
    marks = ", ".join("?" * len(TABLES))
    counting = " OR ".join(f"name LIKE '{prefix}%'" for prefix in COUNTING)
    found = conn.execute(f"SELECT name, sql FROM sqlite_master WHERE ((type = 'index' AND sql IS NOT NULL "
                         f"AND tbl_name IN ({marks})) OR (type = 'trigger' AND ({counting}))) "
                         "ORDER BY name", TABLES).fetchall()
    kept = conn.execute("SELECT value FROM meta WHERE key = ?", (KEY,)).fetchone()
    statements = dict(json.loads(kept[0])) if kept else {}  # dropped by a load that did not finish
    statements.update(found)
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (KEY, json.dumps(sorted(statements.items()))))
    for name, sql in found:
        conn.execute(f'DROP {"TRIGGER" if sql.startswith("CREATE TRIGGER") else "INDEX"} "{name}"')
    for key, value, _ in _SETTINGS:
        conn.execute(f"INSERT INTO {FTS} ({FTS}, rank) VALUES ('{key}', {value})")
    conn.execute(f"PRAGMA wal_autocheckpoint = {LOAD_CHECKPOINT_PAGES}")


def restore(conn: Connection) -> None:
    """Make the indexes a bulk load dropped, if any are missing. Call in a transaction."""
    conn.execute(f"PRAGMA wal_autocheckpoint = {CHECKPOINT_PAGES}")  # this transaction's commit copies the log
    kept = conn.execute("SELECT value FROM meta WHERE key = ?", (KEY,)).fetchone()
    if kept is None:
        return
    statements = json.loads(kept[0])
    _make(conn, statements)
    # The command sets this connection's value (and tells the others to read theirs again); the row it writes
    # then goes, as in a fresh index.
    for key, _, default in _SETTINGS:
        conn.execute(f"INSERT INTO {FTS} ({FTS}, rank) VALUES ('{key}', {default})")
        conn.execute(f"DELETE FROM {FTS}_config WHERE k = ?", (key,))
    conn.execute("DELETE FROM meta WHERE key = ?", (KEY,))


def steps(conn: Connection) -> int:
    """How many ``restore_step`` calls make what the load dropped: an index each, the triggers keeping a count
    (with the count) together."""
    return len(_steps(_kept(conn)))


def restore_step(conn: Connection) -> int:
    """Make the first index, or group of counting triggers with its counts, still dropped, and take its statements
    off the kept ones: the rows written after it keep it as any write does. ``restore`` at the end makes the rest.
    Returns the steps left. Call in a transaction."""
    left = _steps(_kept(conn))
    if not left:
        return 0
    _make(conn, left[0])
    conn.execute("UPDATE meta SET value = ? WHERE key = ?",
                  (json.dumps([statement for step in left[1:] for statement in step]), KEY))
    return len(left) - 1


def _kept(conn: Connection) -> list[list[str]]:
    kept = conn.execute("SELECT value FROM meta WHERE key = ?", (KEY,)).fetchone()
    return [] if kept is None else json.loads(kept[0])


def _steps(statements: list[list[str]]) -> list[list[list[str]]]:
    """The kept statements in steps: each index alone, each counting prefix's triggers together."""
    out: list[list[list[str]]] = []
    groups: dict[str, list[list[str]]] = {}
    for name, sql in statements:
        prefix = next((p for p in COUNTING if name.startswith(p)), None)
        if prefix is None:
            out.append([[name, sql]])
        elif prefix in groups:
            groups[prefix].append([name, sql])
        else:
            groups[prefix] = [[name, sql]]
            out.append(groups[prefix])
    return out


def _make(conn: Connection, statements: list[list[str]]) -> None:
    for _, sql in statements:
        conn.execute(sql.replace("CREATE INDEX ", "CREATE INDEX IF NOT EXISTS ", 1)
                     .replace("CREATE UNIQUE INDEX ", "CREATE UNIQUE INDEX IF NOT EXISTS ", 1)
                     .replace("CREATE TRIGGER ", "CREATE TRIGGER IF NOT EXISTS ", 1))
    for prefix, (table, columns, count) in COUNTING.items():
        if any(name.startswith(prefix) for name, _ in statements):  # the counts missed the load's writes
            conn.execute(f"DELETE FROM {table}")
            conn.execute(f"INSERT INTO {table} ({columns}) {count}")


def pending(conn: Connection) -> bool:
    """Whether indexes dropped by a bulk load are still to be made."""
    return conn.execute("SELECT 1 FROM meta WHERE key = ?", (KEY,)).fetchone() is not None


def restore_if_pending(conn: Connection) -> None:
    """``restore`` at open, taking the write lock only when there is something to restore."""
    try:
        if not pending(conn):
            return
    except OperationalError:  # no meta table: a new database
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        restore(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
