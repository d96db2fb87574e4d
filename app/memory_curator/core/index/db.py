"""Opening the index database. The one place that knows which SQLite binding we use.

Python's own ``sqlite3`` is often built without ``enable_load_extension`` (as on Debian's and pyenv's
builds), so sqlite-vec cannot load through it. ``sqlean.py`` bundles a current SQLite with extension
loading and FTS5 and keeps the ``sqlite3`` DB-API, so the rest of the engine is ordinary DB-API code.
"""

from __future__ import annotations

from pathlib import Path

import sqlean as sqlite
import sqlite_vec

from memory_curator.core.errors import IndexError_

DatabaseError = sqlite.DatabaseError
OperationalError = sqlite.OperationalError
IntegrityError = sqlite.IntegrityError
Connection = sqlite.Connection
complete_statement = sqlite.complete_statement

BUSY_TIMEOUT_MS = 15_000


def connect(path: Path | str) -> Connection:
    """A connection with sqlite-vec loaded, WAL journaling and a generous busy timeout, so that the app,
    the CLI and the servers can share one vault without "database is locked" reaching a user."""
    try:
        conn = sqlite.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
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
        conn.execute("PRAGMA mmap_size = 268435456")
    except sqlite.DatabaseError as exc:
        raise IndexError_(f"Cannot open the index {path}: {exc}") from exc
    return conn


def sqlite_version() -> str:
    return sqlite.sqlite_version


def is_corruption(exc: BaseException) -> bool:
    msg = str(exc).lower()
    return isinstance(exc, sqlite.DatabaseError) and (
        "malformed" in msg or "not a database" in msg or "corrupt" in msg or "file is encrypted" in msg
    )
