"""Opening the index database. The one place that knows which SQLite binding we use.

Python's own ``sqlite3`` is often built without ``enable_load_extension`` (as on Debian's and pyenv's
builds), so sqlite-vec cannot load through it. ``sqlean.py`` bundles a current SQLite with extension
loading and FTS5 and keeps the ``sqlite3`` DB-API, so the rest of the engine is ordinary DB-API code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlean as sqlite
import sqlite_vec

from memory_curator.core.errors import CuratorError, IndexBusy, IndexError_, StorageError

DatabaseError = sqlite.DatabaseError
OperationalError = sqlite.OperationalError
IntegrityError = sqlite.IntegrityError
Connection = sqlite.Connection
complete_statement = sqlite.complete_statement

BUSY_TIMEOUT_MS = 15_000
# SQLite reads the mapped part of the file in place instead of copying each page it lacks into its cache with a
# read() call. An index file up to MMAP_WHOLE_MAX is mapped whole: at 100,000 memories most of a hybrid search's
# pages (a float16 row per member, the re-ranked chunks, their memories' rows) lie past the first 256 MB, and
# mapping the whole 0.96 GB file made hybrid and semantic searches 0.91 x per query (memory_vectors 0.73 x). A
# larger index maps MMAP_BYTES only: mapped pages count in the process's resident memory (VmRSS, what the app's
# memory figure at 1,000,000 measures), and there the search's pages are cold anyway (an mmap of the 9 GB file
# made its reads no cheaper).
# Only a connection that searches maps that part (``map_large``): each mapping of the same pages counts again in
# VmRSS, and in the app at 1,000,000 three mappings (the writer's, the reader's and Vault health's lanes) held
# 183 + 99 + 23 MB of the file at the end of bench/gui_list_scroll.py, though only the reader searches.
MMAP_BYTES = 256 * 2**20
MMAP_WHOLE_MAX = 3 * 2**29  # 1.5 GiB


def _null(value: None) -> None:
    return value


# sqlean's binding finds no adapter for None and then asks the object for ``__conform__``, raising and formatting an
# AttributeError for every None it binds: 1.6 us each, 7 us of each memory row (its unset optional columns), 0.7 s of
# a 100,000-file rebuild's writing. Found in the registry, a None costs 0.17 us and is bound as NULL all the same.
sqlite.register_adapter(type(None), _null)
REBUILD_HINT = "rebuild it (Rebuild index in the app's Vault health pane, or `memory-curator rebuild`): the memories are safe in their files"


def environment_error(exc: BaseException, path: Path | str) -> CuratorError | None:
    """SQLite's errors that come from the user's machine (a lock held elsewhere, a full or read-only disk, a
    failing drive, a damaged file) as the engine's errors, with what to do; None for anything else, which is
    a bug of ours and keeps its traceback (as qutebrowser's misc/sql.py splits them)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if not isinstance(exc, sqlite.DatabaseError) or code is None:
        return None
    primary = code & 0xFF  # extended codes (SQLITE_IOERR_WRITE...) keep the primary one in their low byte
    if primary == sqlite.SQLITE_BUSY:
        return IndexBusy(
            f"The vault's index ({path}) stayed locked by another program for {BUSY_TIMEOUT_MS // 1000} s (another "
            "Memory Curator in the middle of a long change, a backup, or a database browser with it open). "
            "Try again in a moment, or close that program.")
    if primary == sqlite.SQLITE_FULL:
        return StorageError(f"The disk holding the vault is full: the index ({path}) could not grow. "
                            "Free some space on it, then try again.")
    if primary in (sqlite.SQLITE_READONLY, sqlite.SQLITE_PERM, sqlite.SQLITE_CANTOPEN):
        return StorageError(
            f"The vault's index ({path}) cannot be written: the vault is on a read-only disk, or your user may not "
            "write to its folder and index.db files. Make them writable, or open a copy of the vault from a "
            "writable place.")
    if primary == sqlite.SQLITE_IOERR:
        return StorageError(
            f"The disk reported an error reading or writing the vault's index ({path}). Check the disk (and that "
            f"a network or removable drive is still connected); if it keeps happening, {REBUILD_HINT}.")
    if primary in (sqlite.SQLITE_CORRUPT, sqlite.SQLITE_NOTADB):
        return IndexError_(f"The vault's index ({path}) is damaged; {REBUILD_HINT}.")
    return None


class _Connection(sqlite.Connection):
    """Statements whose failure lies in the user's environment raise the engine's errors (environment_error);
    every statement of the engine runs through ``execute`` or ``executemany`` here, the first step included."""

    path = "index.db"  # set by connect
    map_large = True  # set by connect

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite.Cursor:
        try:
            return super().execute(sql, parameters)
        except sqlite.DatabaseError as exc:
            raise (environment_error(exc, self.path) or exc) from exc

    def executemany(self, sql: str, parameters: Any, /) -> sqlite.Cursor:
        try:
            return super().executemany(sql, parameters)
        except sqlite.DatabaseError as exc:
            raise (environment_error(exc, self.path) or exc) from exc


def connect(path: Path | str, *, map_large: bool = True) -> Connection:
    """A connection with sqlite-vec loaded, WAL journaling and a generous busy timeout, so that the app,
    the CLI and the servers can share one vault without "database is locked" reaching a user (and when another
    program holds it longer, IndexBusy says so: see environment_error). ``map_large`` False: a large index is
    not mapped at all (see MMAP_BYTES)."""
    try:
        conn = sqlite.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, factory=_Connection)
    except sqlite.DatabaseError as exc:
        raise (environment_error(exc, path) or IndexError_(f"Cannot open the index {path}: {exc}")) from exc
    conn.path = str(path)
    conn.map_large = map_large
    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if str(path) != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA temp_store = MEMORY")
        conn.execute("PRAGMA cache_size = -65536")
        conn.execute(f"PRAGMA mmap_size = {mmap_size(path, map_large=map_large)}")
    except BaseException as exc:
        conn.close()  # a vault on a disk that was unplugged or made read-only must not stay busy
        if isinstance(exc, sqlite.DatabaseError):
            raise IndexError_(f"Cannot open the index {path}: {exc}") from exc
        raise
    return conn


def refit_mmap(conn: Connection) -> None:
    """The mapped size chosen again for the file as it is now: a connection opened on a new or emptied index maps
    up to MMAP_WHOLE_MAX, and a fill from nothing (a vault cloned without its index, a rebuild) can leave the
    file far larger (9 GB at 1,000,000 memories), with a gigabyte and a half of it mapped into the app's memory."""
    conn.execute(f"PRAGMA mmap_size = {mmap_size(conn.path, map_large=conn.map_large)}")


def mmap_size(path: Path | str, *, map_large: bool = True) -> int:
    """How much of the index file a connection maps (see MMAP_WHOLE_MAX): the whole file, with room to grow, while
    it is small enough (a file that is not there yet, a new index, is); past that MMAP_BYTES, or nothing when not
    ``map_large``."""
    try:
        size = Path(path).stat().st_size
    except OSError:
        size = 0
    if size <= MMAP_WHOLE_MAX:
        return MMAP_WHOLE_MAX
    return MMAP_BYTES if map_large else 0


def sqlite_version() -> str:
    return sqlite.sqlite_version


def is_corruption(exc: BaseException) -> bool:
    msg = str(exc).lower()
    return isinstance(exc, sqlite.DatabaseError) and (
        "malformed" in msg or "not a database" in msg or "corrupt" in msg or "file is encrypted" in msg
    )
