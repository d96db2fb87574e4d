"""mem0's ``get_all`` output: every record is an item and becomes one memory.

``Memory.get_all`` (mem0 1.x) and the platform's ``client.get_all`` return ``{"results": [record, ...]}``
(paged answers add ``count`` / ``next``; older versions return the bare list). A record is
``{"id", "memory", "hash", "metadata", "categories", "created_at", "updated_at", "user_id", "agent_id",
"run_id", ...}``; only ``memory`` (the text) is needed.

Read: the text, the times, ``categories`` (as keywords), ``run_id`` (as the session), ``user_id`` and
``agent_id`` (as actors), and the record's id, hash and metadata (kept in ``provenance``). Left out: the graph
memory's ``relations`` and mem0's vectors (the app embeds the text itself).
"""

from __future__ import annotations

from typing import Any

from memory_curator.core.ingest.external import (
    ImportOptions,
    Source,
    SourceItem,
    fingerprint,
    iso_time,
    item_id,
    memory_fields,
    short_title,
    text_of,
)

KEEP = ("id", "hash", "user_id", "agent_id", "run_id", "actor_id", "role", "metadata")


def records_of(data: Any) -> list | None:
    """The records of a ``get_all`` answer, or None when ``data`` is not one."""
    records = data.get("results", data.get("memories")) if isinstance(data, dict) else data
    if isinstance(records, list) and records and all(isinstance(r, dict) for r in records) and any(
            isinstance(r.get("memory"), str) for r in records):
        return records
    return None


def read_mem0(records: list, path: str) -> Source:
    items: list[SourceItem] = []
    problems: list[dict[str, str]] = []
    keys: set[str] = set()
    for n, rec in enumerate(records, start=1):
        text = text_of(rec.get("memory")).strip()
        where = f"record {n}"
        if not text:
            problems.append({"where": where, "reason": "has no 'memory' text"})
            continue
        key = str(rec.get("id") or rec.get("hash") or "sha:" + fingerprint(text))
        if key in keys:
            problems.append({"where": where, "reason": f"repeats record {key}"})
            continue
        keys.add(key)
        created = iso_time(rec.get("created_at"))
        items.append(SourceItem(key=key, title=short_title(text, "mem0 memory"), kind="memory", chars=len(text),
                                created_at=created, updated_at=iso_time(rec.get("updated_at")) or created,
                                where=where, payload=rec))
    return Source(format="mem0", path=path, items=items, problems=problems,
                  to_memories=lambda item, options: [_memory(path, item, options)])


def _memory(path: str, item: SourceItem, options: ImportOptions) -> dict[str, Any]:
    rec = item.payload
    categories = rec.get("categories") if isinstance(rec.get("categories"), list) else []
    actors = [str(rec[k]) for k in ("user_id", "agent_id") if isinstance(rec.get(k), (str, int)) and str(rec[k])]
    kept = {k: rec[k] for k in KEEP if rec.get(k) not in (None, "", {}, [])}
    fields: dict[str, Any] = {"actors": actors} if actors else {}
    run = rec.get("run_id")
    return memory_fields(item_id("mem0", item.key), item.title, text_of(rec.get("memory")).strip(),
                         options.category or "context", {"importer": "mem0", "source": path, "mem0": kept},
                         session=f"mem0:{run}" if isinstance(run, (str, int)) and str(run) else None,
                         created=item.created_at, updated=item.updated_at,
                         keywords=[str(c) for c in categories if isinstance(c, (str, int))], **fields)
