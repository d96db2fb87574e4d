"""The index kept in step with files other programs change: a full sync when asked (the app's opening sync, the
CLI's ``sync``), and the polls' cheap looks (``core/changes.py``) that sync when something changed.

Both take a Tracker: the app cancels a poll's sync when it closes (a full sync of 1,000,000 files takes ~20 s).
A cancelled sync keeps the batches it committed; the next sync does the rest (it compares every file again).
"""

from __future__ import annotations

from memory_curator.core import indexing
from memory_curator.core.changes import ChangeMonitor, ChangeReport
from memory_curator.core.config import MemoryConfig
from memory_curator.core.conflicts.unit import Conflicts
from memory_curator.core.embedding import Embedding
from memory_curator.core.index.postings_unit import PostingsUnit
from memory_curator.core.index.unreadable import UnreadableFill
from memory_curator.core.memories import Memories
from memory_curator.core.progress import Tracker


class Syncing:
    def __init__(self, memories: Memories, conflicts: Conflicts, embedding: Embedding, config: MemoryConfig,
                 postings: PostingsUnit | None = None, background: bool = False):
        self._memories, self._conflicts, self._embedding, self._postings = memories, conflicts, embedding, postings
        # The rows of an index older than their unreadable share filled in (core/index/unreadable.py).
        self.fill = UnreadableFill(memories.vault.index_path) if background else None
        self.last_sync: indexing.SyncReport | None = None
        self.fresh = False  # the index is empty (new, or recovered from corruption): the next sync loads in bulk
        self.monitor = ChangeMonitor(memories.store, memories.vault, self._sync_changed, watch=config.watch_files)

    def sync(self, tracker: Tracker | None) -> indexing.SyncReport:
        """Every file compared with its row (Memories.sync_all, which also embeds again what other programs
        edited); it counts as the poll's periodic (or first) full scan."""
        fresh, self.fresh = self.fresh, False
        with self.monitor.full_scan():
            self.last_sync = self._conflicts.settled(self._memories.sync_all(tracker, fresh=fresh))
        return self.last_sync

    def rebuild(self, tracker: Tracker | None) -> indexing.SyncReport:
        """Every row dropped and every file read again: it stands for a new index's first sync too."""
        self.fresh = False
        self.last_sync = indexing.rebuild(self._memories.store, self._memories.vault, tracker)
        return self.last_sync

    def poll(self, tracker: Tracker | None) -> ChangeReport:
        report = self.monitor.poll(tracker)
        if report.index_changed:  # another process (or the app's jobs lane) saved memories its embedder left
            self._embedding.kick_if_missing()
        if self._postings is not None:  # the keyword postings: built, or folded back, when they need it
            self._postings.kick()
        if self.fill is not None:
            self.fill.kick()
        self._memories.commit_history()
        return report

    def close(self) -> None:
        self.monitor.close()
        if self.fill is not None:
            self.fill.close()

    def _sync_changed(self, tracker: Tracker | None) -> int | None:
        memories = self._memories
        with memories.write_lock.hold(wait=False) as held:
            if not held:
                return None  # another process is writing: the poll never waits for it
            report = self.sync(tracker)
        memories.history_pending = memories.history_pending or report.changed > 0
        return report.changed + len(report.problems)  # a file that newly cannot be read is news to the window
