"""Memories: one change to the vault as a unit, for the facade and the modules that change memories.

A change takes the cross-process write lock (another process's read-modify-write never interleaves with
ours), writes the file first (the truth), then its index row, then hands it to the background embedding, and
leaves a change for the next history commit (batched: at most one git commit per ``HISTORY_BATCH_S``).
Lifecycle modules, the inbox and history receive this object, never the service.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from memory_curator.core import heap, indexing
from memory_curator.core.config import MemoryConfig
from memory_curator.core.embedding import Embedding
from memory_curator.core.errors import StorageError, ValidationError
from memory_curator.core.history import GitHistory
from memory_curator.core.index.store import IndexStore
from memory_curator.core.lifecycle import access
from memory_curator.core.lifecycle.recalls import RecallWriter
from memory_curator.core.lifecycle.review import SETTING as INBOX_SETTING
from memory_curator.core.lifecycle.review import lands_in_inbox, mark_pending
from memory_curator.core.model import MemoryItem, utcnow
from memory_curator.core.progress import Tracker
from memory_curator.core.validation import batch_items, known_fields, new_item, validated
from memory_curator.core.vault.lock import VaultLock
from memory_curator.core.vault.settings import VaultSettings
from memory_curator.core.vault.store import Vault

log = logging.getLogger(__name__)

HISTORY_BATCH_S = 2.0  # changes made within this long of each other go into one git commit


def writes(method):
    """A method that is one change to the vault, of an object with ``memories``: it runs in
    ``memories.writing()``, so what it reads and writes no other process changes in between."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self.memories.writing():
            return method(self, *args, **kwargs)

    return wrapper


