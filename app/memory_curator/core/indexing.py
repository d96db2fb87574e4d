"""Keeping the index in step with the vault: sync, rebuild, and embedding of chunks."""

from __future__ import annotations

import gc
import hashlib
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass, field

import numpy as np

from memory_curator.core import bulk_read
from memory_curator.core.config import MemoryConfig
from memory_curator.core.conflicts.names import copy_name
from memory_curator.core.embed.background import ModelChanged
from memory_curator.core.embed.base import Embedder
from memory_curator.core.errors import (
    ConflictedFile,
    DimensionMismatch,
    EmbedderUnavailable,
    EmbeddingError,
    VaultFileError,
)
from memory_curator.core.index.rows import ROW_CATEGORY, ROW_UPDATED_AT, MemoryRow
from memory_curator.core.index.store import IndexStore
from memory_curator.core.model import MemoryItem
from memory_curator.core.progress import Tracker
from memory_curator.core.text.chunking import chunk_text
from memory_curator.core.vault.codec import format_dt
from memory_curator.core.vault.store import FileStat, Vault

log = logging.getLogger(__name__)

WRITE_BATCH = 2000  # rows per transaction while rebuilding: bounded memory, few commits
READ_AHEAD_MIN = 200  # files to read before read-ahead is worth a thread
# An unreadable file is skipped by the next syncs while its mtime and size stay as read, only once its mtime is
# this old when read (as git's racy check): on a file system counting mtime in 1 or 2 s steps (ext3, FAT, HFS+)
# a fix of the same size written in the same step would keep both.
RACY_NS = 3_000_000_000


@dataclass
class SyncReport:
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    problems: list[tuple[str, str]] = field(default_factory=list)
    warnings: tuple[str, ...] = ()  # what the caller should know (a rebuild whose embedding has to wait)

    @property
    def changed(self) -> int:
        return self.added + self.updated + self.removed


_Chunk = tuple[int, int, int, str, str]  # index, start, end, snippet, text to embed
# Memories (pk, item) with their chunks and the slice [first, last) of them embedded in one call: a long memory's
# chunks span several calls, so no call is larger than ``config.embed_batch_size`` texts.
_Batch = list[tuple[int, MemoryItem, list[_Chunk], int, int]]


