"""Importing the memories people already have in other tools: read a source, show its items, import the chosen.

``read_source`` finds the format of a file or folder and lists its items without writing anything;
``preview`` adds what each item is in this vault (new, already imported, changed since...); ``import_source``
imports the chosen items one by one, each reported on its own, with progress and cancel.

Nothing is imported twice. An item's memories have ids derived from the source's own ids, and each memory
records the fingerprint of the text it was imported with. Importing again compares three texts: the source's
now, the vault's now, and that fingerprint (the last text both agreed on):

- the source did not change: nothing to do (whatever was edited in the vault stays);
- the source changed and the vault did not: the memory takes the source's new text (``updated``);
- both changed: the vault's version is kept and the item says so;
- the memory is in the vault's trash: it is not brought back.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from memory_curator.core.errors import Cancelled, CuratorError, ValidationError
from memory_curator.core.ingest import claude_code, conversations, mem0, notes
from memory_curator.core.ingest.claude_code_export import ClaudeCodeExport, export_memories
from memory_curator.core.ingest.external import MODES, ImportOptions, Source, fingerprint
from memory_curator.core.ingest.reading import decode_text, mib, read_bytes
from memory_curator.core.ingest.report import (
    FAILED,
    IMPORTED,
    SKIPPED,
    UPDATED,
    ImportFileError,
    ItemResult,
    SourceReport,
)
from memory_curator.core.lifecycle import batches
from memory_curator.core.lifecycle.trash import trashed_items
from memory_curator.core.memories import Memories
from memory_curator.core.model import BatchResult, MemoryItem
from memory_curator.core.progress import CancelToken, ProgressFn, Tracker
from memory_curator.core.vault.slug import validate_category

FORMATS = ("claude-code", "chatgpt", "claude", "mem0", "basic-memory", "obsidian")
MAX_EXPORT_BYTES = 512 * 1024 * 1024
EXPORT_FILE = "conversations.json"

# What one memory of an item is in this vault.
NEW, SAME, UPDATE, CONFLICT, DELETED = "new", "same", "update", "conflict", "deleted"
# What an item is in this vault, for a preview.
ITEM_STATES = ("new", "imported", "changed", "conflict", "deleted")


@dataclass
class Target:
    """What an import needs of the vault (the service composes it)."""

    get_many: Callable[[list[str]], dict[str, MemoryItem]]
    trashed: Callable[[], set[str]]
    save: Callable[..., Any]  # save_batch(items, mode=..., cancel=...) -> an object with created_ids
    update: Callable[..., Any]  # update_batch(updates, mode=...) -> an object with created_ids
    delete: Callable[[str], bool] | None = None  # to the trash: parts a re-imported file no longer has
    # source path -> ids of memories imported from it by versions that recorded no fingerprint (reimport)
    legacy: Callable[[], dict[str, list[str]]] | None = None


@dataclass
class SourcePreview:
    source: Source
    states: dict[str, str]  # item key -> one of ITEM_STATES
    mode: str

    def as_dict(self) -> dict[str, Any]:
        src = self.source
        out: dict[str, Any] = {
            "format": src.format, "path": src.path, "modes": list(src.modes), "mode": self.mode,
            "items": [{**it.as_dict(), "state": self.states.get(it.key, "new")} for it in src.items],
            "problems": src.problems,
        }
        if src.format in ("obsidian", "basic-memory"):
            out["not_read_in_place"] = notes.not_in_place(src)
        return out


# -- reading ------------------------------------------------------------------------------------------


def read_source(path: str | Path, fmt: str | None = None) -> Source:
    """The items of a source in one of ``FORMATS`` (found from the path and its content when not given)."""
    p = Path(path).expanduser()
    if fmt is not None and fmt not in FORMATS:
        raise ValidationError(f"Unknown source format {fmt!r}: use {', '.join(FORMATS)}.", field="format")
    if not p.exists():
        raise ValidationError(f"{p} does not exist.", field="path")
    shown = str(p.resolve())
    # A notes vault may hold a CLAUDE.md too: Obsidian's own folder decides first, basic-memory's notes after.
    if fmt is None and p.is_dir() and (p / ".obsidian").is_dir():
        return notes.read_notes(p, "obsidian")
    if fmt in (None, "claude-code") and claude_code.is_claude_code(p):
        return claude_code.read_claude_code(p)
    if fmt in ("obsidian", "basic-memory") and p.is_dir():
        return notes.read_notes(p, fmt)
    if fmt is None and notes.notes_format(p) == "basic-memory":
        return notes.read_notes(p, "basic-memory")
    if fmt in (None, "chatgpt", "claude", "mem0") and (p.is_file() or (p / EXPORT_FILE).is_file()):
        data = _json_of(p)
        records = mem0.records_of(data)
        if fmt in (None, "chatgpt") and conversations.is_chatgpt(data):
            return conversations.read_export(data, "chatgpt", shown)
        if fmt in (None, "claude") and conversations.is_claude(data):
            return conversations.read_export(data, "claude", shown)
        if fmt in (None, "mem0") and records is not None:
            return mem0.read_mem0(records, shown)
        if fmt is not None:
            raise ValidationError(f"{p} is not a {fmt} source (the JSON does not have its shape).", field="path")
    raise ValidationError(
        f"{p} is not a source this app knows: choose a Claude Code project or memory folder (CLAUDE.md, "
        "MEMORY.md), a ChatGPT or Claude data export (the .zip or its conversations.json), mem0's get_all JSON, "
        "or an Obsidian / basic-memory folder. Other files are imported with File › Import.", field="path")


def _json_of(p: Path) -> Any:
    try:
        if p.is_dir():
            raw = read_bytes(p / EXPORT_FILE, MAX_EXPORT_BYTES)
        elif zipfile.is_zipfile(p):
            raw = _from_zip(p)
        else:
            raw = read_bytes(p, MAX_EXPORT_BYTES)
        text, _ = decode_text(raw)
        return json.loads(text)
    except ImportFileError as exc:
        raise ValidationError(f"{p.name} {exc}.", field="path") from None
    except json.JSONDecodeError as exc:
        raise ValidationError(f"{p.name} is not valid JSON (line {exc.lineno}: {exc.msg}).", field="path") from None
    except RecursionError:
        raise ValidationError(f"{p.name} nests its JSON too deeply to be an export.", field="path") from None


def _from_zip(p: Path) -> bytes:
    """``conversations.json`` of an export archive (or its only JSON file), read within the size limit."""
    try:
        with zipfile.ZipFile(p) as zf:
            infos = [i for i in zf.infolist() if not i.is_dir() and i.filename.lower().endswith(".json")]
            named = [i for i in infos if PurePosixPath(i.filename).name == EXPORT_FILE]
            pick = min(named, key=lambda i: len(i.filename)) if named else (infos[0] if len(infos) == 1 else None)
            if pick is None:
                raise ImportFileError(f"holds no {EXPORT_FILE}: is it a ChatGPT or Claude data export?")
            if pick.file_size > MAX_EXPORT_BYTES:
                raise ImportFileError(f"holds a {mib(pick.file_size)} {EXPORT_FILE} (the limit is "
                                      f"{mib(MAX_EXPORT_BYTES)})")
            with zf.open(pick) as f:
                data = f.read(MAX_EXPORT_BYTES + 1)  # the header's size can lie
            if len(data) > MAX_EXPORT_BYTES:
                raise ImportFileError(f"holds a {EXPORT_FILE} larger than {mib(MAX_EXPORT_BYTES)}")
            return data
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError, EOFError) as exc:
        raise ImportFileError(f"is not a readable ZIP archive ({exc})") from None


# -- what an item is in this vault ------------------------------------------------------------------


def classify(memory: dict[str, Any], current: MemoryItem | None, trashed: set[str]) -> str:
    """One memory an item would make: NEW, SAME (nothing new from the source), UPDATE or CONFLICT."""
    if current is None:
        return DELETED if memory["id"] in trashed else NEW
    new = fingerprint(memory["content"])
    here = fingerprint(current.content)
    base = memory.get("_base_fingerprint") or (current.provenance or {}).get("fingerprint")
    if new == here or new == base:
        return SAME
    return UPDATE if here == base else CONFLICT


def item_state(states: Sequence[str]) -> str:
    if not states or all(s == NEW for s in states):
        return "new"
    if any(s in (UPDATE, NEW) for s in states):
        return "changed"
    if CONFLICT in states:
        return "conflict"
    if all(s == DELETED for s in states):
        return "deleted"
    return "imported"


def _states(source: Source, options: ImportOptions, target: Target) -> dict[str, list[tuple[dict, str]]]:
    built = {it.key: source.to_memories(it, options) for it in source.items}
    current = target.get_many([m["id"] for ms in built.values() for m in ms])
    trashed = target.trashed()
    return {k: [(m, classify(m, current.get(m["id"]), trashed)) for m in ms] for k, ms in built.items()}


def preview(source: Source, target: Target, mode: str = "memory") -> SourcePreview:
    options = _options(source, mode, None)
    states = {k: item_state([s for _, s in v]) for k, v in _states(source, options, target).items()}
    return SourcePreview(source, states, options.mode)


def _options(source: Source, mode: str, category: str | None) -> ImportOptions:
    if mode not in MODES or mode not in source.modes:
        raise ValidationError(f"A {source.format} source imports as {' or '.join(source.modes)}, not {mode!r}.",
                              field="mode")
    return ImportOptions(mode=mode, category=validate_category(category) if category else None)


# -- importing ----------------------------------------------------------------------------------------


def import_source(source: Source, target: Target, keys: Sequence[str] | None = None, *, mode: str = "memory",
                  category: str | None = None, progress: ProgressFn | None = None,
                  cancel: CancelToken | None = None,
                  on_item: Callable[[ItemResult], None] | None = None) -> SourceReport:
    """Import the items named by ``keys`` (all when None), in the source's order. One item failing never
    stops the others; a cancel keeps what was imported (``report.cancelled``)."""
    options = _options(source, mode, category)
    by_key = {it.key: it for it in source.items}
    if keys is not None:
        unknown = [k for k in keys if k not in by_key]
        if unknown:
            raise ValidationError(f"{len(unknown)} chosen item(s) are not in this source: {unknown[:3]}",
                                  field="keys")
        wanted = set(keys)
        chosen = [it for it in source.items if it.key in wanted]
    else:
        chosen = list(source.items)
    report = SourceReport(source.format, source.path, problems=list(source.problems))
    tracker = Tracker(len(chosen), progress, cancel)
    trashed = target.trashed()
    for item in chosen:
        try:
            tracker.check()
        except Cancelled:
            report.cancelled = True
            break
        result = ItemResult(item.key, item.title)
        report.items.append(result)
        try:
            _import_item(result, source, item, options, target, trashed, cancel)
        except Cancelled:
            report.cancelled = True
            if on_item is not None:
                on_item(result)
            break
        if on_item is not None:
            on_item(result)
        try:
            tracker.step(1, item.title)
        except Cancelled:
            report.cancelled = True
            break
    return report


def _import_item(result: ItemResult, source: Source, item: Any, options: ImportOptions, target: Target,
                 trashed: set[str], cancel: CancelToken | None) -> None:
    try:
        memories = source.to_memories(item, options)
    except (ValueError, TypeError, KeyError) as exc:  # a record of a shape the reader did not expect
        result.status, result.error = FAILED, f"could not be read ({type(exc).__name__}: {exc})"
        return
    current = target.get_many([m["id"] for m in memories])
    fresh, updates = [], []
    counts = {CONFLICT: 0, DELETED: 0, SAME: 0}
    for memory in memories:
        state = classify(memory, current.get(memory["id"]), trashed)
        memory = {k: v for k, v in memory.items() if k != "_base_fingerprint"}
        if state == NEW:
            fresh.append(memory)
        elif state == UPDATE:
            cur = current[memory["id"]]
            updates.append({"id": memory["id"], "content": memory["content"], "title": memory["title"],
                            "provenance": {**(cur.provenance or {}), **memory["provenance"]}})
        else:
            counts[state] += 1
    if counts[CONFLICT]:
        result.warnings.append(f"{counts[CONFLICT]} memory(ies) changed both in the source and in this vault "
                               "since the last import: this vault's version is kept")
    if counts[DELETED]:
        result.warnings.append(f"{counts[DELETED]} memory(ies) of it are in this vault's trash: not imported "
                               "again (restore them from the trash)")
    try:
        if fresh:
            try:
                batch = target.save(fresh, mode="rollback", cancel=cancel)
            except Cancelled:
                result.memory_ids = list(target.get_many([m["id"] for m in fresh]))
                result.status = IMPORTED if result.memory_ids else SKIPPED
                raise
            result.memory_ids = list(batch.created_ids)
        if updates:
            result.updated_ids = list(target.update(updates, mode="rollback").created_ids)
    except CuratorError as exc:
        result.status, result.error = FAILED, str(exc)
        return
    if result.memory_ids:
        result.status = IMPORTED
    elif result.updated_ids:
        result.status = UPDATED
    else:
        result.status = SKIPPED
        result.error = "already in this vault" if counts[SAME] == len(memories) else "nothing new to import"


class Sources:
    """``MemoryService.sources``: other assistants' memories in, curated memories back out to Claude Code."""

    def __init__(self, memories: Memories):
        self._memories = memories

    def read(self, path: str | Path, format: str | None = None) -> Source:
        """The items of a source (its format found from the path unless given); writes nothing."""
        return read_source(path, format)

    def preview(self, source: Source | str | Path, *, mode: str = "memory", format: str | None = None) -> SourcePreview:
        """The items of a source and what each is in this vault (new, imported, changed, conflict, deleted)."""
        return preview(self._source(source, format), self.target(), mode)

    def import_items(self, source: Source | str | Path, keys: Sequence[str] | None = None, *, mode: str = "memory",
                     category: str | None = None, format: str | None = None, progress: ProgressFn | None = None,
                     cancel: CancelToken | None = None,
                     on_item: Callable[[ItemResult], None] | None = None) -> SourceReport:
        """Import the chosen items (``keys``; all when None): one memory per item, or per message of a
        conversation (``mode="turns"``). Importing again adds only what is new (see the module's doc)."""
        return import_source(self._source(source, format), self.target(), keys, mode=mode, category=category,
                             progress=progress, cancel=cancel, on_item=on_item)

    def export_claude_code(self, memory_ids: Sequence[str], dest: str | Path, *, layout: str = "memory",
                           replace: bool = False) -> ClaudeCodeExport:
        """Memories written for Claude Code: a memory folder (``MEMORY.md``, topic files) or a ``CLAUDE.md``."""
        return export_memories(self._memories.store.get_many, memory_ids, Path(dest), layout, replace=replace)

    @staticmethod
    def _source(source: Source | str | Path, format: str | None) -> Source:
        return source if isinstance(source, Source) else read_source(source, format)

    def target(self) -> Target:
        """The vault as an import sees it (File › Import uses it too)."""
        memories = self._memories
        return Target(
            get_many=memories.store.get_many, trashed=lambda: {m.id for m in trashed_items(memories.vault)},
            save=lambda items, mode, cancel: BatchResult(*memories.create_many(items, mode, Tracker(0, None, cancel))),
            update=lambda updates, mode: BatchResult(*batches.update_batch(memories, updates, mode, Tracker(0))),
            delete=memories.delete, legacy=memories.store.imported_without_fingerprint)
