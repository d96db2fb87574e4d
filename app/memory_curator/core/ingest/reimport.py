"""A document file (markdown, text, PDF, image) imported into a vault that may have it already.

A file's memories have ids derived from its path (``documents.file_id``) and record the fingerprint of the
text they were imported with, as other tools' items do (``sources``). Importing the file again compares, for
each memory, the file's text now, the vault's now and that fingerprint:

- nothing changed in the file: the file is skipped and says so (whatever was edited in the vault stays);
- the file changed and the vault did not: its memories take the file's new text (``updated``); parts the file
  gained are added, parts it lost go to the trash;
- the file changed and so did one of its memories here: nothing of it is written, the vault's version is kept
  and the file says which (``conflict``), so the user can decide; importing it again with ``replace_edited``
  takes the file's version (a document is updated whole or not at all);
- its memories are in the vault's trash: it is not brought back.
"""

from __future__ import annotations

from typing import Any

from memory_curator.core.errors import Cancelled, CuratorError
from memory_curator.core.ingest.external import fingerprint
from memory_curator.core.ingest.report import FAILED, IMPORTED, SKIPPED, UPDATED, FileResult
from memory_curator.core.ingest.sources import CONFLICT, DELETED, NEW, SAME, UPDATE, Target, classify
from memory_curator.core.model import MemoryItem
from memory_curator.core.progress import CancelToken

_PLACE = ("parent", "part", "parts_total", "pages", "section", "parts")


def edited_here(item: MemoryItem) -> bool:
    """True when the memory's text is no longer the text it was imported with."""
    base = (item.provenance or {}).get("fingerprint")
    return base is None or fingerprint(item.content) != base


def _moved(item: MemoryItem, new: dict[str, Any]) -> bool:
    """A part whose text is the same but whose place in the file (title, part number, pages) is not."""
    prov = item.provenance or {}
    return item.title != new["title"] or any(prov.get(k) != new["provenance"].get(k) for k in _PLACE)


def _imported_by_an_earlier_version(result: FileResult, items: list[dict[str, Any]], target: Target) -> bool:
    """A file imported by a version that gave its memories random ids: skipped when they hold its text now
    (True), else imported beside them with a warning naming them."""
    source = (items[0].get("provenance") or {}).get("source")
    ids = (target.legacy() if target.legacy else {}).get(source or "", [])
    if not ids:
        return False
    earlier = target.get_many(ids)
    if not earlier:
        return False
    if {fingerprint(it["content"]) for it in items} <= {fingerprint(m.content) for m in earlier.values()}:
        result.status = SKIPPED
        result.error = "imported before (by an earlier version of this app), and the file has not changed since"
        return True
    result.warnings.append(f"imported before by an earlier version of this app as “{next(iter(earlier.values())).title}”"
                           f"{f' and {len(earlier) - 1} more' if len(earlier) > 1 else ''}: the file changed since, "
                           "so its new text is imported beside it (move the older one to the trash if you like)")
    return False


def import_document(result: FileResult, items: list[dict[str, Any]], target: Target,
                    cancel: CancelToken | None, replace_edited: bool = False) -> None:
    """Save, update or skip the memories of one file (parent first). Raises Cancelled after a partial save.
    ``replace_edited``: the user chose the file's version over edits made here (the answer to a conflict)."""
    current = target.get_many([it["id"] for it in items])
    trashed = target.trashed()
    states = {it["id"]: classify(it, current.get(it["id"]), trashed) for it in items}
    if replace_edited:
        states = {mid: UPDATE if s == CONFLICT else s for mid, s in states.items()}
    parent = current.get(items[0]["id"])
    wanted = {it["id"] for it in items}
    old_parts = [p for p in ((parent.provenance or {}).get("parts") or [] if parent else []) if p not in wanted]
    lost = list(target.get_many([str(p) for p in old_parts]).values())
    kinds = set(states.values())
    if kinds == {NEW} and _imported_by_an_earlier_version(result, items, target):
        return
    if kinds <= {SAME, DELETED} and not lost:
        result.status = SKIPPED
        if DELETED in kinds and SAME not in kinds:
            result.error = "imported before and moved to this vault's trash: restore it from the trash"
        else:
            result.error = "imported before, and the file has not changed since: nothing new to import"
        return
    edited = [current[mid].title for mid, s in states.items() if s == CONFLICT]
    edited += [m.title for m in lost if edited_here(m) and not replace_edited]
    if edited:
        result.status, result.conflict = SKIPPED, True
        result.error = (f"changed since its last import, and so was “{edited[0]}”"
                        + (f" and {len(edited) - 1} more of its memories" if len(edited) > 1 else "")
                        + " in this vault: this vault's version is kept (import it again choosing the file's "
                        "version to replace those edits)")
        return
    if DELETED in kinds:
        result.warnings.append(f"{sum(s == DELETED for s in states.values())} part(s) of it are in this vault's "
                               "trash: not imported again")
    fresh = [it for it in items if states[it["id"]] == NEW]
    updates = [{"id": it["id"], "content": it["content"], "title": it["title"],
                "provenance": {**(current[it["id"]].provenance or {}), **it["provenance"]}}
               for it in items if states[it["id"]] == UPDATE
               or (states[it["id"]] == SAME and _moved(current[it["id"]], it))]
    try:
        if fresh:
            try:
                result.memory_ids = list(target.save(fresh, mode="rollback", cancel=cancel).created_ids)
            except Cancelled:
                # Files are written before embedding: what was written stays (reindex embeds the rest).
                result.memory_ids = list(target.get_many([it["id"] for it in fresh]))
                result.status = IMPORTED if result.memory_ids else SKIPPED
                raise
        if updates and parent is not None:
            result.updated_ids = list(target.update(updates, mode="rollback").created_ids)
    except CuratorError as exc:
        result.status, result.error = FAILED, str(exc)
        return
    if target.delete is not None:
        for m in lost:
            target.delete(m.id)
        if lost:
            result.warnings.append(f"{len(lost)} part(s) the file no longer has were moved to the trash")
    result.status = UPDATED if parent is not None else IMPORTED
