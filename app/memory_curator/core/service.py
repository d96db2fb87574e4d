"""MemoryService: the one public facade over a vault, its index and an embedder.

Synchronous and single-threaded by design: it owns one SQLite connection and is meant to live on one
worker thread (the desktop app's QThread, the CLI's main thread, a server's worker). It composes the
engine's parts and holds no logic of its own: a change is a Memories unit (core/memories.py), the embedder's
state is an Embedding (core/embedding.py), rows come from core/index/, the lifecycle from core/lifecycle/.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from memory_curator.core import direct, embedding, health, indexing, model, search, stats
from memory_curator.core.changes import ChangeReport
from memory_curator.core.config import MemoryConfig
from memory_curator.core.conflicts.unit import Conflicts
from memory_curator.core.embed.base import Embedder
from memory_curator.core.embedding import Embedding
from memory_curator.core.graph import graph
from memory_curator.core.inbox import Inbox
from memory_curator.core.index import listing, postings_unit, recovery, upkeep
from memory_curator.core.index.filters import Filters
from memory_curator.core.index.store import IndexStore
from memory_curator.core.ingest import exports, importer, ocr, sources
from memory_curator.core.ingest.report import FileResult, ImportReport
from memory_curator.core.lifecycle import access, batches, consolidation, decay, dedup, grouping, supersede
from memory_curator.core.lifecycle.expiry import drop_expired_raw
from memory_curator.core.lifecycle.importance import ImportanceScore
from memory_curator.core.lifecycle.trash import delete_trashed, trashed_items
from memory_curator.core.memories import Memories, writes
from memory_curator.core.model import BatchResult, MemoryItem, SearchResults
from memory_curator.core.progress import CancelToken, ProgressFn, Tracker
from memory_curator.core.syncing import Syncing
from memory_curator.core.vault.codec import check_salience
from memory_curator.core.vault.settings import VaultSettings
from memory_curator.core.vault.slug import validate_category
from memory_curator.core.vault.store import Vault
from memory_curator.core.versions import Versions

log = logging.getLogger(__name__)


class MemoryService:
    def __init__(self, vault: Vault, store: IndexStore, embedder: Embedder | None, config: MemoryConfig,
                 settings: VaultSettings, *, background: bool = True):
        self.vault, self.store, self.config, self.settings = vault, store, config, settings
        self.embedding = Embedding(store, settings, config, embedder, vault.index_path if background else None)
        self.memories = Memories(vault, store, config, settings, self.embedding)
        self.write_lock, self.history = self.memories.write_lock, self.memories.history
        self.inbox = Inbox(self.memories)
        self.versions = Versions(self.memories)  # a memory's versions in the vault's git history
        self.graph = graph.EntityGraph.of_vault(store, vault.root, self.memories, settings)  # and its .labels
        self.sources = sources.Sources(self.memories)  # other assistants' memories in, Claude Code's out
        self.conflicts = Conflicts(self.memories)  # sync conflicts: listed, merged when no person is needed, resolved
        self.counts = stats.Counts(store, vault)  # what the window shows often, cheap at 1,000,000 (stats() is not)
        self.postings = postings_unit.PostingsUnit.of(vault.index_path, vault.state_dir, config) if background else None
        self.upkeep = upkeep.Upkeep(store, self.postings, config)  # what the polls do in the background, run to the end
        self.syncing = Syncing(self.memories, self.conflicts, self.embedding, config, self.postings, background)
        self._changes = self.syncing.monitor
        self.start_watching = self._changes.start_watching  # file events before the first poll (the app's opening)

    @classmethod
    def open(cls, vault_dir: str | Path, embedder: str | Embedder = "auto", config: MemoryConfig | None = None,
             *, sync: bool = True, fill: bool = True, background: bool = True, watch: bool = False,
             progress: ProgressFn | None = None, cancel: CancelToken | None = None, searches: bool = True) -> MemoryService:
        """Open (or create) a vault: the index created, migrated (``progress``, ``cancel``: migrations.Report) or rebuilt,
        then synced (``fill`` False: a new index waits for a sync). ``watch``: start_watching. ``searches``: db.connect."""
        config = config or MemoryConfig()
        vault = Vault(Path(vault_dir))
        vault.ensure()
        settings = VaultSettings(vault.state_dir)
        store, rebuilt = recovery.open_index(vault.index_path, vault.root, vault.state_dir, progress, cancel, searches)
        try:
            chosen = embedding.choose(embedder, settings.embedding(), config)
        except BaseException:
            store.close()
            raise
        svc = cls(vault, store, chosen, config, settings, background=background)
        if watch:
            svc.start_watching()
        svc.syncing.fresh = rebuilt  # a new or recovered index: its first sync reads every file in bulk
        if sync or (rebuilt and fill):
            svc.syncing.sync(None)
        return svc

    def close(self) -> None:
        self.memories.close()  # the searches' recalls written, the last changes committed to the history
        self.embedding.close(self.config.embed_close_wait_s)
        self.syncing.close()
        if self.postings is not None:
            self.postings.close()
        self.store.close()

    def __enter__(self) -> MemoryService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def poll_changes(self, *, progress: ProgressFn | None = None, cancel: CancelToken | None = None) -> ChangeReport:
        """The polls' cheap look for others' changes: sync (cancelled between batches), embed, history."""
        return self.syncing.poll(Tracker(0, progress, cancel))

    @property
    def last_sync(self) -> indexing.SyncReport | None:
        return self.syncing.last_sync

    def commit_history(self, *, force: bool = False) -> str | None:
        """Commit pending changes when the vault is a git repository (batched unless ``force``)."""
        return self.memories.commit_history(force=force)

    @property
    def embedder(self) -> Embedder | None:
        return self.embedding.embedder

    def embedder_status(self) -> model.EmbedderStatus:
        return self.embedding.status()

    def change_embedder(self, provider: str, model: str | None = None, *, progress: ProgressFn | None = None,
                        cancel: CancelToken | None = None) -> int:
        """Switch models: every vector dropped, all memories re-embedded (returns how many: fewer if cancelled)."""
        return self.reindex_missing(progress=progress, cancel=cancel) if self.embedding.switch(provider, model) else 0

    def save(self, content: str, category: str = "context", title: str | None = None,
             keywords: Iterable[str] | None = None, session_id: str | None = None, source: str = "user",
             salience: float | None = None, **fields: Any) -> MemoryItem:
        """Write a new memory file and index it; it is embedded after, in the background (``embedding``)."""
        return self.memories.create(content, category=category, title=title, keywords=keywords,
                                    session_id=session_id, source=source, salience=salience, **fields)

    store_direct = direct.store_direct  # seed 004: its fields mapped onto the vault format, a mem_ id

    def save_checked(self, content: str, category: str = "context", title: str | None = None,
                     keywords: Iterable[str] | None = None, session_id: str | None = None, source: str = "user",
                     salience: float | None = None, *, on_duplicate: str = "add", **fields: Any) -> dedup.SaveOutcome:
        """Save unless near a duplicate (cosine > ``config.dedup_threshold``): ``on_duplicate`` add/skip/merge."""
        args = dict(content=content, category=category, title=title, keywords=keywords, session_id=session_id,
                    source=source, salience=salience, **fields)
        return dedup.save(self.memories, on_duplicate, dedup.probe(self.config, **args), args)

    def find_duplicates(self, content: str, *, title: str | None = None, summary: str | None = None,
                        threshold: float | None = None, limit: int = 5) -> list[dedup.DuplicateMatch]:
        """Live memories more similar to this text than ``threshold`` (default ``config.dedup_threshold``)."""
        probe = dedup.probe(self.config, content, title=title, summary=summary)
        return dedup.find_duplicates(self.memories, probe, threshold=threshold, limit=limit)

    def save_batch(self, items: Sequence[Mapping[str, Any]], *, mode: str = "rollback",
                   progress: ProgressFn | None = None, cancel: CancelToken | None = None) -> BatchResult:
        """Many memories in one transaction; ``mode`` "rollback": an invalid item fails all; "skip": in ``errors``."""
        return BatchResult(*self.memories.create_many(items, mode, Tracker(0, progress, cancel)))

    def get(self, memory_id: str, *, record_access: bool = True) -> MemoryItem | None:
        """The memory (re-read first when another program changed its file), its recall logged."""
        item = self.memories.fresh(memory_id)
        return self.memories.recalled([memory_id], "get")[0] if item is not None and record_access else item

    def get_batch(self, memory_ids: Sequence[str], *, record_access: bool = True) -> list[MemoryItem]:
        """The memories that exist, in the order asked; each recall is logged as a batch get."""
        return self.memories.recalled(memory_ids, "batch_get" if record_access else None)

    def update(self, memory_id: str, *, content: str | None = None, title: str | None = None,
               keywords: Iterable[str] | None = None, category: str | None = None, salience: float | None = None,
               session_id: str | None = None, **fields: Any) -> MemoryItem:
        """Rewrite a memory's file with the changes; re-embeds when its text changed."""
        return self.memories.update(memory_id, content=content, title=title, keywords=keywords, category=category,
                                    salience=salience, session_id=session_id, **fields)

    def update_batch(self, updates: Sequence[Mapping[str, Any]], *, mode: str = "rollback",
                     progress: ProgressFn | None = None, cancel: CancelToken | None = None) -> BatchResult:
        """Many updates (``id`` and the fields to change), as ``save_batch``; ``created_ids`` are the updated."""
        return BatchResult(*batches.update_batch(self.memories, updates, mode, Tracker(0, progress, cancel)))

    def set_salience(self, memory_id: str, salience: float) -> MemoryItem:
        return self.update(memory_id, salience=salience)

    def delete(self, memory_id: str) -> bool:
        """Move the memory's file to the vault's trash and drop it from the index. False if unknown."""
        return self.memories.delete(memory_id)

    def list_trash(self) -> list[MemoryItem]:
        """Memories in the vault's ``.trash/`` folder (``file_path`` points into the trash)."""
        return trashed_items(self.vault)

    def restore(self, memory_id: str) -> MemoryItem:
        """Move a trashed memory back to its category folder and index it again."""
        return self.restore_many([memory_id])[0]

    def restore_many(self, memory_ids: Sequence[str], *, missing_ok: bool = False) -> list[MemoryItem]:
        """``restore`` for several (one not in the trash raises MemoryNotFoundError unless ``missing_ok``)."""
        return self.memories.restore_many(memory_ids, missing_ok=missing_ok)

    @writes
    def empty_trash(self) -> int:
        """Delete the trashed files for good. Returns how many."""
        return delete_trashed(self.vault)

    def get_score(self, memory_id: str) -> ImportanceScore:
        """Importance now, with its parts (lifecycle.importance documents the formula)."""
        return access.score_of(self.store, self.config, self.memories.require(memory_id).id)

    @writes
    def set_score(self, memory_id: str, score: float | None) -> ImportanceScore:
        """Set importance by hand (kept in the file as ``importance_override``); None returns to the formula."""
        self.update(memory_id, importance_override=None if score is None else check_salience(score, "score"))
        return self.get_score(memory_id)

    def refresh_importance(self) -> int:
        """Recompute every memory's importance and drop access-log rows older than the window."""
        return access.refresh_all(self.store, self.config)

    @writes
    def decay_salience(self, days_inactive: int | None = None) -> int:
        """One decay run (lifecycle.decay): returns how many memories lost salience."""
        days = self.config.salience_decay_days if days_inactive is None else days_inactive
        n = decay.decay_salience(self.store, self.vault, self.config, int(days))
        self.refresh_importance()
        return n

    @writes
    def pin(self, memory_id: str, floor: float | None = None) -> MemoryItem:
        return decay.pin(self.store, self.vault, memory_id, floor)

    @writes
    def unpin(self, memory_id: str) -> MemoryItem:
        return decay.unpin(self.store, self.vault, memory_id)

    @writes
    def supersede(self, old_id: str, new_id: str) -> tuple[MemoryItem, MemoryItem]:
        """``old_id`` is replaced by ``new_id``: linked both ways, the old one hidden from default search."""
        return supersede.supersede(self.store, self.vault, old_id, new_id)

    @writes
    def unsupersede(self, old_id: str) -> MemoryItem:
        return supersede.unsupersede(self.store, self.vault, old_id)

    def supersede_chain(self, memory_id: str) -> list[MemoryItem]:
        """The versions of a memory linked by supersede, oldest first (its history of contradictions)."""
        return supersede.history(self.store, memory_id)

    @writes
    def cleanup(self, min_salience: float | None = None) -> int:
        """Move unpinned memories below ``min_salience`` to the trash (restorable). Returns how many."""
        threshold = self.config.cleanup_threshold if min_salience is None else min_salience
        return decay.move_to_trash(self.store, self.vault, decay.faded_ids(self.store, threshold))

    @writes
    def clear_expired(self) -> int:
        """Past ``expires_at``: to the trash; past ``raw_expires_at``: the raw text dropped (lifecycle.expiry)."""
        dropped = drop_expired_raw(self.memories)  # returns how many changed: raw texts dropped + trashed
        return dropped + decay.move_to_trash(self.store, self.vault, decay.expired_ids(self.store))

    def suggest_groups(self, *, category: str | None = None, threshold: float | None = None, min_size: int = 2,
                       max_size: int = 50, method: str = "auto") -> list[grouping.MemoryGroup]:
        """Groups of similar memories worth consolidating (vectors from the index, else word overlap)."""
        return grouping.suggest_groups(self.store, category=category, threshold=threshold, min_size=min_size,
                                       max_size=max_size, method=method)

    def preview_consolidation(self, ids: Sequence[str] | None = None, *, query: str | None = None, limit: int = 10,
                              title: str | None = None, category: str | None = None, max_chars: int = 4000,
                              searched: consolidation.Searched | None = None) -> consolidation.ConsolidationPreview:
        """The memory ``consolidate`` would write, without writing anything."""
        items = consolidation.sources(self.store, ids, query, limit, self._hits, searched)
        return consolidation.preview(items, title=title, category=category, max_chars=max_chars)

    @writes
    def consolidate(self, ids: Sequence[str] | None = None, *, query: str | None = None, limit: int = 10,
                    preserve_originals: bool = True, title: str | None = None, category: str | None = None,
                    max_chars: int = 4000, searched: consolidation.Searched | None = None) -> consolidation.ConsolidationResult:
        """2..50 memories (by id, or ``query``'s best hits) become one summary; originals kept or trashed."""
        items = consolidation.sources(self.store, ids, query, limit, self._hits, searched)
        return consolidation.consolidate(self.memories, items, preserve_originals=preserve_originals, title=title,
                                         category=category, max_chars=max_chars)

    @writes
    def undo_consolidation(self, summary_id: str) -> list[MemoryItem]:
        """Take a consolidation back: the originals return and the summary goes to the trash."""
        return consolidation.undo(self.memories, summary_id)

    def _hits(self, query: str, limit: int) -> SearchResults:
        return self.search(query, limit=limit, record_access=False)

    def list_memories(self, *, category: str | None = None, session_id: str | None = None, limit: int = 100,
                      offset: int = 0, order_by: str = "updated", include_superseded: bool = True,
                      keyword: str | None = None, descending: bool | None = None, scope: str | None = None,
                      actor: str | None = None, memory_type: str | None = None, label: str | None = None,
                      visible_to: Sequence[str] | None = None, after: MemoryItem | tuple[Any, int] | None = None,
                      ) -> list[MemoryItem]:
        """A page of memories. ``descending`` flips the natural order (None keeps it); ``after``: see listing.page."""
        filters = Filters(category=category, session_id=session_id, include_superseded=include_superseded,
                          scope=scope, actor=actor, memory_type=memory_type, visible_to=visible_to, label=label)
        return listing.page(self.store, filters, keyword, order_by, descending, limit, offset, after)

    def count(self, *, category: str | None = None, session_id: str | None = None, keyword: str | None = None,
              scope: str | None = None, actor: str | None = None, memory_type: str | None = None,
              label: str | None = None) -> int:
        filters = Filters(category=category, session_id=session_id, include_superseded=True, scope=scope,
                          actor=actor, memory_type=memory_type, label=label)
        return listing.count(self.store, filters, keyword)

    def categories(self) -> dict[str, int]:
        return listing.categories(self.store)

    def sessions(self) -> dict[str, int]:
        return listing.sessions(self.store)

    def keywords(self) -> dict[str, int]:
        return listing.keywords(self.store)

    def search(self, query: str, limit: int | None = None, mode: str = "hybrid", category: str | None = None,
               session_id: str | None = None, min_salience: float = 0.0, sort_by: str = "relevance", *,
               keyword_weight: float | None = None, scope: str | Sequence[str] | None = None, actor: str | None = None,
               include_superseded: bool = False, record_access: bool = True, memory_type: str | None = None,
               include_expired: bool = False, label: str | None = None, importance_weight: float = 0.0,
               min_score: float = 0.0, visible_to: Sequence[str] | None = None) -> SearchResults:
        """Rank memories for ``query``: the hits with the query, the mode used and warnings (keyword results
        while the embedder is down). ``importance_weight`` blends in importance; ``min_score`` is a floor."""
        filters = Filters(category=category, session_id=session_id, min_salience=float(min_salience),
                          include_superseded=include_superseded, scope=scope, actor=actor, memory_type=memory_type,
                          include_expired=include_expired, label=label, visible_to=visible_to)
        outcome = search.answer(self.store, self.embedding, self.config, self.graph, query, limit=limit, mode=mode,
                                filters=filters, sort_by=sort_by, keyword_weight=keyword_weight,
                                importance_weight=importance_weight, min_score=min_score)
        if record_access and outcome.results:  # written off the search's path; reads of the stats wait for it
            self.memories.recall_later([r.memory.id for r in outcome.results], "search")
        return outcome.value(query)

    def warm_search(self) -> None:
        """Load what vector search holds in memory in the background now (a large vault's codes), not in the first search."""
        self.store.vectors.warm()

    def search_by_keywords(self, keywords: Iterable[str], limit: int = 10, match_all: bool = False) -> list[MemoryItem]:
        """Memories whose tags match ``keywords`` (case-insensitive), best matches first."""
        return self.memories.recalled(search.tagged(self.store, keywords, limit, match_all), "search")

    def get_session_context(self, session_id: str, *, visible_to: Sequence[str] | None = None) -> list[MemoryItem]:
        """All memories of a session, oldest first (``visible_to``: see Filters)."""
        return listing.session_items(self.store, session_id, visible_to)

    def get_raw_session_content(self, session_id: str) -> str:
        return "\n\n".join(it.content for it in self.get_session_context(session_id))

    def get_session_token_count(self, session_id: str) -> int:
        return model.estimate_tokens(self.get_raw_session_content(session_id))

    def sync(self, *, progress: ProgressFn | None = None, cancel: CancelToken | None = None) -> indexing.SyncReport:
        """Pick up files added, changed or removed by other programs."""
        return self.syncing.sync(Tracker(0, progress, cancel))

    def rebuild_index(self, *, embed: bool = True, progress: ProgressFn | None = None,
                      cancel: CancelToken | None = None) -> indexing.SyncReport:
        """Drop the index rows and read every file again, then embed them unless ``embed`` is False (with the
        embedder down the rebuild still stands: the report's ``warnings`` say so and ``reindex_missing`` waits)."""
        report = self.syncing.rebuild(Tracker(0, progress, cancel))
        report.warnings = self.embedding.backfill(progress=progress, cancel=cancel) if embed else ()
        return report

    def reindex_missing(self, *, progress: ProgressFn | None = None, cancel: CancelToken | None = None,
                        batch: int = 256) -> int:
        """Embed every memory without vectors; returns how many. EmbedderUnavailable while it is down."""
        return self.embedding.reindex_missing(progress=progress, cancel=cancel, batch=batch)

    def import_paths(self, paths: Sequence[str | Path], *, category: str | None = None,
                     progress: ProgressFn | None = None, cancel: CancelToken | None = None,
                     on_file: Callable[[FileResult], None] | None = None, replace_edited: bool = False) -> ImportReport:
        """Import files and folders (``core/ingest``): documents go to ``category`` (default ``context``); one file
        failing never stops the others; a cancel keeps what was imported; ``on_file`` gets each file's result;
        a file imported before is skipped, updated, or (``replace_edited``) replaces edits made here."""
        return importer.import_paths(
            paths, target=self.sources.target(),
            category=None if category is None else validate_category(category),
            max_text_bytes=self.config.max_content_bytes, vault_root=self.vault.root, progress=progress,
            cancel=cancel, on_file=on_file, ocr_settings=ocr.OcrSettings.of(self.config), replace_edited=replace_edited)

    def import_memories(self, source_path: str | Path, *, category: str | None = None) -> int:
        """The seed's API: import a file or folder; returns how many memories were created."""
        return len(self.import_paths([source_path], category=category).memory_ids)

    def export_memories(self, category: str | None = None, format: str = "markdown", *,
                        dest: str | Path) -> exports.ExportReport:
        """The memories (of one category, or all) to ``dest``: a folder like the vault, or one json/jsonl file."""
        return exports.write_export(self.vault, listing.file_paths(self.store, category), format, Path(dest),
                                    category)

    def problems(self) -> list[model.VaultProblem]:
        return self.store.problems() + self.graph.problems() + self.vault.name_problems()

    def health(self, limit: int = 500) -> health.VaultHealth:
        """Unreadable files (with reasons), memories without embeddings, and index rows without files."""
        return health.check(self.store, self.vault, limit, keyword_only=self.embedding.embedder is None)

    def stats(self) -> model.MemoryStats:
        return stats.stats(self.store, self.vault)
