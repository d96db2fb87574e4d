"""The entity graph's operations for HTTP and MCP callers: only what the caller may see (serving/calls.py's
owners) counts: an entity is listed with the memories the caller sees, and a link to another user's memory is
left out."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from memory_curator.core.contract import graph as g
from memory_curator.core.contract.results import memory_dict, owner_of
from memory_curator.core.errors import EntityNotFound
from memory_curator.core.graph.graph import Entity
from memory_curator.core.index.filters import Filters
from memory_curator.core.progress import CancelToken, ProgressFn
from memory_curator.core.service import MemoryService
from memory_curator.serving.calls import Caller, Forbidden, owned


def _seen(caller: Caller) -> Filters:
    return Filters(include_superseded=True, visible_to=caller.sees)


def entity_dict(e: Entity, count: int | None = None) -> dict[str, Any]:
    out = asdict(e)
    out.update(sources=list(e.sources), aliases=list(e.aliases), count=e.count if count is None else count)
    return out


def entities(svc: MemoryService, inp: g.Entities, caller: Caller) -> dict[str, Any]:
    seen = _seen(caller)
    out = []
    for e in svc.graph.entities(include_hidden=inp.include_hidden, min_count=inp.min_count, query=inp.query):
        count = len(svc.graph.visible_pks(e.name, seen))  # what this caller's memories say, not everyone's
        if count >= inp.min_count:
            out.append(entity_dict(e, count))
        if len(out) >= inp.limit:
            break
    return {"entities": out, "count": len(out)}


def entity(svc: MemoryService, inp: g.Entity, caller: Caller) -> dict[str, Any]:
    seen = _seen(caller)
    found = svc.graph.entity(inp.name)
    items = svc.graph.memories_of(inp.name, inp.limit, filters=seen) if found else []
    if found is None or not items:
        raise EntityNotFound(f"No entity named {inp.name!r} in the memories you can see: list them with "
                             "memory_entities (GET /v1/entities).")
    return {"entity": entity_dict(found, len(svc.graph.visible_pks(inp.name, seen))),
            "memories": [memory_dict(m) for m in items]}


def links(svc: MemoryService, inp: g.Links, caller: Caller) -> dict[str, Any]:
    owned(svc, inp.memory_id, caller)
    visible: dict[str, bool] = {}

    def sees(memory_id: str) -> bool:
        if memory_id not in visible:
            item = svc.get(memory_id, record_access=False)
            owner = owner_of(item) if item is not None else None
            visible[memory_id] = item is not None and (owner in (None, caller.user_id) or caller.vault_owner)
        return visible[memory_id]

    found = [lk for lk in svc.graph.links(inp.memory_id, shared_limit=inp.limit)
             if sees(lk.target if lk.source == inp.memory_id else lk.source)]
    return {"memory_id": inp.memory_id,
            "entities": [{"name": n, "source": s} for n, s in svc.graph.entities_of(inp.memory_id)],
            "links": [{"source": lk.source, "target": lk.target, "kind": lk.kind, "via": list(lk.via)}
                      for lk in found]}


def graph_query(svc: MemoryService, inp: g.GraphQuery, caller: Caller) -> dict[str, Any]:
    answer = svc.graph.query(inp.query, limit=inp.limit, filters=Filters(visible_to=caller.sees))
    return {"query": answer.query, "entities": answer.entities, "expansion": answer.expansion,
            "results": [{"memory": memory_dict(m), "score": round(score, 6), "why": why}
                        for m, score, why in answer.hits]}


def _owner_only(caller: Caller, what: str = "Entity corrections") -> None:
    if not caller.vault_owner:  # entities.yaml is the whole vault's: one user's edit would change everyone's
        raise Forbidden(f"{what} are the vault owner's: use the app or the CLI.")


def _corrected(svc: MemoryService, name: str | None) -> dict[str, Any]:
    found = svc.graph.entity(name) if name else None
    return {"status": "success", "entity": entity_dict(found) if found else None}


def entity_merge(svc: MemoryService, inp: g.EntityMerge, caller: Caller) -> dict[str, Any]:
    _owner_only(caller)
    svc.graph.merge(inp.names, inp.into)
    return _corrected(svc, inp.into)


def entity_rename(svc: MemoryService, inp: g.EntityRename, caller: Caller) -> dict[str, Any]:
    _owner_only(caller)
    svc.graph.rename(inp.name, inp.new_name)
    return _corrected(svc, inp.new_name)


def entity_hide(svc: MemoryService, inp: g.EntityHide, caller: Caller) -> dict[str, Any]:
    _owner_only(caller)
    svc.graph.hide(inp.name, inp.hidden)
    return _corrected(svc, inp.name)


def link(svc: MemoryService, inp: g.Link, caller: Caller) -> dict[str, Any]:
    _owner_only(caller)
    svc.graph.link(inp.memory_id, inp.target, inp.linked)
    return {"status": "success", "entity": None}


def classify(svc: MemoryService, inp: g.Classify, caller: Caller, *, progress: ProgressFn | None = None,
             cancel: CancelToken | None = None) -> dict[str, Any]:
    _owner_only(caller, "Runs of the classifier over the vault")
    run = svc.graph.labels.classify(inp.memory_ids, progress=progress, cancel=cancel)
    return {"status": "cancelled" if run.cancelled else "success", **asdict(run)}


CALLS = {"entities": entities, "entity": entity, "links": links, "graph_query": graph_query,
         "entity_merge": entity_merge, "entity_rename": entity_rename, "entity_hide": entity_hide, "link": link,
         "classify": classify}
