"""A cheap "did anything change?" signal for a vault shared by several processes.

Two sources of change:
- another process wrote through the engine (the CLI, a server): SQLite's ``PRAGMA data_version`` moves when
  another connection commits, which costs one query to notice;
- another program touched the files (an editor, ``git pull``, a sync tool): adding, removing or renaming a
  file changes its folder's mtime, so the folders are stat'ed on every poll and a changed folder's files are
  compared with its index rows (when another engine process wrote them, they already agree and nothing more
  is done). An edit in place changes only the file: file events (``core/watching.py``, from the first poll
  on) name its folder, which is compared the same way. Where events do not reach (network and FUSE mounts,
  no native watcher, ``watch=False``) a full (stat-only) sync runs every ``full_scan_s`` seconds instead; with
  events it runs every ``WATCHED_FULL_SCAN_S``, for events the system may have dropped.

``poll`` is meant to run every half second or so on the thread that owns the service.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from memory_curator.core.index.store import IndexStore
from memory_curator.core.progress import Tracker
from memory_curator.core.vault.store import Vault
from memory_curator.core.watching import FileWatcher

FULL_SCAN_S = 5.0
WATCHED_FULL_SCAN_S = 300.0
# A full scan that took longer than SLOW_SCAN_S waits SCAN_COST_FACTOR times its own duration before the
# next one: on a 100,000-file vault (a scan of seconds) it costs a few percent of a core, not all of it.
SLOW_SCAN_S = 0.5
SCAN_COST_FACTOR = 20
CANCEL_EVERY = 500  # files of a changed folder compared between two looks at a poll's cancel


@dataclass(frozen=True)
class ChangeReport:
    index_changed: bool = False  # another process committed to the index
    files_changed: int = 0  # files added, changed or removed by other programs (now synced)

    @property
    def changed(self) -> bool:
        return self.index_changed or self.files_changed > 0


class _NotNow(Exception):
    """The sync could not run now (another process holds the write lock)."""


class ChangeMonitor:
    def __init__(self, store: IndexStore, vault: Vault, sync: Callable[[Tracker | None], int | None], *,
                 full_scan_s: float = FULL_SCAN_S, clock: Callable[[], float] = time.monotonic, watch: bool = True):
        self._store = store
        self._vault = vault
        # Syncs the index with the files (progress and cancel through the tracker): how many changed, or None
        # when it could not now.
        self._sync = sync
        self._full_scan_s = full_scan_s
        self._clock = clock
        self._data_version = self._read_data_version()
        self._content_version = self._read_content_version()
        self._folders = self._folder_signature()
        self._last_full = clock()
        self._scan_backoff = 0.0
        self._scanning = False  # a full sync is running (full_scan): a nested one counts once
        # Started by the first poll, not here: a CLI command opens the service and never polls.
        self._watch = watch
        self._watcher: FileWatcher | None = None
        # (mtime, size) of the files the index could not read, as last looked at: one fixed in place (an
        # editor repairing its YAML) is read again at once, not at the next full scan minutes later.
        self._problem_stats: dict[str, tuple[int, int]] = {}

    @property
    def watching(self) -> bool:
        """Whether file events are noticed (else only the periodic scan finds edits made in place)."""
        return self._watcher is not None

    def start_watching(self) -> None:
        """File events from now on (the first poll starts them otherwise). What changed before had no watcher to
        report it, so the next poll scans once, unless a full sync (``full_scan``) runs first: the app starts
        watching before its opening sync, which then counts as that scan (one full sync at opening, not two)."""
        if self._watch and self._watcher is None:
            self._watch = False  # one try: where it cannot start, the periodic scan stays
            self._watcher = FileWatcher.start(self._vault.root)
            self._last_full = float("-inf")

    @contextmanager
    def full_scan(self) -> Iterator[None]:
        """Around a full sync: the folders' mtimes are taken before it (a change made while it runs is seen by
        the next poll) and, once it has ended, it counts as the periodic scan. One that fails or is cancelled
        counts for nothing: the old view stays, so the next poll looks again."""
        if self._scanning:
            yield
            return
        self._scanning = True
        start, previous = self._clock(), self._folders
        self._folders = self._folder_signature()
        try:
            yield
        except BaseException:
            self._folders = previous
            raise
        finally:
            self._scanning = False
        self._last_full = self._clock()
        cost = self._last_full - start
        self._scan_backoff = cost * SCAN_COST_FACTOR if cost > SLOW_SCAN_S else 0.0

    def _watched_folders(self) -> set[str]:
        self.start_watching()
        if self._watcher is not None and not self._watcher.alive:
            self._watcher = None  # its thread died: back to the periodic scan
        return self._watcher.take() if self._watcher is not None else set()

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None

    def _read_data_version(self) -> int:
        return self._store.data_version()

    def _folder_signature(self) -> dict[str, int]:
        """mtime of the vault root and of each visible folder below it (one level: categories)."""
        root = self._vault.root
        sig: dict[str, int] = {}
        try:
            sig[""] = os.stat(root).st_mtime_ns
            with os.scandir(root) as it:
                for entry in it:
                    if entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
                        sig[entry.name] = entry.stat(follow_symlinks=False).st_mtime_ns
        except OSError:
            pass
        return sig

    def _out_of_step(self, names: set[str], tracker: Tracker | None) -> bool:
        """Do the files of these folders differ from what the index holds for them? Usually not: another
        engine process indexes its own files. Costs one stat per file of the changed folders only (a second for
        a folder of 333,000 files: a cancel is heard every ``CANCEL_EVERY`` files)."""
        for name in sorted(names):
            prefix = name + "/"
            on_disk: dict[str, tuple[int, int]] = {}
            for n, st in enumerate(self._vault.scan(name)):
                if tracker is not None and n % CANCEL_EVERY == 0:
                    tracker.check()
                on_disk[st.rel] = (st.mtime_ns, st.size)
            indexed = self._store.files_under(prefix)
            problems = self._store.problem_paths_under(prefix)
            broken = {k: v for k, v in on_disk.items() if k in problems}
            last = {k: self._problem_stats.get(k) for k in broken}
            self._problem_stats.update(broken)
            if {k: v for k, v in on_disk.items() if k not in problems} != indexed or broken != last:
                return True
        return False

    def poll(self, tracker: Tracker | None = None) -> ChangeReport:
        """Sync if something changed (or the periodic scan is due); ``tracker`` carries the sync's progress and
        cancel (a cancelled sync raises Cancelled and keeps the old view: the next poll syncs again)."""
        files_changed = 0
        folders = self._folder_signature()
        now = self._clock()
        evented = self._watched_folders()
        changed_folders = {n for n in folders.keys() | self._folders.keys()
                           if n and folders.get(n) != self._folders.get(n)} | evented
        previous, self._folders = self._folders, folders
        interval = WATCHED_FULL_SCAN_S if self.watching else self._full_scan_s
        due = now - self._last_full >= max(interval, self._scan_backoff)
        try:
            if due or self._out_of_step(changed_folders, tracker):
                with self.full_scan():
                    synced = self._sync(tracker)
                    if synced is None:  # another process is writing: keep the old view, the next poll looks again
                        raise _NotNow
                files_changed = synced
        except _NotNow:
            self._keep_old_view(previous, evented)
            return ChangeReport(self._index_moved(), 0)
        except BaseException:  # the index locked elsewhere, a full disk, a cancel: what changed waits
            self._keep_old_view(previous, evented)
            raise
        return ChangeReport(self._index_moved(), files_changed)

    def _keep_old_view(self, folders: dict[str, int], evented: set[str]) -> None:
        self._folders = folders
        if self._watcher is not None:
            self._watcher.give_back(evented)

    def _index_moved(self) -> bool:
        """Did another connection change memory rows? ``data_version`` (free) says whether anyone committed;
        the content counter (migration 5) says whether it was more than access statistics."""
        version = self._read_data_version()
        if version == self._data_version:
            return False
        self._data_version = version
        content = self._read_content_version()
        moved = content != self._content_version
        self._content_version = content
        return moved

    def _read_content_version(self) -> str | None:
        return self._store.get_meta("content_version")
