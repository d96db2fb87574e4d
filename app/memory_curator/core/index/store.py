"""IndexStore: the rows behind the vault. Every row here can be rebuilt from the files."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from memory_curator.core.errors import MemoryNotFoundError
from memory_curator.core.index import bulk, graph, migrations, postings, unreadable
from memory_curator.core.index.checkpoints import GAP_S, Checkpointer
from memory_curator.core.index.db import Connection, connect, refit_mmap
from memory_curator.core.index.rows import MemoryRow, memory_row
from memory_curator.core.index.vectors import VectorTable
from memory_curator.core.model import MemoryItem, VaultProblem, utcnow
from memory_curator.core.progress import CancelToken, ProgressFn
from memory_curator.core.text.tokens import TEXT_COLUMNS, phrase
from memory_curator.core.vault.codec import format_dt

_TUPLES = {"actors", "supersedes", "consolidated_from"}

MEMORY_COLUMNS = (
    "m.pk, m.id, m.title, m.category, m.file_path, m.salience, m.created_at, m.updated_at, m.session_id, "
    "m.source, m.keywords, m.content, m.meta_json, m.chunk_count, "
    "a.access_count, a.last_accessed, a.importance"
)
FROM_MEMORIES = "memories m LEFT JOIN access_stats a ON a.memory_id = m.id"


def parse_dt(value: str | None) -> datetime | None:
    if not value:
        return None
    dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


_MEMORY_COLUMNS = (
    "title, category, file_path, salience, created_at, updated_at, session_id, source, keywords, content, "
    "meta_json, file_mtime_ns, file_size, superseded_by, expires_at, scope, memory_type, pinned, unreadable"
)
_INSERT_MEMORY = f"INSERT INTO memories ({_MEMORY_COLUMNS}, id) VALUES ({', '.join('?' * (_MEMORY_COLUMNS.count(',') + 2))})"
_INSERT_MEMORY_PK = f"INSERT INTO memories (pk, {_MEMORY_COLUMNS}, id) VALUES ({', '.join('?' * (_MEMORY_COLUMNS.count(',') + 3))})"
_INSERT_FTS = "INSERT INTO memories_fts (rowid, title, content, keywords, stems) VALUES (?, ?, ?, ?, ?)"
_UPDATE_MEMORY = f"UPDATE memories SET {', '.join(c.strip() + ' = ?' for c in _MEMORY_COLUMNS.split(','))} WHERE pk = ?"


class QueuedRecalls(Protocol):
    """Recalls queued and written in batches (core/lifecycle/recalls.py RecallWriter)."""

    def settle(self, store: IndexStore) -> None: ...

    def reading(self) -> AbstractContextManager[None]: ...

    def overlay(self, store: IndexStore, items: list[MemoryItem]) -> list[MemoryItem]: ...


@dataclass(frozen=True, slots=True)
class IndexedFile:
    pk: int
    id: str
    file_path: str
    mtime_ns: int
    size: int


class IndexStore:
    """Owns one connection. Not thread-safe: lives on the thread that opened it."""

    def __init__(self, conn: Connection, root: Path, checkpoint_gap_s: float = GAP_S):
        self.conn = conn
        self.root = root
        self._root_str = str(root)
        self.vectors = VectorTable(conn)
        self.graph_rows = graph.GraphRows(conn)
        self._depth = 0
        self._content_changed = False
        # Its thread starts at the first transaction(checkpoint=False).
        self._checkpointer = Checkpointer(getattr(conn, "path", ":memory:"), checkpoint_gap_s)
        self._recalls: QueuedRecalls | None = None
        # (mtime_ns, size) of the files whose problem this process recorded from their bytes alone: a sync skips
        # them while both are unchanged (see indexing._compare). In memory only: a new version of the app, which
        # may read what this one cannot, reads them again at its first sync.
        self._problem_stats: dict[str, tuple[int, int]] = {}

    @classmethod
    def open(cls, path: Path, root: Path, checkpoint_gap_s: float = GAP_S, *, progress: ProgressFn | None = None,
             cancel: CancelToken | None = None, map_large: bool = True) -> IndexStore:
        """``progress`` and ``cancel``: an older index's migrations (see migrations.Report); ``map_large``: see
        db.connect."""
        conn = connect(path, map_large=map_large)
        try:
            bulk.restore_if_pending(conn)  # before migrating: the statements kept are of the schema as it was
            migrations.migrate(conn, progress, cancel)
            return cls(conn, root, checkpoint_gap_s)
        except BaseException:
            conn.close()
            raise

    def close(self) -> None:
        """Stop the checkpoint thread (a checkpoint under way ends first), then close the connection."""
        self._checkpointer.close()
        self.conn.close()

    # -- queued recalls -------------------------------------------------------------------------------

    def settle_with(self, recalls: QueuedRecalls) -> None:
        """The recalls this store's engine queues and writes in batches (core/lifecycle/recalls.py): memories
        read here count them in; SQL that sorts or sums by them, and every write transaction, has them written
        first (``settle``)."""
        self._recalls = recalls

    def settle(self) -> None:
        """The queued recalls written now, in a transaction of their own (see settle_with). Inside a transaction
        nothing is written: the transaction began settled."""
        if self._recalls is not None and self._depth == 0:
            self._recalls.settle(self)

    def _items(self, read: Callable[[], list[MemoryItem]]) -> list[MemoryItem]:
        """Memories as ``read`` from their rows, with the recalls queued and not yet written counted in."""
        if self._recalls is None:
            return read()
        with self._recalls.reading():
            return self._recalls.overlay(self, read())

    # -- transactions ---------------------------------------------------------------------------------

    @contextmanager
    def transaction(self, *, checkpoint: bool = True, settle: bool = True) -> Iterator[None]:
        """Outermost call is a write transaction; nested calls are savepoints that roll back on their own.
        ``checkpoint=False`` (a search's access record): a thread of its own copies the pages into the database
        soon after (core/index/checkpoints.py), so the commit that finds the WAL past SQLite's threshold has
        little left to copy. ``settle=False``: the queued recalls' own transaction (see settle_with)."""
        depth = self._depth
        name = f"sp{depth}"
        if settle:
            self.settle()
        self.conn.execute("BEGIN IMMEDIATE" if depth == 0 else f"SAVEPOINT {name}")
        self._depth += 1
        try:
            yield
            if depth == 0 and self._content_changed:
                self._bump_content_version()
        except BaseException:
            self._depth -= 1
            self.vectors.forget()  # its in-memory copy may hold rows that were just rolled back
            if depth == 0:
                self._content_changed = False
            # SQLite has already rolled the whole transaction back after some errors (a full disk, an I/O
            # error): then there is nothing left to roll back, and trying would hide the error.
            if not self.conn.in_transaction:
                raise
            if depth == 0:
                self.conn.execute("ROLLBACK")
            else:
                self.conn.execute(f"ROLLBACK TO {name}")
                self.conn.execute(f"RELEASE {name}")
            raise
        self._depth -= 1
        self.conn.execute("COMMIT" if depth == 0 else f"RELEASE {name}")
        if depth == 0 and not checkpoint and not self._checkpointer.failed:
            self._checkpointer.committed()

    def _touched(self) -> None:
        """Memory rows changed: other processes learn it from ``content_version`` (core/changes.py), bumped
        once per transaction rather than by a per-row trigger (which cost a fifth of a rebuild)."""
        if self._depth == 0:
            self._bump_content_version()
        else:
            self._content_changed = True

    def _bump_content_version(self) -> None:
        self.conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'content_version'")
        self._content_changed = False

    # -- meta -----------------------------------------------------------------------------------------

    def data_version(self) -> int:
        """Moves when another connection commits (SQLite's ``PRAGMA data_version``): free to read."""
        return self.conn.execute("PRAGMA data_version").fetchone()[0]

    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str | None) -> None:
        if value is None:
            self.conn.execute("DELETE FROM meta WHERE key = ?", (key,))
        else:
            self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- memories -------------------------------------------------------------------------------------

    def upsert(self, item: MemoryItem, rel: str, mtime_ns: int, size: int, *, fresh: bool = False) -> int:
        """Insert or replace the row and its full-text entry. Chunks are dropped when the content changed.
        ``fresh``: the caller knows neither the id nor the path is indexed (a rebuild), so no lookups."""
        return self.write_row(memory_row(item, rel, mtime_ns, size), fresh=fresh)

    def write_row(self, row: MemoryRow, *, fresh: bool = False) -> int:
        """``upsert`` for a row made beforehand (see ``memory_row``)."""
        found = None if fresh else self.conn.execute("SELECT pk FROM memories WHERE id = ?", (row.id,)).fetchone()
        if found is None:
            # A different memory may still hold this path (file rewritten with a new id). Looked up before it is
            # deleted: a DELETE that finds nothing cost 200-400 us of CPU after each INSERT of a batch's
            # rows, the lookup 30 us (save_batch of 1,000 short memories).
            if not fresh and (held := self.conn.execute("SELECT pk FROM memories WHERE file_path = ?",
                                                        (row.values[2],)).fetchone()) is not None:
                self._delete_pk(held[0])  # with its full-text entry, chunks and postings, as a delete
            cur = self.conn.execute(_INSERT_MEMORY, (*row.values, row.id))
            pk = cur.lastrowid
        else:
            pk = found[0]
            self.conn.execute(_UPDATE_MEMORY, (*row.values, pk))
            self.conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (pk,))
        self.conn.execute(_INSERT_FTS, (pk, *row.fts))
        postings.written(self.conn, [(pk, *row.fts[:3])])
        graph.write(self.conn, pk, row.mentions, row.edges, row.names, replace=found is not None)
        self._touched()
        return pk

    def insert_rows(self, rows: Sequence[MemoryRow]) -> None:
        """``write_row(row, fresh=True)`` for many rows at once, one statement per table: the rows get the
        numbers one insert after another would give them (the next after the highest), in order."""
        if not rows:
            return
        first = self.conn.execute("SELECT COALESCE(MAX(pk), 0) + 1 FROM memories").fetchone()[0]
        numbered = list(zip(range(first, first + len(rows)), rows, strict=True))
        self.conn.executemany(_INSERT_MEMORY_PK, [(pk, *row.values, row.id) for pk, row in numbered])
        self.conn.executemany(_INSERT_FTS, [(pk, *row.fts) for pk, row in numbered])
        postings.written(self.conn, [(pk, *row.fts[:3]) for pk, row in numbered])
        graph.insert_many(self.conn, [(pk, row.mentions, row.edges, row.names) for pk, row in numbered])
        self._touched()

    # -- bulk loading (core/index/bulk.py) ------------------------------------------------------------

    def drop_secondary_indexes(self) -> None:
        """Before filling empty tables in bulk; ``restore_indexes`` after. Call in a transaction."""
        bulk.drop_indexes(self.conn)

    def restore_steps(self) -> int:
        """How many ``restore_step`` calls make the indexes a bulk load dropped."""
        return bulk.steps(self.conn)

    def restore_step(self) -> int:
        """One of them made before the load ends (an index, or a count with its triggers); returns the steps left."""
        with self.transaction():
            return bulk.restore_step(self.conn)

    def restore_indexes(self) -> None:
        """The end of a bulk load: its secondary indexes made again, and the file's mapping fitted to its new size."""
        with self.transaction():
            bulk.restore(self.conn)
        refit_mmap(self.conn)

    def delete(self, memory_id: str) -> bool:
        row = self.conn.execute("SELECT pk FROM memories WHERE id = ?", (memory_id,)).fetchone()
        if row is None:
            return False
        self._delete_pk(row[0])
        return True

    def delete_path(self, rel: str) -> None:
        row = self.conn.execute("SELECT pk FROM memories WHERE file_path = ?", (rel,)).fetchone()
        if row is not None:
            self._delete_pk(row[0])

    def _delete_pk(self, pk: int) -> None:
        self.clear_chunks(pk)
        self.conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (pk,))
        postings.deleted(self.conn, [pk])
        self.conn.execute("DELETE FROM memories WHERE pk = ?", (pk,))
        self._touched()

    def drop_cache(self) -> None:
        """The connection's page cache emptied (it refills from the OS's as pages are read again): after a scan of
        every row (a full sync, Vault health) it holds the scan's last 64 MB, nothing the next request needs."""
        self.conn.execute("PRAGMA shrink_memory")

    def optimize_fulltext(self) -> None:
        """Merge the full-text index into one segment: a rebuild leaves one per transaction, and every query
        reads all of them (100k memories: 0.4-0.8 s once, a keyword search 7% faster after)."""
        self.conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")

    def clear_all(self) -> None:
        """Drop every derived row (access statistics stay: they cannot be rebuilt from files)."""
        self.conn.execute("DELETE FROM memory_chunks")
        graph.clear(self.conn)  # before the memories: a cascade per row would cost a tenth of a rebuild
        # 'delete-all' drops the segments; a plain DELETE would leave a tombstone per row for merges to carry.
        self.conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('delete-all')")
        postings.clear(self.conn)
        unreadable.clear(self.conn)  # before the memories, as the graph: the rows to come bring theirs
        self.conn.execute("DELETE FROM memories")
        self._touched()
        self.conn.execute("DELETE FROM vault_problems")
        self._problem_stats.clear()
        self.vectors.clear()

    def clear_all_at_once(self) -> None:
        """``clear_all`` in a transaction of its own, with foreign keys unchecked meanwhile: every table that refers
        to the memories is emptied in it too, and with them checked SQLite deleted row by row, looking up each
        row's children (2.4 s of a 100k rebuild; 0.15 s as whole-table deletes). Outside a transaction only:
        inside one the pragma does nothing (the clear is then checked, and slower)."""
        self.conn.execute("PRAGMA foreign_keys = OFF")
        try:
            with self.transaction():
                self.clear_all()
        finally:
            self.conn.execute("PRAGMA foreign_keys = ON")

    def row_to_item(self, row: Sequence[Any]) -> MemoryItem:
        meta = json.loads(row[12]) if row[12] else {}
        override = meta.get("importance_override")
        optional: dict[str, Any] = {}
        for key, value in meta.items():
            if key in _TUPLES:
                value = tuple(value)
            elif key in ("expires_at", "raw_expires_at"):
                value = parse_dt(value)
            optional[key] = value
        return MemoryItem(
            id=row[1],
            title=row[2],
            category=row[3],
            file_path=self._abs(row[4]),
            salience=row[5],
            created_at=parse_dt(row[6]),  # type: ignore[arg-type]
            updated_at=parse_dt(row[7]),  # type: ignore[arg-type]
            session_id=row[8],
            source=row[9],
            keywords=tuple(json.loads(row[10])),
            content=row[11],
            chunk_count=row[13],
            access_count=row[14] or 0,
            last_accessed=parse_dt(row[15]),
            importance=override if override is not None else (row[16] if row[16] is not None else 0.5),
            **optional,
        )

    def _abs(self, rel: str) -> str:
        # str(root / rel) without pathlib, which was a fifth of turning rows into items (search, list pages).
        return os.path.join(self._root_str, rel if os.sep == "/" else rel.replace("/", os.sep))

    def get(self, memory_id: str) -> MemoryItem | None:
        found = self._items(lambda: [self.row_to_item(r) for r in self.conn.execute(
            f"SELECT {MEMORY_COLUMNS} FROM {FROM_MEMORIES} WHERE m.id = ?", (memory_id,))])
        return found[0] if found else None

    def get_many(self, ids: Iterable[str]) -> dict[str, MemoryItem]:
        return {it.id: it for it in self._items(lambda: [self.row_to_item(r) for r in self._rows_where("m.id", ids)])}

    def get_by_pks(self, pks: Iterable[int]) -> dict[int, MemoryItem]:
        rows: list = []

        def read() -> list[MemoryItem]:
            rows.extend(self._rows_where("m.pk", pks))
            return [self.row_to_item(r) for r in rows]

        items = self._items(read)
        return {row[0]: it for row, it in zip(rows, items, strict=True)}

    def items_where(self, where_order: str, params: Sequence) -> list[MemoryItem]:
        """The memories of a WHERE clause and its ORDER BY (listing's pages), queued recalls counted in."""
        return self._items(lambda: [self.row_to_item(r) for r in self.conn.execute(
            f"SELECT {MEMORY_COLUMNS} FROM {FROM_MEMORIES} WHERE {where_order}", params)])

    def _rows_where(self, column: str, values: Iterable) -> list:
        values = list(values)
        out: list = []
        for i in range(0, len(values), 500):
            part = values[i : i + 500]
            marks = ",".join("?" * len(part))
            out += self.conn.execute(f"SELECT {MEMORY_COLUMNS} FROM {FROM_MEMORIES} WHERE {column} IN ({marks})", part)
        return out

    def file_info(self, memory_id: str) -> IndexedFile | None:
        row = self.conn.execute(
            "SELECT pk, id, file_path, file_mtime_ns, file_size FROM memories WHERE id = ?", (memory_id,)
        ).fetchone()
        return IndexedFile(*row) if row else None

    def imported_without_fingerprint(self) -> dict[str, list[str]]:
        """Source path -> ids of the memories imported from it before imports recorded fingerprints (their ids
        were random, so importing the file again cannot find them by id). One scan, for an import to reuse."""
        out: dict[str, list[str]] = {}
        for mid, source in self.conn.execute(
                "SELECT id, json_extract(meta_json, '$.provenance.source') FROM memories "
                "WHERE json_extract(meta_json, '$.provenance.source') IS NOT NULL "
                "AND json_extract(meta_json, '$.provenance.fingerprint') IS NULL"):
            if isinstance(source, str):
                out.setdefault(source, []).append(mid)
        return out

    def paths(self) -> Iterator[str]:
        """Every memory's file path in path order, streamed (the unique index's order: no sort)."""
        for (path,) in self.conn.execute("SELECT file_path FROM memories ORDER BY file_path"):
            yield path

    def id_at(self, rel: str) -> str | None:
        row = self.conn.execute("SELECT id FROM memories WHERE file_path = ?", (rel,)).fetchone()
        return row[0] if row else None

    def indexed_stats(self, paths: Sequence[str]) -> dict[str, tuple[int, int]]:
        """file path -> (mtime_ns, size) as indexed, for those of ``paths`` the index holds."""
        out: dict[str, tuple[int, int]] = {}
        for i in range(0, len(paths), 500):
            part = paths[i : i + 500]
            marks = ",".join("?" * len(part))
            for path, mtime_ns, size in self.conn.execute(
                    f"SELECT file_path, file_mtime_ns, file_size FROM memories WHERE file_path IN ({marks})", part):
                out[path] = (mtime_ns, size)
        return out

    def folder_counts(self) -> dict[str, int]:
        """Top folder (the path up to its first '/'; '' for a path without one) -> memories indexed there."""
        return dict(self.conn.execute(
            "SELECT substr(file_path, 1, instr(file_path, '/') - 1), COUNT(*) FROM memories GROUP BY 1"))

    def paths_in_folder(self, folder: str) -> list[str]:
        """The indexed file paths below the top folder ``folder`` (see ``folder_counts``)."""
        if not folder:
            return [r[0] for r in self.conn.execute("SELECT file_path FROM memories WHERE instr(file_path, '/') = 0")]
        # A range of the unique index on file_path: '0' is the character after '/'.
        return [r[0] for r in self.conn.execute(
            "SELECT file_path FROM memories WHERE file_path >= ? AND file_path < ?", (f"{folder}/", f"{folder}0"))]

    def holder_of(self, memory_id: str) -> str | None:
        """The file path indexed for ``memory_id``."""
        row = self.conn.execute("SELECT file_path FROM memories WHERE id = ?", (memory_id,)).fetchone()
        return row[0] if row else None

    def files_under(self, prefix: str) -> dict[str, tuple[int, int]]:
        """file path -> (mtime_ns, size) as indexed, for the memories whose files start with ``prefix``."""
        rows = self.conn.execute(
            "SELECT file_path, file_mtime_ns, file_size FROM memories WHERE substr(file_path, 1, ?) = ?",
            (len(prefix), prefix))
        return {r[0]: (r[1], r[2]) for r in rows}

    def embedded_fields(self, memory_id: str) -> tuple[str, str, str | None] | None:
        """(title, content, summary) as indexed: what the memory's vectors were made from."""
        row = self.conn.execute(
            "SELECT title, content, json_extract(meta_json, '$.summary') FROM memories WHERE id = ?", (memory_id,)
        ).fetchone()
        return tuple(row) if row is not None else None  # type: ignore[return-value]

    def pk_of(self, memory_id: str) -> int | None:
        row = self.conn.execute("SELECT pk FROM memories WHERE id = ?", (memory_id,)).fetchone()
        return row[0] if row else None

    def set_salience(self, memory_id: str, salience: float) -> None:
        self.conn.execute("UPDATE memories SET salience = ? WHERE id = ?", (salience, memory_id))
        self._touched()

    def count(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]

    def has_terms(self, words: Sequence[str]) -> list[bool]:
        """Whether any memory contains each word (as the full-text index reads it: stemmed, case-folded)."""
        if not words:
            return []
        probes = ", ".join(["EXISTS (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ?)"] * len(words))
        phrases = [f"{TEXT_COLUMNS} : {phrase(w)}" for w in words]
        return [bool(v) for v in self.conn.execute(f"SELECT {probes}", phrases).fetchone()]

    # -- chunks ---------------------------------------------------------------------------------------

    def clear_chunks(self, pk: int) -> None:
        ids = [r[0] for r in self.conn.execute("SELECT chunk_id FROM memory_chunks WHERE memory_pk = ?", (pk,))]
        if ids:
            self.vectors.delete(ids)
            self.conn.execute("DELETE FROM memory_chunks WHERE memory_pk = ?", (pk,))
        self.conn.execute("UPDATE memories SET chunk_count = 0, embed_hash = NULL WHERE pk = ?", (pk,))
        self._touched()

    def set_chunks(self, pk: int, chunks: Sequence[tuple[int, int, int, str]], vectors: Sequence[Any], embed_hash: str) -> None:
        """Replace a memory's chunks: ``chunks`` are (index, start, end, text), one vector each."""
        self.clear_chunks(pk)
        for (index, start, end, text), vec in zip(chunks, vectors, strict=True):
            cur = self.conn.execute(
                "INSERT INTO memory_chunks (memory_pk, chunk_index, start_char, end_char, content_snippet) "
                "VALUES (?, ?, ?, ?, ?)",
                (pk, index, start, end, text),
            )
            self.vectors.insert(cur.lastrowid, vec)
        self.conn.execute(
            "UPDATE memories SET chunk_count = ?, embed_hash = ? WHERE pk = ?", (len(chunks), embed_hash, pk)
        )
        self._touched()

    def drop_all_vectors(self) -> None:
        self.conn.execute("DELETE FROM memory_chunks")
        self.conn.execute("UPDATE memories SET chunk_count = 0, embed_hash = NULL")
        self._touched()
        self.vectors.drop()

    def unembedded_ids(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT id FROM memories WHERE chunk_count = 0 ORDER BY pk")]

    def unembedded_pks(self, pks: Iterable[int]) -> set[int]:
        """Those of ``pks`` whose memory exists and has no vectors yet."""
        wanted = [int(p) for p in pks]
        found: set[int] = set()
        for i in range(0, len(wanted), 500):
            part = wanted[i : i + 500]
            marks = ",".join("?" * len(part))
            found.update(r[0] for r in self.conn.execute(
                f"SELECT pk FROM memories WHERE chunk_count = 0 AND pk IN ({marks})", part))
        return found

    def unembedded_count(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM memories WHERE chunk_count = 0").fetchone()[0]

    def chunk_texts(self, chunk_ids: Iterable[int]) -> dict[int, tuple[int, str]]:
        """chunk_id -> (memory pk, snippet)."""
        ids = list(chunk_ids)
        out: dict[int, tuple[int, str]] = {}
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            marks = ",".join("?" * len(part))
            for cid, pk, text in self.conn.execute(
                f"SELECT chunk_id, memory_pk, content_snippet FROM memory_chunks WHERE chunk_id IN ({marks})", part
            ):
                out[cid] = (pk, text)
        return out

    # -- access statistics ----------------------------------------------------------------------------

    def record_access(self, memory_ids: Iterable[str], when: datetime | None = None, kind: str = "get") -> None:
        stamp = format_dt(when or utcnow())
        rows = [(mid, stamp) for mid in dict.fromkeys(memory_ids)]
        self.conn.executemany(
            "INSERT INTO access_stats (memory_id, access_count, last_accessed) VALUES (?, 1, ?) "
            "ON CONFLICT(memory_id) DO UPDATE SET access_count = access_count + 1, last_accessed = excluded.last_accessed",
            rows,
        )
        self.conn.executemany(
            "INSERT INTO access_log (memory_id, accessed_at, kind) VALUES (?, ?, ?)", [(*r, kind) for r in rows]
        )

    # -- vault problems -------------------------------------------------------------------------------

    def set_problem(self, rel: str, reason: str, file_stat: tuple[int, int] | None = None) -> None:
        """``file_stat``: the (mtime_ns, size) of the bytes the problem is about (kept in this process only)."""
        self.conn.execute(
            "INSERT OR REPLACE INTO vault_problems (file_path, reason, seen_at) VALUES (?, ?, ?)",
            (rel, reason, format_dt(utcnow())),
        )
        if file_stat is None:
            self._problem_stats.pop(rel, None)
        else:
            self._problem_stats[rel] = file_stat

    def clear_problem(self, rel: str) -> None:
        self.conn.execute("DELETE FROM vault_problems WHERE file_path = ?", (rel,))
        self._problem_stats.pop(rel, None)

    def problem_stat(self, rel: str) -> tuple[int, int] | None:
        """The (mtime_ns, size) this process recorded ``rel``'s problem for, if it was about its bytes alone."""
        return self._problem_stats.get(rel)

    def problem_of(self, rel: str) -> str | None:
        row = self.conn.execute("SELECT reason FROM vault_problems WHERE file_path = ?", (rel,)).fetchone()
        return row[0] if row else None

    def problem_paths_under(self, prefix: str) -> set[str]:
        return {r[0] for r in self.conn.execute(
            "SELECT file_path FROM vault_problems WHERE substr(file_path, 1, ?) = ?", (len(prefix), prefix))}

    def missing(self, memory_id: str) -> MemoryNotFoundError:
        """The error for an id the index does not hold, saying how many files could not be read: a memory whose
        file a merge broke is not listed, and its id is then not found though its file is there."""
        unreadable = self.conn.execute("SELECT count(*) FROM vault_problems").fetchone()[0]
        return MemoryNotFoundError(memory_id, unreadable=unreadable)

    def problems(self) -> list[VaultProblem]:
        return [VaultProblem(p, r) for p, r in self.conn.execute("SELECT file_path, reason FROM vault_problems ORDER BY 1")]
