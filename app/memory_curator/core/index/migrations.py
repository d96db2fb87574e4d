"""Numbered schema migrations, applied in order at open and recorded in ``schema_migrations``.

Add a function ``m00N_what(conn)`` to ``MIGRATIONS``; never edit one that has shipped (saying how far it is may
change). One that can take long at 1,000,000 memories gets its words in ``WHAT`` (the opening's progress says them
on every face), and one that loops takes ``step`` too (a ProgressFn: ``migrate`` passes it to a function whose
signature has it) and calls it as it goes.
The vector table is not here: its dimension depends on the embedding model (see ``vectors.py``).
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Callable, Iterable, Iterator

from memory_curator.core.errors import Cancelled, IndexBusy, IndexTooNew
from memory_curator.core.graph.extract import link_names
from memory_curator.core.index import postings, unreadable
from memory_curator.core.index.db import BUSY_TIMEOUT_MS, Connection, DatabaseError, complete_statement
from memory_curator.core.progress import CancelToken, ProgressFn
from memory_curator.core.text.tokens import fts_row, index_text


def run_script(conn: Connection, script: str) -> None:
    """Run statements one by one: ``executescript`` would COMMIT the migration's transaction."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if complete_statement(pending):
            conn.execute(pending)
            pending = ""
    if pending.strip():
        conn.execute(pending)


