"""Each contract operation's call on the engine thread, for the HTTP routes and the MCP tools alike.

A call takes the service, the validated input (a core/contract/inputs.py model) and the Caller, and answers the
operation's result as JSON-ready data (core/contract/results.py). A memory stored with a ``user_id`` belongs to
that user: another caller's get or change of it is FORBIDDEN (403), and search, list and session context leave
it out. A caller without ``user_id`` sees only memories without an owner. With ``require_user`` (the servers'
``--require-user``) every operation but health needs a ``user_id``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from memory_curator import __version__
from memory_curator.core import status
from memory_curator.core.contract import cursors, seeds
from memory_curator.core.contract import inputs as i
from memory_curator.core.contract.inputs import engine_values
from memory_curator.core.contract.results import hit_dict, memory_dict, notice_dicts, owner_of, to_jsonable
from memory_curator.core.errors import CuratorError, MemoryNotFoundError, ValidationError
from memory_curator.core.index.listing import cursor_key
from memory_curator.core.model import MEMORY_TYPES, MemoryItem, estimate_tokens, utcnow
from memory_curator.core.service import MemoryService


class Forbidden(CuratorError):
    code = "FORBIDDEN"


class Expired(MemoryNotFoundError):
    def __init__(self, memory_id: str):
        super().__init__(memory_id)
        self.args = (f"Memory {memory_id!r} has expired (expires_at passed); clear_expired moves it to the trash.",)


@dataclass(frozen=True)
class Caller:
    client: str  # recorded as the provenance of what it stores: "http", "mcp", "claude-desktop"...
    user_id: str | None = None
    require_user: bool = False
    vault_owner: bool = False  # the CLI, run by the vault's owner: sees every memory

    @property
    def sees(self) -> tuple[str, ...] | None:
        """The owners whose memories this caller may read besides the ownerless ones (Filters.visible_to;
        None: every memory)."""
        if self.vault_owner:
            return None
        return (self.user_id,) if self.user_id else ()


def provenance(caller: Caller, session_id: str | None) -> dict[str, Any]:
    out = {"client": caller.client, "time": datetime.now().astimezone().isoformat(timespec="seconds")}
    if session_id:
        out["session"] = session_id
    if caller.user_id:
        out["user_id"] = caller.user_id
    return out


def new_memory(fields: BaseModel, caller: Caller) -> dict[str, Any]:
    """``MemoryService.save`` arguments: a client's memory is source "ai", with provenance."""
    values = engine_values(fields)
    return {**values, "source": "ai", "provenance": provenance(caller, values.get("session_id"))}


def owned(svc: MemoryService, memory_id: str, caller: Caller) -> MemoryItem:
    """The memory, when the caller may see it (its owner, or no owner); else NOT_FOUND or FORBIDDEN."""
    item = svc.get(memory_id, record_access=False)
    if item is None:
        raise svc.store.missing(memory_id)
    owner = owner_of(item)
    if owner is not None and owner != caller.user_id and not caller.vault_owner:
        raise Forbidden(f"Memory {memory_id!r} belongs to another user: pass its owner's user_id.")
    return item


def store(svc: MemoryService, inp: i.Store, caller: Caller) -> dict[str, Any]:
    return stored(settled(svc, svc.save(**new_memory(inp, caller))))


def settled(svc: MemoryService, item: MemoryItem) -> MemoryItem:
    """Seed 003's answer says what was embedded (used_summary, chunk_count). Saves do not wait on embedding, so
    a client's store gives the background unit as long as a search gives a query vector, then reads back: a
    slow or absent embedder answers chunk_count 0 (embedded later) instead of holding the client."""
    if svc.embedding.usable() is not None and svc.embedding.wait(svc.config.query_embed_wait_s):
        return svc.get(item.id, record_access=False) or item
    return item


def stored(item: MemoryItem) -> dict[str, Any]:
    return {"status": "success", "memory_id": item.id, "memory": memory_dict(item), "used_summary": item.used_summary,
            "chunk_count": item.chunk_count}


def store_batch(svc: MemoryService, inp: i.StoreBatch, caller: Caller) -> dict[str, Any]:
    if not inp.items:  # skip mode, and every item was refused by the contract
        return inp.merged({"success_count": 0, "error_count": 0, "created_ids": [], "errors": []})
    return inp.merged(svc.save_batch([new_memory(it, caller) for it in inp.items], mode=inp.mode).as_dict())


def get(svc: MemoryService, inp: i.Get, caller: Caller) -> dict[str, Any]:
    """The memory; one whose ``expires_at`` passed is gone for clients, as seed 003 says (404 until
    clear_expired moves it to the trash; the app and the CLI still show it)."""
    item = owned(svc, inp.memory_id, caller)
    if item.expires_at is not None and item.expires_at <= utcnow():
        raise Expired(inp.memory_id)
    item = svc.get(inp.memory_id)  # a recall, logged
    if item is None:
        raise svc.store.missing(inp.memory_id)
    return memory_dict(item)


