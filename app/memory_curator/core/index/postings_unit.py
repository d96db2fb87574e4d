"""The kept postings (core/index/postings.py) built and folded back in the background, in short steps.

Building them for a 1,000,000-memory vault takes minutes of a core; done in the opening migration it held the
vault closed that long (115-559 s). This unit does it on a thread of its own, with its own connection, while
searches answer from FTS5 (postings.ranked waits for a complete base): a few words at a time, each read in a
read transaction of its own (a very common word takes seconds to read) and written in a write transaction of a
few tens of milliseconds, with a pause after each so the writers of every process (the app, the CLI, the
servers) get the lock. A close or a kill between steps loses nothing: the next unit goes on from the words
written. Only one process builds at a time (a file lock, released by the OS if the process dies). The same unit
folds the rows written since back into the words' entries once there are ``fold_at`` of them, and then adds the
words those writes made common.

Long-running processes kick it (their polls: the app's writer, the servers); a command-line process does not:
its ``rebuild`` and ``maintain`` run it to the end (core/index/upkeep.py).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from memory_curator.core.config import MemoryConfig
from memory_curator.core.index import postings
from memory_curator.core.index.db import Connection, connect
from memory_curator.core.kicked import IDLE, SteppedUnit

LOCK_NAME = "keyword-postings.lock"
STEP_S = 0.05  # a write transaction's budget (the words read before it are written in one)
READ_S = 0.2  # a read transaction's budget (a very common word alone may take seconds)
RETRY_S = 60.0  # after a failure (a read-only vault, a full disk) the polls' kicks wait this long
BUILDING, FOLDING = "building", "folding"  # the unit's states besides idle and closed: done of total words


@contextmanager
def _transaction(conn: Connection, write: bool) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


class PostingsUnit(SteppedUnit):
    WHAT = "Building the keyword postings"  # searches answer from FTS5 meanwhile
    SHOWN = {BUILDING: "Building the keyword index"}  # minutes at 1,000,000 memories; a fold's seconds are not
    MEANWHILE = "Keyword search answers meanwhile, more slowly on a large vault"

    def __init__(self, index_path: Path, state_dir: Path, *, min_rows: int = postings.MIN_ROWS,
                 common: int = postings.COMMON, fold_at: int = postings.FOLD_AT, pause_s: float = STEP_S,
                 retry_s: float = RETRY_S):
        self._path, self._lock_path = index_path, Path(state_dir) / LOCK_NAME
        self._min_rows, self._common, self._fold_at = min_rows, common, fold_at
        super().__init__("memory-curator-postings", pause_s, retry_s)

    @classmethod
    def of(cls, index_path: Path, state_dir: Path, config: MemoryConfig) -> PostingsUnit:
        return cls(index_path, state_dir, min_rows=config.postings_min_rows, common=config.postings_common,
                   fold_at=config.postings_fold_at)

    # -- the thread -----------------------------------------------------------------------------------

    def _open(self) -> Connection:
        return connect(self._path)

    def _serve(self, conn: Connection) -> bool:
        try:
            with _transaction(conn, write=False):
                need = postings.pending(conn, min_rows=self._min_rows, fold_at=self._fold_at)
            if need is None:
                return False
            lock = FileLock(self._lock_path, mode=0o644, thread_local=False)
            try:
                lock.acquire(blocking=False)
            except Timeout:
                return False  # another process builds; a later kick looks again
            try:
                self._build(conn) if need == "build" else self._fold(conn)
            finally:
                lock.release()
            return False  # writes to come will need folding back
        finally:
            self._set(IDLE)

    def _build(self, conn: Connection) -> None:
        with _transaction(conn, write=True):
            epoch = postings.start(conn)
        with _transaction(conn, write=False):
            if postings.has_base(conn):
                return
            terms = postings.candidates(conn, self._common)
            sizes = postings.Sizes.read(conn)
        if not self._add(conn, epoch, terms, sizes, BUILDING):
            return  # the base was cleared (a rebuild) while this build ran
        with _transaction(conn, write=True):
            postings.finish(conn, epoch)

    def _add(self, conn: Connection, epoch: str, terms: list[str], sizes: postings.Sizes, state: str) -> bool:
        """Put these words in the base, a few at a time; False if the base was cleared meanwhile."""
        self._set(state, 0, len(terms))
        done = 0
        while done < len(terms):
            words, until = [], time.monotonic() + READ_S
            with _transaction(conn, write=False):
                while done + len(words) < len(terms) and (not words or time.monotonic() < until):
                    self._check()
                    words.append(postings.read_word(conn, terms[done + len(words)], sizes))
            since = time.monotonic()
            with _transaction(conn, write=True):
                if postings.epoch(conn) != epoch:
                    return False
                for word in words:
                    postings.put_word(conn, word, epoch)
            done += len(words)
            self._set(state, done, len(terms))
            self._pause(since)
        return True

    def _fold(self, conn: Connection) -> None:
        with _transaction(conn, write=False):  # the rows written up to now, read once for the whole pass
            stamp, epoch = postings.current_seq(conn), postings.epoch(conn)
            terms, written = postings.unfolded(conn, stamp), postings.Written.read(conn)
        self._set(FOLDING, 0, len(terms))
        done = 0
        while done < len(terms):
            self._check()
            since = time.monotonic()
            with _transaction(conn, write=True):
                done += postings.fold(conn, terms[done:], since + STEP_S, written, stamp)
            self._set(FOLDING, done, len(terms))
            self._pause(since)
        with _transaction(conn, write=True):
            postings.drop_folded(conn)
        # Words the writes since the build made common join the base as the build's words did (FTS5 read them
        # at ~1.5 us a row on every query); each fold looks again (4 s of reading at 1,000,000 rows).
        with _transaction(conn, write=False):
            terms = postings.candidates(conn, self._common)
            sizes = postings.Sizes.read(conn) if terms else None
        if sizes is not None and epoch is not None:
            self._add(conn, epoch, terms, sizes, FOLDING)