class Memories:
    def __init__(self, vault: Vault, store: IndexStore, config: MemoryConfig, settings: VaultSettings,
                 embedding: Embedding):
        self.vault = vault
        self.store = store
        self.config = config
        self.settings = settings
        self.embedding = embedding
        self.write_lock = VaultLock(vault.state_dir)
        # Searches' recalls, written in batches; the store's reads count them in or have them written first.
        self.recalls = RecallWriter(vault.index_path, vault.root, config)
        store.settle_with(self.recalls)
        self.history = GitHistory(vault.root)
        self.history_pending = False
        self._history_at = 0.0
        self._scored_all = False  # every memory has had a first importance (sync_all)
        # Labels a new memory before it is written (core/graph/classify.py); set by the facade.
        self.label: Callable[[MemoryItem], MemoryItem] | None = None

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Around a change: holds the write lock (re-entrant) and, when the change succeeded, leaves it for
        the next history commit."""
        with self.write_lock.hold():
            yield
        self.history_pending = True

    def close(self) -> None:
        """What is left at close: the searches' recalls written (RecallWriter.close), the changes committed to
        the vault's history."""
        self.store.settle()
        self.recalls.close()  # what could not be written now, its thread tries once more
        try:
            self.commit_history(force=True)
        except StorageError as exc:
            log.warning("Could not commit the last changes to the vault's git history: %s", exc)

    def commit_history(self, *, force: bool = False) -> str | None:
        """Commit the vault's pending changes when it is a git repository; batched: at most one commit per
        ``HISTORY_BATCH_S`` unless ``force``. Returns the commit id or None."""
        if not self.history_pending or not self.history.enabled:
            return None
        if not force and time.monotonic() - self._history_at < HISTORY_BATCH_S:
            return None
        with self.write_lock.hold(wait=force) as held:
            if not held:
                return None  # another process is writing: commit at the next poll
            commit = self.history.commit_pending()
        self.history_pending = False
        self._history_at = time.monotonic()
        return commit

    # -- reading --------------------------------------------------------------------------------------

    def fresh(self, memory_id: str) -> MemoryItem | None:
        """The indexed memory, re-read first if another program changed its file since it was indexed."""
        info = self.store.file_info(memory_id)
        if info is None:
            return None
        st = self.vault.stat(info.file_path)
        if st is None or st.mtime_ns != info.mtime_ns or st.size != info.size:
            with self.store.transaction():
                indexing.index_file(self.store, self.vault, info.file_path)
        return self.store.get(memory_id)

    def require(self, memory_id: str) -> MemoryItem:
        item = self.fresh(memory_id)
        if item is None:
            raise self.store.missing(memory_id)
        return item

    def recall(self, memory_ids: Sequence[str], kind: str) -> None:
        """Log a recall of each memory (it feeds their importance) before returning: a get returns the memory
        with its count."""
        with self.store.transaction(checkpoint=False):  # recalls: none waits for a checkpoint
            access.record(self.store, list(memory_ids), kind, self.config)

    def recall_later(self, memory_ids: Sequence[str], kind: str) -> None:
        """Log a recall of each memory, stamped now and written with others in a batch (core/lifecycle/recalls.py):
        most searches return without writing."""
        self.recalls.queue(memory_ids, kind)
        self.recalls.write_due(self.store)

    def recalled(self, memory_ids: Sequence[str], kind: str | None) -> list[MemoryItem]:
        """The indexed memories among ``memory_ids``, in that order, each recall logged as ``kind`` (None:
        not logged)."""
        found = self.store.get_many(memory_ids)
        ids = [i for i in dict.fromkeys(memory_ids) if i in found]
        if kind is not None and ids:
            self.recall(ids, kind)
            found = self.store.get_many(ids)
        return [found[i] for i in ids if i in found]

    def sync_all(self, tracker: Tracker | None = None, *, fresh: bool = False) -> indexing.SyncReport:
        """The index in step with the files, under the write lock (never reading a half-done change of another
        process: a move, a delete); memories new to the index get a first importance. Every full sync is this
        one: an open's, the app's after it opens (with progress), a poll's."""
        with self.write_lock.hold():
            self.vault.recover()  # batches a kill cut short: finished if they were committed, else dropped
            # ``fresh`` (a new index: load in bulk) only while it is still empty: another process may have
            # written to it since it was created.
            fresh = fresh and self.store.count() == 0
            report = indexing.sync(self.store, self.vault, tracker, fresh=fresh)
            self.vault.remove_leftovers()  # temp files of writes killed midway, seen by that sync's scan
            if report.added or not self._scored_all:  # files from other programs; vaults from before scores
                access.score_unscored(self.store, self.config)  # (a scan of every row: 150 ms at 100,000)
                self._scored_all = True
        self.embedding.kick_if_missing()  # on open: what has no vectors is embedded in the background
        if report.unchanged + report.changed >= heap.BULK_ROWS:  # the scan's and the rows' objects, dropped
            self.store.drop_cache()
            heap.give_back()
        return report

    # -- new memories ---------------------------------------------------------------------------------

    def create(self, content: str, **args: Any) -> MemoryItem:
        """``save``: a new memory from the caller's values, written and indexed (embedded after, in the background)."""
        return self.write_new([new_item(self.config, content, **args)])[0]

    def create_many(self, items: Sequence[Mapping[str, Any]], mode: str,
                    tracker: Tracker) -> tuple[list[MemoryItem], list[dict]]:
        """``save_batch``: (the memories written, in input order; the errors of the items left out)."""
        prepared, errors = batch_items(self.config, items, mode, lambda mid: self.store.file_info(mid) is not None)
        tracker.total = len(prepared)
        return (self.write_new(prepared, tracker) if prepared else []), errors

    def write_new(self, items: Sequence[MemoryItem], tracker: Tracker | None = None) -> list[MemoryItem]:
        """Files first (the truth), then the index rows in one transaction, then embeddings."""
        written: list[tuple[MemoryItem, str]] = []
        if self.label is not None:
            items = [self.label(it) for it in items]
        if lands_in_inbox("ai", self.settings.get(INBOX_SETTING)):
            items = [replace(it, extra=mark_pending(it.extra)) if it.source == "ai" else it for it in items]
        self.embedding.encode_ahead(items)  # a batch's texts are encoded while its files and rows are written
        try:
            with self.write_lock.hold():
                written = list(zip(items, self.vault.write_new(list(items)), strict=True))  # all or none
                pairs = []
                with self.store.transaction():
                    for item, rel in written:
                        st = self.vault.stat(rel)
                        pk = self.store.upsert(item, rel, st.mtime_ns if st else 0, st.size if st else 0)
                        pairs.append((pk, item))
                    access.refresh(self.store, self.config, [it.id for it, _ in written])  # a first importance
        except BaseException:
            self.embedding.ahead.stop()
            for _, rel in written:  # all or nothing: no file without its row
                self.vault.delete_file(rel)
            raise
        self.history_pending = True
        self.embedding.queue(pairs, tracker)  # embedded after, in the background: a save never waits on it
        indexed = self.store.get_many(it.id for it in items)  # one query, not one per memory
        return [indexed.get(it.id) or it for it in items]

    # -- changes --------------------------------------------------------------------------------------

    def changed_item(self, memory_id: str, *, content: str | None = None, title: str | None = None,
                     keywords: Any = None, category: str | None = None, salience: float | None = None,
                     session_id: str | None = None, **fields: Any) -> tuple[MemoryItem, MemoryItem, str]:
        """(as indexed, as it will be written, its file) for an update; nothing is written yet."""
        current = self.require(memory_id)
        rel = self.store.file_info(memory_id).file_path
        disk = self.vault.read(rel)  # the file is the truth
        values = validated(
            self.config,
            _stand_in(disk) if content is None else content,
            disk.category if category is None else category,
            disk.title if title is None else title,
            disk.keywords if keywords is None else keywords,
            disk.session_id if session_id is None else session_id,
            disk.source,
            disk.salience if salience is None else salience,
        )
        if content is None:  # the body on disk is not the caller's input: kept as it is, never refused
            values["content"] = disk.content
        new = replace(disk, updated_at=utcnow(), **values, **known_fields(fields, disk.typed))
        return current, new, rel

    def rewrite(self, current: MemoryItem, new: MemoryItem) -> MemoryItem:
        rel = self.store.file_info(current.id).file_path
        return self._reindexed([(current, new, self.vault.write(new, rel))])[0]

    def rewrite_many(self, pairs: Sequence[tuple[MemoryItem, MemoryItem]]) -> list[MemoryItem]:
        """``rewrite`` of many (as indexed, as it will be written): the files first, written together
        (Vault.rewrite_many), then their index rows in one transaction. Hold the write lock."""
        rels = self.vault.rewrite_many([(new, self.store.file_info(current.id).file_path) for current, new in pairs])
        return self._reindexed([(current, new, rel) for (current, new), rel in zip(pairs, rels, strict=True)])

    def _reindexed(self, written: Sequence[tuple[MemoryItem, MemoryItem, str]]) -> list[MemoryItem]:
        """The index rows of rewritten files; those left without vectors (their embedded text changed) are
        queued for embedding."""
        pairs = []
        with self.store.transaction():
            for current, new, rel in written:
                st = self.vault.stat(rel)
                pk = self.store.upsert(new, rel, st.mtime_ns if st else 0, st.size if st else 0)
                if indexing.embedded_text_changed(current, new):
                    self.store.clear_chunks(pk)
                pairs.append((pk, new))
        items = [self.store.get(new.id) for _, new, _ in written]
        unembedded = [pair for pair, item in zip(pairs, items, strict=True) if item.chunk_count == 0]
        if unembedded:
            self.embedding.queue(unembedded)
        return items  # type: ignore[return-value]

    def update(self, memory_id: str, **changes: Any) -> MemoryItem:
        """Rewrite a memory's file with the changes; re-embeds when its text changed."""
        with self.writing():
            current, new, _ = self.changed_item(memory_id, **changes)
            return self.rewrite(current, new)

    def delete(self, memory_id: str) -> bool:
        """Move the memory's file to the vault's trash and drop it from the index. False if unknown."""
        with self.writing():
            info = self.store.file_info(memory_id)
            if info is None:
                return False
            if self.vault.stat(info.file_path) is not None:
                self.vault.move_to_trash(info.file_path)
            with self.store.transaction():
                self.store.delete(memory_id)
            return True

    def restore_many(self, memory_ids: Sequence[str], *, missing_ok: bool = False) -> list[MemoryItem]:
        """Trashed memories back to their category folders, with one pass over the trash (each trashed file
        is read to learn its id). One not in the trash raises MemoryNotFoundError, or is skipped with
        ``missing_ok``."""
        with self.writing():
            wanted = list(dict.fromkeys(memory_ids))
            found: dict[str, str] = {}
            for rel in self.vault.scan_trash():
                try:
                    item = self.vault.read(rel)
                except StorageError:
                    continue
                if item.id in wanted and item.id not in found:
                    found[item.id] = rel
                    if len(found) == len(wanted):
                        break
            missing = [mid for mid in wanted if mid not in found]
            if missing and not missing_ok:
                raise self.store.missing(missing[0])
            for mid in found:
                if self.store.file_info(mid) is not None:
                    raise ValidationError(f"A memory with id {mid!r} is already in the vault.", field="id")
            with self.store.transaction():
                for rel in found.values():
                    indexing.index_file(self.store, self.vault, self.vault.restore_from_trash(rel))
            restored = self.store.get_many(found)
            self.embedding.queue([(self.store.pk_of(mid), restored[mid]) for mid in found if mid in restored])
            back = self.store.get_many(found)
            return [back[mid] for mid in wanted if mid in back]


def _stand_in(disk: MemoryItem) -> str:
    """Text that passes the content checks in place of an unchanged body, and gives the title it would: a file
    the vault lists (a note of only frontmatter, a NUL past the binary check) takes a new salience or keywords
    instead of being refused for the body it already has (found by the long vault fuzz run, #18)."""
    text = disk.content[:4096].replace("\x00", "")
    return text if text.strip() else (disk.title or "Untitled")