def update(svc: MemoryService, inp: i.Update, caller: Caller) -> dict[str, Any]:
    with svc.write_lock.hold():  # the owner check and the change see the same memory
        owned(svc, inp.memory_id, caller)
        return memory_dict(svc.update(inp.memory_id, **engine_values(inp, drop=("user_id", "memory_id"))))


def update_batch(svc: MemoryService, inp: i.UpdateBatch, caller: Caller) -> dict[str, Any]:
    with svc.write_lock.hold():
        for u in inp.updates:
            owned(svc, u.id, caller)
        return svc.update_batch([{"id": u.id, **engine_values(u, drop=("id",))} for u in inp.updates],
                                mode=inp.mode).as_dict()


def delete(svc: MemoryService, inp: i.Delete, caller: Caller) -> dict[str, Any]:
    """Idempotent: deleting a memory that is already in the trash succeeds with ``deleted: false``."""
    mid = inp.memory_id
    with svc.write_lock.hold():
        if svc.get(mid, record_access=False) is None and any(t.id == mid for t in svc.list_trash()):
            return {"status": "success", "deleted": False, "memory_id": mid,
                    "message": "Already deleted (it is in the vault's trash)."}
        item = owned(svc, mid, caller)
        svc.delete(mid)
    # Where it was deleted from (seed 004's DeleteMemoryResponse.storage): the file to the trash, its index row
    # and vectors; the typed kinds it was of.
    kinds = item.memory_types
    storage = {"vault": True, "index": True, "vectors": item.embedded, **{k: k in kinds for k in MEMORY_TYPES}}
    return {"status": "success", "deleted": True, "memory_id": mid, "storage": storage}


def search(svc: MemoryService, inp: i.Search, caller: Caller) -> dict[str, Any]:
    results = svc.search(inp.query, limit=inp.limit, mode=inp.search_mode, category=inp.category,
                         session_id=inp.session_id, min_salience=inp.min_salience, sort_by=inp.sort_by,
                         keyword_weight=inp.keyword_weight, scope=inp.scope, actor=inp.actor,
                         memory_type=inp.memory_type, importance_weight=inp.importance_weight,
                         min_score=inp.min_score, label=inp.label, visible_to=caller.sees)
    return {"query": results.query, "mode_used": results.mode_used, "results": [hit_dict(r) for r in results],
            "warnings": list(results.warnings), "notices": notice_dicts(results.warnings)}


def page(svc: MemoryService, start: cursors.Cursor, limit: int, sees: tuple[str, ...] | None,
         **filters: Any) -> tuple[list[MemoryItem], str | None]:
    """The ``limit`` memories from ``start`` on, and the cursor of the next page (None after the last): one row
    more than the page is read to know. Shared by the servers' list and the CLI's."""
    items = svc.list_memories(limit=limit + 1, offset=start.offset, order_by=start.order_by, visible_to=sees,
                              after=start.after, **filters)
    if len(items) <= limit:
        return items, None
    items = items[:limit]
    key = cursor_key(start.order_by, items[-1])
    following = (cursors.Cursor(start.order_by, offset=start.offset + len(items)) if key is None
                 else cursors.Cursor(start.order_by, key, svc.store.pk_of(items[-1].id)))
    return items, cursors.encode(following)


def list_memories(svc: MemoryService, inp: i.ListMemories, caller: Caller) -> dict[str, Any]:
    """A page, and the cursor of the next (core/contract/cursors.py) when there is one."""
    start = cursors.decode(inp.cursor) if inp.cursor else cursors.Cursor(inp.order_by, offset=inp.offset)
    items, following = page(svc, start, inp.limit, caller.sees, category=inp.category, session_id=inp.session_id,
                            scope=inp.scope, actor=inp.actor, memory_type=inp.memory_type, label=inp.label)
    return {"memories": [memory_dict(m) for m in items], "count": len(items), "offset": start.offset,
            "next_cursor": following}


def session_context(svc: MemoryService, inp: i.SessionContext, caller: Caller) -> dict[str, Any]:
    items = svc.get_session_context(inp.session_id, visible_to=caller.sees)
    tokens = estimate_tokens("\n\n".join(it.content for it in items))
    return {"session_id": inp.session_id, "count": len(items), "tokens": tokens,
            "memories": [memory_dict(it) for it in items]}


def _score(score: Any) -> dict[str, Any]:
    """An ImportanceScore, with ``score`` (the importance in use) first as seed 001 names it."""
    return {"score": score.importance, **to_jsonable(score)}


def get_score(svc: MemoryService, inp: i.GetScore, caller: Caller) -> dict[str, Any]:
    owned(svc, inp.memory_id, caller)
    return _score(svc.get_score(inp.memory_id))