def embedding_chunks(item: MemoryItem, config: MemoryConfig, max_tokens: int | None = None) -> list[_Chunk]:
    """(index, start, end, snippet, text to embed) per chunk of ``item.embedded_source``; the title leads every
    chunk so short chunks keep context."""
    source = item.embedded_source
    size = min(config.chunk_size, max_tokens or config.chunk_size)
    chunks = chunk_text(source, size, min(config.chunk_overlap, size // 4))
    if not chunks:
        return [(0, 0, 0, item.title, item.title)]
    return [(c.index, c.start, c.end, c.text, f"{item.title}\n{c.text}") for c in chunks]


def embed_hash(embedder_key: str, texts: Sequence[str]) -> str:
    h = hashlib.sha1(embedder_key.encode())
    for t in texts:
        h.update(b"\x00" + t.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def embed_items(
    store: IndexStore, embedder: Embedder, items: Iterable[tuple[int, MemoryItem]], config: MemoryConfig,
    tracker: Tracker | None = None, written: Callable[[], None] | None = None,
    cut: Callable[[MemoryItem], list[_Chunk]] | None = None,
) -> int:
    """Embed the chunks of ``items`` ((pk, item) pairs, read lazily on this thread) in provider batches; each
    batch commits on its own so a cancel or a provider failure keeps what was done, and ``written`` is called
    after each commit. Vectors are checked before anything is written (finite, the index's size), and a memory
    whose text changed while it was being embedded (another thread or process wrote it) is left for the next
    round. Returns the number of memories embedded. ``cut``: a memory's chunks (``embedding_chunks`` unless
    given: the ones a batch's encoding ahead cut already).

    The provider encodes the next batch on a thread of its own while this one checks and writes the last (the
    model no longer waits for SQLite, nor SQLite for the model): the same batches, in the same order, one call
    at a time, so the same vectors; only the provider call leaves this thread, never the connection."""
    ensure_vector_table(store, embedder)
    done = 0
    max_tokens = embedder.max_chunk_tokens
    batches = _embed_batches(items, config, cut or (lambda item: embedding_chunks(item, config, max_tokens)))
    parts: list[np.ndarray] = []  # the vectors of a long memory's chunks so far: written once all are there
    with ThreadPoolExecutor(1, "memory-curator-embed-ahead") as ahead:
        def encode(batch: _Batch) -> Future:
            try:
                return ahead.submit(embedder.embed_documents,
                                    [c[4] for _, _, chunks, first, last in batch for c in chunks[first:last]])
            except RuntimeError as exc:  # 'cannot schedule new futures after interpreter shutdown'
                raise EmbedderUnavailable("Embedding stops while the program exits.") from exc

        batch = next(batches, None)
        vectors = encode(batch) if batch else None
        while batch is not None and vectors is not None:
            now = vectors.result()
            stop: Exception | None = None
            try:  # the next batch read (on this thread) and sent to the provider before this one is written
                following = next(batches, None)
                vectors = encode(following) if following else None
            except Exception as exc:  # noqa: BLE001 - a cancel or a failure: what was encoded is still kept
                following, vectors, stop = None, None, exc
            n = _write_vectors(store, embedder, batch, now, parts)
            done += n
            if tracker is not None:
                tracker.step(n, "embedding")
                _, _, chunks, _, last = batch[-1]
                if last < len(chunks):  # a long memory under way: how far it is, and a cancel acts here too
                    tracker.part(last, len(chunks))
            if written is not None:
                written()
            if stop is not None:
                raise stop
            batch = following
    return done


def _embed_batches(items: Iterable[tuple[int, MemoryItem]], config: MemoryConfig,
                   cut: Callable[[MemoryItem], list[_Chunk]]) -> Iterator[_Batch]:
    """Memories with their chunks, cut every ``config.embed_batch_size`` texts, within a memory too: a 10 MB
    memory (about 5,000 chunks) was one provider call of 10 minutes on the offline model and 2 cores, which the
    memories sharing its batch waited for, the progress stood still and a pause or a close could not stop."""
    size = max(1, config.embed_batch_size)
    batch: _Batch = []
    texts = 0
    for pk, item in items:
        chunks = cut(item)
        first = 0
        while True:
            last = min(len(chunks), first + size - texts)
            batch.append((pk, item, chunks, first, last))
            texts += last - first
            if texts >= size:
                yield batch
                batch, texts = [], 0
            if last >= len(chunks):
                break
            first = last
    if batch:
        yield batch


def _write_vectors(store: IndexStore, embedder: Embedder, batch: _Batch, vectors: Sequence[Sequence[float]],
                   parts: list[np.ndarray]) -> int:
    """One batch's vectors in one transaction; how many memories got theirs. ``parts`` holds the vectors of a
    memory whose chunks go on in the next batch (kept, not written, until its last chunk's vector is there), as
    float32 rows, as the index stores them: 18.5 MB for a 10 MB memory's 12,080 chunks of the offline model,
    where Python's lists of floats took about 150 MB."""
    texts = sum(last - first for _, _, _, first, last in batch)
    if len(vectors) != texts:
        raise EmbeddingError(f"{embedder.key} returned {len(vectors)} vectors for {texts} texts.")
    check_vectors(store, vectors)
    done = pos = 0
    with store.transaction():
        if store.vectors.model != embedder.key:  # another process switched models meanwhile: keep its vectors
            raise ModelChanged(f"This vault's vectors now come from {store.vectors.model}, not {embedder.key}; "
                               "this process stops embedding. Open the vault again to use the new model.")
        for pk, item, chunks, first, last in batch:
            vecs = vectors[pos : pos + last - first]
            pos += last - first
            if first or last < len(chunks):
                parts.extend(np.asarray(vecs, dtype=np.float32).reshape(last - first, -1))
                if last < len(chunks):
                    continue
                vecs, parts[:] = list(parts), []
            if store.pk_of(item.id) != pk or store.embedded_fields(item.id) != (item.title, item.content,
                                                                               item.summary):
                continue  # changed, gone or re-indexed (a rebuild) since it was read: the next round has it
            store.set_chunks(pk, [c[:4] for c in chunks], vecs, embed_hash(embedder.key, [c[4] for c in chunks]))
            done += 1
    return done


def check_vectors(store: IndexStore, vectors: Sequence[Sequence[float]]) -> None:
    """Refuse vectors that would poison the index, before anything is written: a NaN or an infinity (one
    such vector made every semantic search fail), or another size than the index holds (the model changed
    under its name: another version pulled)."""
    for v in vectors:  # on arrays: element by element took 73 us a 768-float32 query vector, 4 us this way
        if not np.isfinite(np.asarray(v, dtype=np.float64)).all():
            raise EmbeddingError(
                "The embedder returned a vector with NaN or infinite values, so it was not stored. The model or "
                "its server is broken: restart it, or choose another model in Settings. Memories are saved and "
                "found by keyword meanwhile."
            )
    dim, model = store.vectors.dim, store.vectors.model
    wrong = next((len(v) for v in vectors if dim is not None and len(v) != dim), None)
    if wrong is not None:
        raise DimensionMismatch(
            f"{model} now returns {wrong}-dimensional vectors, but this vault's vectors have {dim}: the model "
            "changed (another version pulled?). Memories are saved and found by keyword meanwhile. To re-embed "
            "every memory with the model as it is now, change the model in Settings (or run "
            f"`memory-curator reindex --model {model}`)."
        )



def ensure_vector_table(store: IndexStore, embedder: Embedder) -> None:
    """Create the vec0 table for the embedder's dimension on first use. A table of another model is never
    dropped here (only ``Embedding.switch`` drops vectors): it means another process moved the vault to
    another model, and this one must stop embedding rather than undo that."""
    if store.vectors.exists():
        if store.vectors.model != embedder.key:
            raise ModelChanged(f"This vault's vectors come from {store.vectors.model}, not {embedder.key}; this "
                               "process stops embedding and keeps them. Open the vault again to use its model.")
        return
    dim = embedder.dimension()
    with store.transaction():
        if not store.vectors.exists():  # another process may have created it meanwhile
            store.drop_all_vectors()
            store.vectors.create(embedder.key, dim)
    if store.vectors.model != embedder.key:
        raise ModelChanged(f"This vault's vectors come from {store.vectors.model}, not {embedder.key}.")


def index_file(store: IndexStore, vault: Vault, rel: str, seen_ids: dict[str, str] | _IdHolders | None = None,
               st: FileStat | None = None, known_problems: set[str] | None = None,
               displaced: list[tuple[str, str]] | None = None) -> MemoryItem | None:
    """Read one file into the index. A broken file is recorded as a problem and left untouched.
    ``st`` (from a scan) saves a stat; ``known_problems`` saves a delete per file that had none;
    ``displaced`` collects the files this one took an id from (see ``Claim``)."""
    st = st or vault.stat(rel)
    if st is None:
        store.delete_path(rel)
        return None
    conflict = None
    try:
        item = vault.read(rel)
    except ConflictedFile as exc:
        store.set_problem(rel, exc.reason)
        if exc.item is None:
            return None  # neither side reads as a memory: the version indexed before stays listed
        item, conflict = exc.item, exc.reason
    except VaultFileError as exc:
        store.delete_path(rel)
        found = exc.file_stat
        settled = found is not None and time.time_ns() - found.mtime_ns > RACY_NS
        store.set_problem(rel, exc.reason, (found.mtime_ns, found.size) if settled else None)
        return None
    problem = None
    if seen_ids is not None:
        problem = _claim_id(store, seen_ids, item.id, Claim.of(item, rel), displaced)
    if problem:
        store.delete_path(rel)
        store.set_problem(rel, problem)
        return None
    if conflict is None and (known_problems is None or rel in known_problems):
        store.clear_problem(rel)
    old = store.embedded_fields(item.id)
    pk = store.upsert(item, rel, st.mtime_ns, st.size)
    if old is not None and old != (item.title, item.content, item.summary):
        store.clear_chunks(pk)
    return item


DUPLICATE_ID = "has the same id as "


@dataclass(frozen=True)
class Claim:
    """What decides which of several files with one id is the memory (the others are reported): the one
    not named as a sync tool names its conflict copies (core/conflicts/names.py); then the one updated last; then the one in its category's folder (after a move interrupted between its two steps,
    the copy that arrived); then the first path in sort order. Only the files decide: the same files
    give the same winner in every process, in any order of reading."""

    rel: str
    updated_at: str  # ISO text, zero-padded: sorts as it compares
    in_own_folder: bool

    @property
    def is_copy(self) -> bool:
        return copy_name(self.rel) is not None

    @classmethod
    def of(cls, item: MemoryItem, rel: str) -> Claim:
        return cls(rel, format_dt(item.updated_at) or "", rel.split("/")[0] == item.category)

    @classmethod
    def of_row(cls, row: MemoryRow, rel: str) -> Claim:
        category, updated_at = row.values[ROW_CATEGORY], row.values[ROW_UPDATED_AT]
        return cls(rel, updated_at or "", rel.split("/")[0] == category)

    def beats(self, other: Claim) -> bool:
        if self.is_copy != other.is_copy:
            return other.is_copy
        if self.updated_at != other.updated_at:
            return self.updated_at > other.updated_at
        if self.in_own_folder != other.in_own_folder:
            return self.in_own_folder
        return self.rel < other.rel


def _claim_id(store: IndexStore, seen_ids: dict[str, str] | _IdHolders, memory_id: str, claim: Claim,
              displaced: list[tuple[str, str]] | None = None, unwritten: dict[str, MemoryRow] | None = None,
              ) -> str | None:
    """``claim.rel`` claims ``memory_id``; returns the problem when a file that beats it holds the id. When
    it beats the holder, the holder's row goes and the holder is reported instead (added to ``displaced``).
    ``unwritten``: rows by file accepted but not yet written (a rebuild writes a chunk at a time)."""
    other = seen_ids.setdefault(memory_id, claim.rel)
    if other == claim.rel:
        return None
    row = unwritten.get(other) if unwritten is not None else None
    if row is not None:
        holder: Claim | None = Claim.of_row(row, other)
    else:
        held = store.get(memory_id)
        holder = Claim.of(held, other) if held is not None else None
    if holder.beats(claim) if holder is not None else other < claim.rel:
        return _duplicate(other)
    if row is not None:
        del unwritten[other]  # type: ignore[union-attr]
    else:
        store.delete_path(other)
    store.set_problem(other, _duplicate(claim.rel))
    if displaced is not None:
        displaced.append((other, _duplicate(claim.rel)))
    seen_ids[memory_id] = claim.rel
    return None


def _duplicate(winner: str) -> str:
    return f"{DUPLICATE_ID}{winner}; give one of them a new id, or delete the copy you do not want"


def embedded_text_changed(old: MemoryItem, new: MemoryItem) -> bool:
    """Whether the vectors of ``old`` no longer describe ``new`` (what embedding_chunks reads changed)."""
    return (old.title, old.content, old.summary) != (new.title, new.content, new.summary)


def _read_ahead(vault: Vault, rels: Sequence[str]) -> None:
    """Ask the kernel to load the files that are about to be read. Reading 100,000 small files one by one
    waits on the disk for each (1 ms apiece on a busy disk); advised reads are queued together instead."""
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:  # not on Windows or macOS: reads just wait in turn there
        return
    root = str(vault.root)
    if _in_memory(root, rels):
        return
    for rel in rels:
        try:
            fd = os.open(os.path.join(root, rel), os.O_RDONLY)  # not a Path: half of this thread's CPU
        except OSError:
            continue
        try:
            advise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
        except OSError:
            pass
        finally:
            os.close(fd)


PROBES = 64  # files looked at before reading ahead


def _in_memory(root: str, rels: Sequence[str]) -> bool:
    """Whether the files are in the page cache already, judged by ``PROBES`` of them spread over ``rels``: a read
    that must not wait for the disk (RWF_NOWAIT) fails on a file that is not. Then advising every file is work
    for nothing (0.5 CPU-s at 100,000 files, beside the rebuild's own reading). False where it cannot tell."""
    nowait = getattr(os, "RWF_NOWAIT", None)
    if nowait is None or not rels:
        return False
    buffer = bytearray(1)
    for rel in rels[:: max(1, len(rels) // PROBES)]:
        try:
            fd = os.open(os.path.join(root, rel), os.O_RDONLY)
        except OSError:
            continue  # gone or unreadable: the reading reports it
        try:
            os.preadv(fd, [buffer], 0, nowait)
        except OSError:  # BlockingIOError: on disk only; or the file system cannot tell (EOPNOTSUPP)
            return False
        finally:
            os.close(fd)
    return True


COMPARE_CHUNK = 500  # files compared with their index rows at a time: a sync's memory does not grow with the vault


@dataclass
class _Difference:
    """What a scan found different from the index. Holds only the files that differ (and the problem files),
    never a record per file: at 1,000,000 files the two per-file maps a sync compared were ~700 MB."""

    changed: dict[str, FileStat] = field(default_factory=dict)  # new or changed files, in scan order
    indexed: set[str] = field(default_factory=set)  # those of ``changed`` the index holds (updated, not added)
    gone: list[str] = field(default_factory=list)  # indexed files the scan did not find
    problem_files: dict[str, FileStat] = field(default_factory=dict)  # files with a recorded problem, on disk
    on_disk: int = 0


def _compare(store: IndexStore, vault: Vault, known_problems: set[str], tracker: Tracker | None, *,
             fresh: bool, listed: Sequence[FileStat] | None = None) -> _Difference:
    """Compare the scan with the index ``COMPARE_CHUNK`` files at a time (their rows looked up by path). Files
    gone from the disk are looked for only in the folders whose indexed count exceeds what the scan matched
    there: none in a sync where nothing was deleted by another program. A cancel is heard between chunks (the
    comparison is most of a sync at 1,000,000 files, ~20 s, when few files changed). ``listed``: the scan, made
    already (a rebuild's)."""
    diff = _Difference()
    matched: dict[str, int] = {}
    # fresh: every file is read, and its row takes the stat of the read
    scan = vault.scan(stat=not fresh) if listed is None else iter(listed)
    while part := list(itertools.islice(scan, COMPARE_CHUNK)):
        if tracker is not None:
            tracker.check()
        diff.on_disk += len(part)
        indexed = {} if fresh else store.indexed_stats([st.rel for st in part])
        for st in part:
            if st.rel in known_problems:
                diff.problem_files[st.rel] = st
                if not fresh and store.problem_stat(st.rel) == (st.mtime_ns, st.size):
                    continue  # the same bytes found unreadable before: a fixed file has another mtime or size
            old = indexed.get(st.rel)
            if old is None:
                diff.changed[st.rel] = st
                continue
            folder = st.rel.split("/", 1)[0]
            matched[folder] = matched.get(folder, 0) + 1
            if old != (st.mtime_ns, st.size):
                diff.changed[st.rel] = st
                diff.indexed.add(st.rel)
    if fresh:
        return diff
    counts = store.folder_counts()
    short = [folder for folder, n in counts.items() if matched.get(folder, 0) != n]
    if short:
        leftovers, unnamed = vault.leftovers, vault.unnamed  # what the full scan saw, not one folder's
        for folder in short:
            here = {st.rel for st in vault.scan(folder)} if folder else set()
            diff.gone += [rel for rel in store.paths_in_folder(folder) if rel not in here]
        vault.leftovers, vault.unnamed = leftovers, unnamed
    return diff


class _IdHolders:
    """Which file holds each id, for the claims of changed files (``_claim_id``): the files changed so far,
    else the index's row for the id when its file is neither changed nor gone (an unchanged file). Looked up
    per id instead of a map of every unchanged file (1,000,000 entries at 1,000,000 files)."""

    def __init__(self, store: IndexStore, stale: set[str]):
        self._store = store
        self._stale = stale  # files whose rows do not say what they hold now
        self._known: dict[str, str] = {}

    def setdefault(self, memory_id: str, rel: str) -> str:
        held = self._known.get(memory_id)
        if held is None:
            held = self._store.holder_of(memory_id)
            if held is None or held in self._stale:
                held = rel
            self._known[memory_id] = held
        return held

    def __setitem__(self, memory_id: str, rel: str) -> None:
        self._known[memory_id] = rel


def sync(store: IndexStore, vault: Vault, tracker: Tracker | None = None, *, fresh: bool = False,
         reading: tuple[list[FileStat], bulk_read.Chunks] | None = None) -> SyncReport:
    """Bring the index in line with the files: new and changed files are read, missing ones dropped.
    Cheap when nothing changed (one stat per file, rows looked up a chunk at a time). ``fresh``: the tables are
    empty (a rebuild, a new index), so files are read in bulk and inserted without looking for rows to replace.
    ``reading``: with ``fresh``, the scan made already and its files' reading started (``rebuild``)."""
    report = SyncReport()
    problems = store.problems()
    known_problems = {p.path for p in problems}
    diff = _compare(store, vault, known_problems, tracker, fresh=fresh, listed=None if reading is None else reading[0])
    changed, gone = list(diff.changed), diff.gone
    if changed or gone:  # a file that lost an id to another may win it now (the other gone or changed)
        changed += [p.path for p in problems
                    if p.reason.startswith(DUPLICATE_ID) and p.path in diff.problem_files and p.path not in diff.changed]
    stale_problems = [p for p in known_problems if p not in diff.problem_files]
    if tracker is not None:
        tracker.total = len(changed) + len(gone)
    if len(changed) > READ_AHEAD_MIN:
        threading.Thread(target=_read_ahead, args=(vault, changed), daemon=True, name="vault-read-ahead").start()
    stats = {**diff.problem_files, **diff.changed}
    if fresh:
        to_read = [stats[rel] for rel in changed]
        started = reading[1] if reading is not None and reading[0] == to_read else None  # else read as listed here
        with _bulk_load(store, enabled=bool(changed)):
            _insert_all(store, vault, to_read, {}, report, tracker, started)
        store.optimize_fulltext()  # the keyword postings follow in the background (core/index/postings_unit.py)
    else:
        holders = _IdHolders(store, {*changed, *gone})
        _index_changed(store, vault, changed, stats, diff.indexed, holders, known_problems, report, tracker)
    with store.transaction():
        for rel in gone:
            store.delete_path(rel)
            report.removed += 1
        for rel in stale_problems:
            store.clear_problem(rel)
    report.unchanged = diff.on_disk - len(changed)
    return report


def _index_changed(store: IndexStore, vault: Vault, changed: Sequence[str], on_disk: dict[str, FileStat],
                   indexed: set[str], seen_ids: _IdHolders, known_problems: set[str], report: SyncReport,
                   tracker: Tracker | None) -> None:
    for start in range(0, len(changed), WRITE_BATCH):
        part = changed[start : start + WRITE_BATCH]
        with store.transaction():
            for rel in part:
                displaced: list[tuple[str, str]] = []
                item = index_file(store, vault, rel, seen_ids, on_disk[rel], known_problems, displaced)
                report.problems.extend(displaced)
                if item is None:
                    reason = store.problem_of(rel) if rel not in known_problems else None
                    if reason:
                        report.problems.append((rel, reason))
                elif rel in indexed:
                    report.updated += 1
                else:
                    report.added += 1
        if tracker is not None:  # after the commit: a cancel keeps the batch
            tracker.step(len(part), "reading files")


def _insert_all(store: IndexStore, vault: Vault, stats: Sequence[FileStat], seen_ids: dict[str, str],
                report: SyncReport, tracker: Tracker | None, started: bulk_read.Chunks | None = None) -> None:
    """Index files into empty tables (a rebuild): no row to look up or replace, files read in bulk, up to GROUP
    chunks to a transaction. With helper processes reading, the indexes the load dropped are made over its last
    chunks (``_early_steps``), each chunk then committed before them. ``started``: the reading of ``stats``,
    begun already."""
    steps = store.restore_steps() if bulk_read.helper_wanted(len(stats)) else 0
    left = len(stats)
    group = _Group(store)
    with group, closing(started or bulk_read.Chunks(vault, stats)) as chunks, _fewer_collections():
        for part in chunks:
            group.open()
            rows: dict[str, MemoryRow] = {}  # written together, once the chunk's ids are settled
            for f in part:
                if f.row is None:
                    problem = f.problem
                elif seen_ids.setdefault(f.row.id, f.rel) == f.rel:
                    problem = None  # the id's first file: nothing to settle (a claim is made only when it is not)
                else:
                    displaced: list[tuple[str, str]] = []
                    problem = _claim_id(store, seen_ids, f.row.id, Claim.of_row(f.row, f.rel), displaced, rows)
                    report.problems.extend(displaced)
                    report.added -= len(displaced)
                if problem:
                    store.set_problem(f.rel, problem)
                    report.problems.append((f.rel, problem))
                else:
                    rows[f.rel] = f.row  # type: ignore[assignment]
                    report.added += 1
                    if f.problem:  # in conflict: listed under this machine's side, reported until resolved
                        store.set_problem(f.rel, f.problem)
            store.insert_rows(list(rows.values()))
            left -= len(part)
            early = _early_steps(steps, left, len(part))
            group.written(done=bool(early) or not left)
            for _ in range(early):
                steps = store.restore_step()
            if tracker is not None:  # a cancel rolls back the chunks of the open transaction
                tracker.step(len(part), "reading files")


# Chunks written in one transaction by a load. The full-text index writes a transaction's terms out as one segment
# (core/index/bulk.py HASHSIZE), and merges the segments once at the end: at 100,000 files, 100 transactions gave
# 200 segments, merged as they came (16 at a time) and then again. Alone on the same rows, alternating (load 5-6):
# FTS5's CPU 5.96 / 6.98 / 6.98 / 5.78 -> 4.65 / 4.32 / 5.17 / 4.52 s. A cancel loses the open transaction's chunks.
GROUP = 10
# A group ends sooner once its transaction has been open this long: another process's save waits for the write lock
# (chunks written one by one, ~0.1-0.3 s; the writer also waits for the helpers' rows in the transaction now).
GROUP_SECONDS = 1.0


class _Group:
    """The load's open transaction: up to GROUP chunks, committed after the chunk that finds it open GROUP_SECONDS."""

    def __init__(self, store: IndexStore):
        self._store = store
        self._transaction = ExitStack()
        self._chunks = 0
        self._since = 0.0

    def open(self) -> None:
        if not self._chunks:
            self._transaction.enter_context(self._store.transaction())
            self._since = time.monotonic()

    def written(self, *, done: bool = False) -> None:
        """A chunk was written in it; ``done``: commit now (the load's last chunk, or one before index steps)."""
        self._chunks += 1
        if done or self._chunks >= GROUP or time.monotonic() - self._since >= GROUP_SECONDS:
            self._chunks = 0
            self._transaction.close()

    def __enter__(self) -> _Group:
        return self

    def __exit__(self, *exc: object) -> None:
        self._chunks = 0
        self._transaction.__exit__(*exc)  # commits, or rolls back on an error or a cancel


# The last chunks of a load over which the indexes it dropped are made: more than the helpers may have sent ahead
# (bulk_read.AHEAD each), so that they are still reading meanwhile when the writer is what the rebuild waits for.
EARLY_CHUNKS = 10


def _early_steps(steps: int, left: int, chunk: int) -> int:
    """How many of the ``steps`` making the dropped indexes to take after a chunk of ``chunk`` files, ``left``
    files to go: spread over the last EARLY_CHUNKS chunks. Made at the end, they were ~2 s at 100,000 files
    (CREATE INDEX x17 and the counts) with the helpers done and a core idle; made here, the helpers read the
    last chunks meanwhile, and the rows written after an index keep it up as any write does (10% of them at
    most, 1% at 1,000,000)."""
    if not steps or left > EARLY_CHUNKS * chunk:
        return 0
    return -(-steps // max(1, -(-left // chunk)))  # all made before the last chunk comes


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """The garbage collector less often while rows stream through: a chunk's rows are a few tuples each, alive
    until written, and collecting every 700 of them (and, as they outlived collections, everything else the
    process holds) was 4% of the writer's time. Rows make no reference cycles; collections still run. The
    setting is the process's: the first of overlapping loads (two vaults' rebuilds) sets it, the last restores it."""
    with _loads_lock:
        if not _loads:
            _loads.append(gc.get_threshold())
            gc.set_threshold(50_000, *_loads[0][1:])
        _loads.append(None)
    try:
        yield
    finally:
        with _loads_lock:
            _loads.pop()
            if len(_loads) == 1:
                gc.set_threshold(*_loads.pop())


_loads_lock = threading.Lock()
_loads: list = []  # the threshold before the first load, then one entry per load running


@contextmanager
def _bulk_load(store: IndexStore, *, enabled: bool = True) -> Iterator[None]:
    """Secondary indexes dropped while empty tables are filled, and made again after (core/index/bulk.py),
    also after a cancel or a failure; one that cannot be made then is made when the index is next opened."""
    if enabled:
        with store.transaction():
            store.drop_secondary_indexes()
    try:
        yield
    except BaseException:
        try:
            store.restore_indexes()
        except Exception as exc:  # noqa: BLE001 - the error being raised is the one to report
            log.warning("The index's secondary indexes are made again when it is next opened (%s).", exc)
        raise
    store.restore_indexes()


def rebuild(store: IndexStore, vault: Vault, tracker: Tracker | None = None) -> SyncReport:
    """Drop every derived row and read the whole vault again. The files are listed, and the helper processes
    reading them started, before the rows are dropped: the helpers' start (an interpreter and its imports, each)
    then overlaps the clear instead of following the scan with the writer waiting (0.3-1.1 s at 100,000 files)."""
    if tracker is not None:
        tracker.check()
    listed = list(vault.scan(stat=False))
    with closing(bulk_read.Chunks(vault, listed)) as chunks:
        with _bulk_load(store):  # from the start: emptying the tables then updates no index either
            store.clear_all_at_once()
            return sync(store, vault, tracker, fresh=True, reading=(listed, chunks))