def m001_initial(conn: Connection) -> None:
    run_script(conn,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        -- Parent rows: one per markdown file. pk is an INTEGER PRIMARY KEY so FTS rowids survive VACUUM.
        CREATE TABLE memories (
            pk INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL,
            category TEXT NOT NULL,
            file_path TEXT NOT NULL UNIQUE,
            salience REAL NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            session_id TEXT,
            source TEXT NOT NULL,
            keywords TEXT NOT NULL DEFAULT '[]',  -- JSON list
            content TEXT NOT NULL,
            meta_json TEXT NOT NULL DEFAULT '{}', -- the optional frontmatter fields, as JSON
            file_mtime_ns INTEGER NOT NULL DEFAULT 0,
            file_size INTEGER NOT NULL DEFAULT 0,
            chunk_count INTEGER NOT NULL DEFAULT 0,
            embed_hash TEXT                      -- hash of the text last embedded; NULL = needs embedding
        );
        CREATE INDEX idx_memories_category ON memories(category);
        CREATE INDEX idx_memories_session ON memories(session_id, created_at);
        CREATE INDEX idx_memories_updated ON memories(updated_at);
        CREATE INDEX idx_memories_unembedded ON memories(chunk_count) WHERE chunk_count = 0;

        -- Child rows: the chunks that were embedded. The vectors live in chunk_vectors (vec0).
        CREATE TABLE memory_chunks (
            chunk_id INTEGER PRIMARY KEY,
            memory_pk INTEGER NOT NULL REFERENCES memories(pk) ON DELETE CASCADE,
            chunk_index INTEGER NOT NULL,
            start_char INTEGER NOT NULL,
            end_char INTEGER NOT NULL,
            content_snippet TEXT NOT NULL
        );
        CREATE INDEX idx_chunks_memory ON memory_chunks(memory_pk);

        -- Full text. Contentless: we store segmented text (Japanese split into words) and never read it back.
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            title, content, keywords,
            content='', contentless_delete=1,
            tokenize='unicode61 remove_diacritics 2'
        );

        -- Access statistics live here, not in the files: a search must not rewrite files.
        -- Keyed by memory id (not pk) so they survive a rebuild of the memory rows.
        CREATE TABLE access_stats (
            memory_id TEXT PRIMARY KEY,
            access_count INTEGER NOT NULL DEFAULT 0,
            last_accessed TEXT,
            importance REAL
        );

        -- Files the index could not read, with the reason (shown in Vault health).
        CREATE TABLE vault_problems (file_path TEXT PRIMARY KEY, reason TEXT NOT NULL, seen_at TEXT NOT NULL);
        """
    )


def m002_lifecycle(conn: Connection) -> None:
    """Hot filter fields as real columns (search no longer parses JSON per row), and the access log."""
    run_script(conn,
        """
        ALTER TABLE memories ADD COLUMN superseded_by TEXT;
        ALTER TABLE memories ADD COLUMN expires_at TEXT;      -- ISO 'YYYY-MM-DDTHH:MM:SSZ': compares as text
        ALTER TABLE memories ADD COLUMN scope TEXT;
        ALTER TABLE memories ADD COLUMN memory_type TEXT;     -- comma-joined kinds: 'episodic,emotional'
        ALTER TABLE memories ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;

        UPDATE memories SET
            superseded_by = json_extract(meta_json, '$.superseded_by'),
            expires_at = json_extract(meta_json, '$.expires_at'),
            scope = json_extract(meta_json, '$.scope'),
            pinned = COALESCE(json_extract(meta_json, '$.pinned'), 0)
        WHERE meta_json <> '{}';
        -- Typed fields were unknown keys before this version: have the next sync read those files again.
        UPDATE memories SET file_mtime_ns = 0
        WHERE json_extract(meta_json, '$.extra.event_timestamp') IS NOT NULL
           OR json_extract(meta_json, '$.extra.emotional_state') IS NOT NULL
           OR json_extract(meta_json, '$.extra.skill_name') IS NOT NULL
           OR json_extract(meta_json, '$.extra.importance_override') IS NOT NULL;

        CREATE INDEX idx_memories_superseded ON memories(superseded_by) WHERE superseded_by IS NOT NULL;
        CREATE INDEX idx_memories_expires ON memories(expires_at) WHERE expires_at IS NOT NULL;
        CREATE INDEX idx_memories_scope ON memories(scope) WHERE scope IS NOT NULL;
        CREATE INDEX idx_memories_type ON memories(memory_type) WHERE memory_type IS NOT NULL;

        -- One row per recall (get, search, batch get); kept access_log_days. Feeds importance.
        CREATE TABLE access_log (
            memory_id TEXT NOT NULL,
            accessed_at TEXT NOT NULL,
            kind TEXT NOT NULL
        );
        CREATE INDEX idx_access_log_memory ON access_log(memory_id, accessed_at);
        CREATE INDEX idx_access_log_time ON access_log(accessed_at);
        INSERT INTO access_log (memory_id, accessed_at, kind)
            SELECT memory_id, last_accessed, 'migrated' FROM access_stats WHERE last_accessed IS NOT NULL;
        """
    )


def m003_review_inbox(conn: Connection) -> None:
    """The review inbox (core/inbox.py) is a frontmatter key kept among the unknown ones; list it by index."""
    conn.execute(
        "CREATE INDEX idx_memories_inbox ON memories(created_at) "
        "WHERE json_extract(meta_json, '$.extra.review') = 'pending'"
    )


def _counted(conn: Connection, rows: Iterable[tuple], step: ProgressFn | None, what: str) -> Iterator[tuple]:
    """The memory rows (pk first, in pk order) passed on, telling ``step`` how far they are every 5,000."""
    end = conn.execute("SELECT MAX(pk) FROM memories").fetchone()[0] or 0
    for n, row in enumerate(rows, 1):
        if step is not None and n % 5000 == 0:
            step(row[0], end, what)
        yield row


def m004_fts_porter(conn: Connection, step: ProgressFn | None = None) -> None:
    """English stemming in the full-text index (``decided`` meets ``decide``): the FTS table is rebuilt with
    the ``porter`` tokenizer and refilled from the memory rows. Stemming only touches ASCII suffixes, so
    Japanese words and Finnish prefix matches are unchanged; it raised R@10 of keyword search on the LoCoMo
    dev split from 0.665 to 0.703."""
    conn.execute("DROP TABLE IF EXISTS memories_fts")
    conn.execute(
        "CREATE VIRTUAL TABLE memories_fts USING fts5(title, content, keywords, content='', contentless_delete=1, "
        "tokenize='porter unicode61 remove_diacritics 2')"
    )
    rows = _counted(conn, conn.execute("SELECT pk, title, content, keywords FROM memories ORDER BY pk").fetchall(),
                    step, "the full text, memory by memory")
    conn.executemany(
        "INSERT INTO memories_fts (rowid, title, content, keywords) VALUES (?, ?, ?, ?)",
        ((pk, index_text(t), index_text(c), index_text(" ".join(json.loads(k or "[]")))) for pk, t, c, k in rows),
    )


def m005_content_version(conn: Connection) -> None:
    """A counter that moves only when memory rows change (bumped by IndexStore once per transaction).
    ``PRAGMA data_version`` also moves when another process merely records that a search recalled something,
    and the app then reloaded after every search."""
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('content_version', '0')")


def m006_no_content_triggers(conn: Connection) -> None:
    """Indexes made while m005 still bumped the counter with per-row triggers lose them (a fifth of a rebuild)."""
    for event in ("insert", "update", "delete"):
        conn.execute(f"DROP TRIGGER IF EXISTS memories_content_{event}")


def m007_fts_finnish_stems(conn: Connection, step: ProgressFn | None = None) -> None:
    """Finnish stems in the full-text index: the FTS table gains a ``stems`` column holding each memory's
    Snowball stems (``tietokannan`` -> ``tietokan``), matched by a search's stem round, and is refilled from
    the memory rows."""
    conn.execute("DROP TABLE IF EXISTS memories_fts")
    conn.execute(
        "CREATE VIRTUAL TABLE memories_fts USING fts5(title, content, keywords, stems, content='', "
        "contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')"
    )
    rows = _counted(conn, conn.execute("SELECT pk, title, content, keywords FROM memories ORDER BY pk"), step,
                    "the full text, memory by memory")
    conn.executemany(
        "INSERT INTO memories_fts (rowid, title, content, keywords, stems) VALUES (?, ?, ?, ?, ?)",
        ((pk, *fts_row(t, c, " ".join(json.loads(k or "[]")))) for pk, t, c, k in rows),
    )


def m008_graph(conn: Connection) -> None:
    """The entity graph (core/graph): each memory's entity mentions and its edges to other memories, derived
    from the files like every other row. Memories indexed before it are read again at the next sync."""
    run_script(conn,
        """
        CREATE TABLE graph_mentions (
            memory_pk INTEGER NOT NULL REFERENCES memories(pk) ON DELETE CASCADE,
            key TEXT NOT NULL,      -- the folded name (core/graph/extract.fold)
            name TEXT NOT NULL,     -- as written
            source TEXT NOT NULL,   -- actor | wikilink | keyword | name
            PRIMARY KEY (memory_pk, key, source)
        ) WITHOUT ROWID;
        CREATE INDEX idx_graph_mentions_key ON graph_mentions(key, memory_pk);

        -- A link is two rows meeting on target: one of kind 'self' (a name of the memory linked to) and one
        -- of another kind (wikilink, supersedes, part...) in the memory that links.
        CREATE TABLE graph_edges (
            memory_pk INTEGER NOT NULL REFERENCES memories(pk) ON DELETE CASCADE,
            target TEXT NOT NULL,
            kind TEXT NOT NULL,
            PRIMARY KEY (memory_pk, target, kind)
        ) WITHOUT ROWID;
        CREATE INDEX idx_graph_edges_target ON graph_edges(target, kind);

        UPDATE memories SET file_mtime_ns = 0;
        """
    )


def m009_graph_key_index(conn: Connection) -> None:
    """The mentions' key index also holds source and name: the Entities list, the graph leg and a memory's
    links read them by key from the index alone (at 100,000 memories the Entities list read 600,000 rows
    one by one for them)."""
    run_script(conn,
        """
        DROP INDEX IF EXISTS idx_graph_mentions_key;
        CREATE INDEX idx_graph_mentions_key ON graph_mentions(key, memory_pk, source, name);
        """
    )


def m010_list_sort_indexes(conn: Connection) -> None:
    """The memory list sorted by title or by salience reads a page from an index, as it does sorted by date:
    without one every page of 1,000,000 memories read the whole table to sort it."""
    run_script(conn,
        """
        CREATE INDEX idx_memories_title ON memories(title COLLATE NOCASE);
        CREATE INDEX idx_memories_salience ON memories(salience);
        """
    )


KEYWORD_COUNTS = "SELECT value, COUNT(*) FROM memories, json_each(memories.keywords) WHERE value IS NOT NULL GROUP BY value"
_ADD_KEYWORDS = """
    INSERT INTO keyword_counts (value, n) SELECT value, COUNT(*) FROM json_each(NEW.keywords)
        WHERE value IS NOT NULL GROUP BY value
        ON CONFLICT (value) DO UPDATE SET n = n + excluded.n;"""
_DROP_KEYWORDS = """
    UPDATE keyword_counts SET n = n - (SELECT COUNT(*) FROM json_each(OLD.keywords) j WHERE j.value = keyword_counts.value)
        WHERE value IN (SELECT value FROM json_each(OLD.keywords));
    DELETE FROM keyword_counts WHERE n <= 0 AND value IN (SELECT value FROM json_each(OLD.keywords));"""


def _counting_triggers(name: str, columns: str, changed: str, add: str, drop: str) -> str:
    """The three triggers keeping a count table: a row inserted adds, deleted takes away, updated in ``columns``
    (when ``changed``) both. Named ``memories_{name}_*`` (core/index/bulk.py drops them by that prefix)."""
    return f"""
        CREATE TRIGGER memories_{name}_insert AFTER INSERT ON memories BEGIN{add}
        END;
        CREATE TRIGGER memories_{name}_delete AFTER DELETE ON memories BEGIN{drop}
        END;
        CREATE TRIGGER memories_{name}_update AFTER UPDATE OF {columns} ON memories WHEN {changed}
        BEGIN{drop}{add}
        END;
        """


def m011_keyword_counts(conn: Connection) -> None:
    """The browse pane's keyword counts kept by the writes (triggers, so every process's writes keep them):
    counting them from every memory's keywords took 9.7 s at 1,000,000 memories, on the lane searches use.
    A bulk load (core/index/bulk.py) drops the triggers with the indexes and counts once at the end."""
    run_script(conn,
        f"""
        CREATE TABLE keyword_counts (value PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO keyword_counts (value, n) {KEYWORD_COUNTS};
        """ + _counting_triggers("keywords", "keywords", "OLD.keywords IS NOT NEW.keywords", _ADD_KEYWORDS, _DROP_KEYWORDS)
    )


LABEL_COUNTS = ("SELECT j.key, COUNT(*) FROM memories m, json_each(m.meta_json, '$.extra.labels') j "
                "WHERE j.key IS NOT NULL GROUP BY j.key")
_ADD_LABELS = """
    INSERT INTO label_counts (label, n) SELECT key, COUNT(*) FROM json_each(NEW.meta_json, '$.extra.labels')
        WHERE key IS NOT NULL GROUP BY key
        ON CONFLICT (label) DO UPDATE SET n = n + excluded.n;"""
_DROP_LABELS = """
    UPDATE label_counts SET n = n - (SELECT COUNT(*) FROM json_each(OLD.meta_json, '$.extra.labels') j
                                     WHERE j.key = label_counts.label)
        WHERE label IN (SELECT key FROM json_each(OLD.meta_json, '$.extra.labels'));
    DELETE FROM label_counts WHERE n <= 0 AND label IN (SELECT key FROM json_each(OLD.meta_json, '$.extra.labels'));"""


FACET_COUNTS = ("SELECT 'category', category, COUNT(*) FROM memories GROUP BY category UNION ALL "
                "SELECT 'session', session_id, COUNT(*) FROM memories WHERE session_id IS NOT NULL GROUP BY session_id")
_ADD_FACETS = """
    INSERT INTO facet_counts (facet, value, n) SELECT 'category', NEW.category, 1 WHERE true
        ON CONFLICT (facet, value) DO UPDATE SET n = n + 1;
    INSERT INTO facet_counts (facet, value, n) SELECT 'session', NEW.session_id, 1 WHERE NEW.session_id IS NOT NULL
        ON CONFLICT (facet, value) DO UPDATE SET n = n + 1;"""
_DROP_FACETS = """
    UPDATE facet_counts SET n = n - 1
        WHERE (facet = 'category' AND value = OLD.category) OR (facet = 'session' AND value = OLD.session_id);
    DELETE FROM facet_counts
        WHERE n <= 0 AND ((facet = 'category' AND value = OLD.category) OR (facet = 'session' AND value = OLD.session_id));"""


def m012_browse_counts(conn: Connection) -> None:
    """The browse pane's other counts kept by the writes as the keyword counts are (migration 11): labels,
    categories and sessions. Counted from every memory, they took 0.9-1.5, 0.1-0.3 and 0.1-0.8 s at 1,000,000
    memories after every change (on loaded cores)."""
    run_script(conn,
        f"""
        CREATE TABLE facet_counts (facet TEXT NOT NULL, value NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (facet, value))
            WITHOUT ROWID;
        INSERT INTO facet_counts (facet, value, n) {FACET_COUNTS};
        CREATE TABLE label_counts (label PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO label_counts (label, n) {LABEL_COUNTS};
        """ + _counting_triggers("facets", "category, session_id",
                                 "OLD.category IS NOT NEW.category OR OLD.session_id IS NOT NEW.session_id",
                                 _ADD_FACETS, _DROP_FACETS)
        + _counting_triggers("labels", "meta_json", "json_extract(OLD.meta_json, '$.extra.labels') IS NOT "
                             "json_extract(NEW.meta_json, '$.extra.labels')", _ADD_LABELS, _DROP_LABELS)
    )


CONTENT_CHARS = "SELECT 'content', COALESCE(SUM(LENGTH(content)), 0) FROM memories"
_ADD_CHARS = """
    UPDATE content_totals SET n = n + LENGTH(NEW.content) WHERE k = 'content';"""
_DROP_CHARS = """
    UPDATE content_totals SET n = n - LENGTH(OLD.content) WHERE k = 'content';"""


def m013_stats_totals(conn: Connection) -> None:
    """``stats()`` without reading every memory (3.7 s at 1,000,000, the CLI's and the servers' stats): the
    characters of content kept by triggers as the browse counts are (migrations 11, 12); the oldest and newest
    memory from an index on ``created_at`` (also the list sorted by creation); pinned ones from a partial index."""
    run_script(conn,
        f"""
        CREATE TABLE content_totals (k PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO content_totals (k, n) {CONTENT_CHARS};
        CREATE INDEX idx_memories_created ON memories(created_at);
        CREATE INDEX idx_memories_pinned ON memories(pinned) WHERE pinned <> 0;
        """ + _counting_triggers("chars", "content", "OLD.content IS NOT NEW.content", _ADD_CHARS, _DROP_CHARS)
    )



def m014_fts_postings(conn: Connection) -> None:
    """The common words' postings beside the full-text index (core/index/postings.py). Built in the background
    since migration 15 (core/keyword_base.py: at 1,000,000 memories building them here held the opening 2-9
    minutes). A later migration that refills memories_fts must clear them (postings.clear)."""
    run_script(conn, postings.SCHEMA)


def m015_fts_postings_steps(conn: Connection) -> None:
    """The kept postings built word by word while others write, and the rows written since folded back: each
    word's entry and each written row numbered by write (core/index/postings.py). A base built whole by
    migration 14 stays: its words hold every row as of write 0, the rows written since are write 1."""
    run_script(conn, postings.SCHEMA_15)
    postings.migrate_15(conn)


def m016_session_filters_index(conn: Connection) -> None:
    """Session neighbours (core/index/neighbours.py) read the default filters' columns from the index they are
    found with, instead of each neighbour's row (cold pages at 1,000,000 memories: the neighbours took p50
    3.9 ms there, 1.6 ms without reading the rows). It starts as the old index did, (session_id, created_at),
    then pk, so a seek still stops after ``width`` rows of a session saved under one timestamp; it replaces
    the old one. Made at 1,000,000 memories in 6-7 s (load 7)."""
    run_script(conn, """
        CREATE INDEX idx_memories_session_filters
            ON memories(session_id, created_at, pk, superseded_by, expires_at);
        DROP INDEX idx_memories_session;
        """)


def m017_unreadable_share(conn: Connection) -> None:
    """Each memory's unreadable share kept with its row (core/index/unreadable.py): hybrid search with an
    English-only model read every fusion member's text for it. Only the column is added here: no row is
    rewritten or read (the rows so far are NULL, filled in the background)."""
    unreadable.add_column(conn)


def m018_link_names(conn: Connection, step: ProgressFn | None = None) -> None:
    """A memory's own names for links (folded title, file name and slug: extract.link_names) in a table of their
    own, one row a memory, and its id in its row, instead of four 'self' rows per memory in graph_edges: those
    were two thirds of that table and a third of a rebuild's writing at 100,000 files. The names are made from
    the rows' titles and paths (what the files gave them). The links are copied into a new graph_edges rather
    than the self rows deleted: deleting 400,000 of them took 6 s at 100,000 memories."""
    run_script(conn, """
        CREATE TABLE link_names (
            pk INTEGER PRIMARY KEY REFERENCES memories(pk) ON DELETE CASCADE,
            title TEXT,  -- folded, as a link names it (core/graph/extract.link_names)
            file TEXT,
            slug TEXT
        );
        """)
    last, end = 0, conn.execute("SELECT MAX(pk) FROM memories").fetchone()[0] or 0
    while rows := conn.execute("SELECT pk, title, file_path FROM memories WHERE pk > ? ORDER BY pk LIMIT 5000",
                               (last,)).fetchall():
        conn.executemany("INSERT INTO link_names (pk, title, file, slug) VALUES (?, ?, ?, ?)",
                         [(pk, *link_names(title, path)) for pk, title, path in rows])
        last = rows[-1][0]
        if step is not None:  # pks are dense enough (a rebuild numbers them anew) to say how far it is
            step(last, end, "the names links use, memory by memory")
    if step is not None:
        step(0, 0, "copying the links into a table of their own")
    run_script(conn, """
        CREATE INDEX idx_link_names_title ON link_names(title);
        CREATE INDEX idx_link_names_file ON link_names(file);
        CREATE INDEX idx_link_names_slug ON link_names(slug);
        CREATE TABLE graph_edges_links (
            memory_pk INTEGER NOT NULL REFERENCES memories(pk) ON DELETE CASCADE,
            target TEXT NOT NULL,   -- "id:<memory id>" or "title:<folded name>"
            kind TEXT NOT NULL,     -- wikilink, supersedes, part... (core/graph/extract.EDGE_KINDS)
            PRIMARY KEY (memory_pk, target, kind)
        ) WITHOUT ROWID;
        INSERT INTO graph_edges_links SELECT memory_pk, target, kind FROM graph_edges WHERE kind <> 'self';
        DROP TABLE graph_edges;
        ALTER TABLE graph_edges_links RENAME TO graph_edges;
        CREATE INDEX idx_graph_edges_target ON graph_edges(target, kind);
        """)


def m019_unreadable_table(conn: Connection) -> None:
    """The rows whose unreadable share is above 0 in a table kept by triggers, instead of a partial index that
    a fill made at its end holding the write lock (1.2 s at 1,000,000 memories): see core/index/unreadable.py."""
    unreadable.add_table(conn)


MIGRATIONS: list[tuple[int, str, Callable[[Connection], None]]] = [
    (1, "initial", m001_initial),
    (2, "lifecycle", m002_lifecycle),
    (3, "review_inbox", m003_review_inbox),
    (4, "fts_porter", m004_fts_porter),
    (5, "content_version", m005_content_version),
    (6, "no_content_triggers", m006_no_content_triggers),
    (7, "fts_finnish_stems", m007_fts_finnish_stems),
    (8, "graph", m008_graph),
    (9, "graph_key_index", m009_graph_key_index),
    (10, "list_sort_indexes", m010_list_sort_indexes),
    (11, "keyword_counts", m011_keyword_counts),
    (12, "browse_counts", m012_browse_counts),
    (13, "stats_totals", m013_stats_totals),
    (14, "fts_postings", m014_fts_postings),
    (15, "fts_postings_steps", m015_fts_postings_steps),
    (16, "session_filters_index", m016_session_filters_index),
    (17, "unreadable_share", m017_unreadable_share),
    (18, "link_names", m018_link_names),
    (19, "unreadable_table", m019_unreadable_table),
]


def current_version(conn: Connection) -> int:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"
    )
    row = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    return row[0] or 0


# What a migration that can take long on a large index does, in the words of the opening's progress.
WHAT = {
    4: "refilling the full-text index with English stems",
    7: "refilling the full-text index with Finnish stems",
    11: "counting the keywords",
    12: "counting the categories, sessions and labels",
    13: "counting the characters of content",
    15: "numbering the keyword postings' words",
    16: "indexing the sessions' filter columns",
    17: "adding the unreadable share's column",
    18: "giving each memory's link names a table of their own",
    19: "moving the unreadable shares' index into a table",
}
UPGRADING = "Upgrading the index"  # an older index's migrations: each one named (WHAT), with how far it is
CREATING = "Creating the index"  # a new index's: said as one step
LOCK_LOOK_S = 1.0  # a migration waiting for another process's write lock says so (and hears a cancel) this often
LOCK_PATIENCE_S = 600.0  # and gives up after this (another process's upgrade at 1,000,000 memories: 46-98 s)
TICK_OPS = 100_000  # SQLite's virtual-machine steps between two looks at the clock and the cancel token
TICK_S = 0.1  # a statement running long repeats its message this often (the time it has taken shows)


class Report:
    """A migration's progress for ``migrate``'s caller: its message when it begins, each step of a loop, and
    while one long statement runs (an index made, a table copied: 10-25 s at 1,000,000 memories) the same
    message again every ``TICK_S`` from SQLite's progress handler, so a caller can show the time going by and a
    cancel interrupts the statement (the migration's transaction rolls back; the ones before it stay)."""

    def __init__(self, conn: Connection, progress: ProgressFn | None, cancel: CancelToken | None, count: int,
                 creating: bool = False):
        self._conn, self._progress, self._cancel, self.count = conn, progress, cancel, count
        self.number, self.done, self._prefix, self._last, self._said = 0, 0, "", (0, 0, ""), 0.0
        # A new index runs every migration on empty tables (a fraction of a second): it is created, not upgraded,
        # and its migrations' names would only be noise.
        self.creating = creating
        self._doing = CREATING if creating else UPGRADING
        if progress is not None or cancel is not None:
            conn.set_progress_handler(self._tick, TICK_OPS)

    def begin(self, version: int, name: str) -> None:
        self.number += 1
        self._prefix = f"{UPGRADING} ({self.number} of {self.count}, migration {version})"
        self.step(0, 0, WHAT.get(version, name.replace("_", " ")))

    def step(self, done: int, total: int, what: str) -> None:
        self._last = (0, 0, CREATING) if self.creating else (done, total, f"{self._prefix}: {what}")
        self._say()
        if self._cancel is not None and self._cancel.cancelled:
            raise self._stopped()

    def waiting(self) -> None:
        """Another process holds the write lock (it may be upgrading the index itself)."""
        verb = "creating" if self.creating else "upgrading"
        self._last = (0, 0, f"{self._doing}: waiting for another process writing to it (perhaps {verb} it too)")
        self._say()
        if self._cancel is not None and self._cancel.cancelled:
            raise self._stopped()

    def _say(self) -> None:
        self._said = time.monotonic()
        if self._progress is not None:
            self._progress(*self._last)

    def _tick(self) -> int:
        if self._cancel is not None and self._cancel.cancelled:
            return 1  # SQLite stops the statement: "interrupted"
        if self._progress is not None and time.monotonic() - self._said >= TICK_S:
            self._say()
        return 0

    def close(self) -> None:
        self._conn.set_progress_handler(None, 0)

    def cancelled(self, exc: BaseException) -> BaseException:
        """The error to raise for ``exc`` (the migration rolled back): Cancelled for a cancel, for Ctrl-C, and for
        the interrupt either caused in a statement (Ctrl-C's KeyboardInterrupt, raised in ``_tick``, is swallowed
        by sqlite3, which stops the statement: nothing else interrupts a connection not yet handed out)."""
        if isinstance(exc, (Cancelled, KeyboardInterrupt)) or (
                isinstance(exc, DatabaseError) and "interrupted" in str(exc)):
            return self._stopped()
        return exc

    def _stopped(self) -> Cancelled:
        return Cancelled(self.done, self.count, f"{self._doing} stopped: {self.done} of {self.count} "
                         "migrations done (kept), the one under way undone; opening the vault again goes on from "
                         "there.")


def _begin(conn: Connection, report: Report) -> None:
    """A migration's write transaction. Another process may hold the lock for long (upgrading the same index:
    a minute at 1,000,000 memories), longer than the usual busy timeout: the wait is said every second and a
    cancel heard, for up to LOCK_PATIENCE_S."""
    start = time.monotonic()
    conn.execute(f"PRAGMA busy_timeout = {int(LOCK_LOOK_S * 1000)}")
    try:
        while True:
            try:
                conn.execute("BEGIN IMMEDIATE")
                return
            except IndexBusy:
                if time.monotonic() - start >= LOCK_PATIENCE_S:
                    raise IndexBusy(f"The vault's index stayed locked by another program for {LOCK_PATIENCE_S:.0f} s "
                                    "while this one waited to upgrade it. Close the other program (or let it "
                                    "finish), then open the vault again.") from None
                report.waiting()
    finally:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")


def _steps(fn: Callable[..., None]) -> bool:
    return "step" in inspect.signature(fn).parameters


def migrate(conn: Connection, progress: ProgressFn | None = None, cancel: CancelToken | None = None) -> list[int]:
    """Apply pending migrations, each in its own transaction. Returns the versions applied. ``progress`` hears
    what each does (see Report); ``cancel`` stops the one running (rolled back: Cancelled)."""
    applied = []
    have = current_version(conn)
    known = MIGRATIONS[-1][0]
    if have > known:
        raise IndexTooNew(f"The index has schema {have}, written by a newer version of Memory Curator; this one "
                          f"knows up to {known}.")
    todo = [m for m in MIGRATIONS if m[0] > have]
    if not todo:
        return applied
    report = Report(conn, progress, cancel, len(todo), creating=have == 0)
    try:
        for version, name, fn in todo:
            try:
                _begin(conn, report)
                # Another process may have migrated while we waited for the lock.
                if conn.execute("SELECT 1 FROM schema_migrations WHERE version = ?", (version,)).fetchone():
                    conn.execute("COMMIT")
                    report.done += 1
                    continue
                report.begin(version, name)
                fn(conn, report.step) if _steps(fn) else fn(conn)
                conn.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", (version, name))
                conn.execute("COMMIT")
                report.done += 1  # a Ctrl-C from here to the next one's begin finds it kept
            except BaseException as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                error = report.cancelled(exc)
                if error is exc:
                    raise
                raise error from None if isinstance(exc, Cancelled) else exc
            applied.append(version)
    finally:
        report.close()
    return applied