def set_score(svc: MemoryService, inp: i.SetScore, caller: Caller) -> dict[str, Any]:
    with svc.write_lock.hold():
        owned(svc, inp.memory_id, caller)
        return _score(svc.set_score(inp.memory_id, inp.score))


def consolidate(svc: MemoryService, inp: i.Consolidate, caller: Caller) -> dict[str, Any]:
    with svc.write_lock.hold():
        ids = inp.ids or [r.memory.id for r in svc.search(inp.query or "", limit=10, record_access=False,
                                                          visible_to=caller.sees)]  # the query's hits it may see
        for mid in ids:
            owned(svc, mid, caller)
        result = svc.consolidate(ids=ids, preserve_originals=inp.preserve_originals, title=inp.title,
                                 category=inp.category)
    return {"memory": memory_dict(result.memory), "source_ids": list(result.source_ids), "trashed": result.trashed}


def clear_expired(svc: MemoryService, inp: i.ClearExpired, caller: Caller) -> dict[str, Any]:
    return {"status": "success", "cleared": svc.clear_expired()}


def health(svc: MemoryService, inp: i.Health, caller: Caller) -> dict[str, Any]:
    """Seed 002's health: the service's status, each component's (core/status.py) and the index's statistics."""
    stats = svc.stats()
    emb = svc.embedder_status()
    parts = status.components(svc.vault, svc.store, emb, svc.config)
    return {
        "status": status.overall(parts),
        "version": __version__,
        "vault": str(svc.vault.root),
        "components": parts,
        "embedder": {"provider": emb.provider, "model": emb.model, "reachable": emb.available, "detail": emb.detail},
        # What the background upkeep (core/index/upkeep.py) has left: a server's polls run it meanwhile.
        "index": {**status.index_statistics(stats, svc.store), "inbox": svc.inbox.count(),
                  "upkeep": svc.upkeep.pending().describe()},
    }


def seed_store(svc: MemoryService, inp: seeds.SeedStore, caller: Caller) -> dict[str, Any]:
    """Seed 002's store: its actor is the memory's one actor; the labels the classifier gave come back."""
    fields = i.Store(content=inp.text, scope=inp.scope, session_id=inp.session_id, user_id=inp.user_id,
                     actors=[inp.actor_id] if inp.actor_id else [])
    item = settled(svc, svc.save(**new_memory(fields, caller)))
    return {"status": "success", "memory_id": item.id, "labels": item.extra.get("labels") or {},
            "memory": memory_dict(item)}


def seed_search(svc: MemoryService, inp: seeds.SeedSearch, caller: Caller) -> dict[str, Any]:
    """Seed 002's search: the contract's search with its defaults; each hit with the seed's metadata."""
    found = search(svc, i.Search(query=inp.query, scope=inp.scope, session_id=inp.session_id, actor=inp.actor_id,
                                 limit=inp.limit, min_score=inp.min_score, search_mode=inp.search_mode,
                                 user_id=inp.user_id), caller)
    for hit in found["results"]:
        m = hit["memory"]
        hit["metadata"] = {"scope": m.get("scope"), "session_id": m.get("session_id"), "actors": m.get("actors", []),
                           "timestamp": m["created_at"], "labels": m.get("labels", {})}
    return found


def store_direct(svc: MemoryService, inp: seeds.DirectStore, caller: Caller) -> dict[str, Any]:
    """Seed 004's direct store: every field of the request, mapped onto the vault format by core/direct.py."""
    out = svc.store_direct(**inp.model_dump(exclude_none=True))
    return replace(out, memory=settled(svc, out.memory)).as_dict()


CALLS: dict[str, Callable[[MemoryService, Any, Caller], dict[str, Any]]] = {
    "store": store, "store_batch": store_batch, "get": get, "update": update, "update_batch": update_batch,
    "delete": delete, "search": search, "list": list_memories, "session_context": session_context,
    "get_score": get_score, "set_score": set_score, "consolidate": consolidate, "clear_expired": clear_expired,
    "health": health, "seed_store": seed_store, "seed_search": seed_search, "store_direct": store_direct,
}


def run(svc: MemoryService, name: str, inp: BaseModel, caller: Caller) -> dict[str, Any]:
    """Operation ``name`` on the engine thread (ServiceWorker.call(run, name, inp, caller))."""
    from memory_curator.serving import graph_calls  # noqa: PLC0415 - it builds on this module
    if caller.require_user and not caller.user_id and "user_id" in type(inp).model_fields:
        raise ValidationError("user_id is required: this server serves each user's own memories "
                              "(started with --require-user).", field="user_id", code="MISSING_FIELD")
    return {**CALLS, **graph_calls.CALLS}[name](svc, inp, caller)
