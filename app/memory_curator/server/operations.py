"""Engine calls shared by the HTTP routes and the MCP tools; each runs on the engine thread."""

from __future__ import annotations

from typing import Any

from memory_curator import __version__
from memory_curator.core.errors import MemoryNotFoundError
from memory_curator.core.service import MemoryService
from memory_curator.server.schemas import SearchRequest, owner_of, result_dict


class ApiError(Exception):
    """An answer the engine has no error class for (403 FORBIDDEN, a bad request body)."""

    def __init__(self, code: str, message: str, details: Any = None):
        super().__init__(message)
        self.code = code
        self.details = details


def health(svc: MemoryService) -> dict[str, Any]:
    stats = svc.stats()
    emb = svc.embedder_status()
    return {
        "status": "ok",
        "version": __version__,
        "vault": str(svc.vault.root),
        "embedder": {"provider": emb.provider, "model": emb.model, "reachable": emb.available, "detail": emb.detail},
        "index": {"memories": stats.total_count, "embedded": stats.embedded_count,
                  "unembedded": stats.unembedded_count, "by_category": stats.by_category,
                  "inbox": svc.inbox.count(), "trash": stats.trash_count, "size_bytes": stats.index_size_bytes},
    }


def delete(svc: MemoryService, memory_id: str, user_id: str | None) -> dict[str, Any]:
    """Idempotent: deleting a memory that is already in the trash succeeds with ``deleted: false``."""
    with svc.write_lock.hold():  # the owner check and the delete see the same memory
        item = svc.get(memory_id, record_access=False)
        if item is None:
            if any(t.id == memory_id for t in svc.list_trash()):
                return {"status": "success", "deleted": False, "memory_id": memory_id,
                        "message": "Already deleted (it is in the vault's trash)."}
            raise MemoryNotFoundError(memory_id)
        owner = owner_of(item)
        if owner is not None and owner != user_id:
            raise ApiError("FORBIDDEN", f"Memory {memory_id!r} belongs to another user: pass its owner's user_id.")
        svc.delete(memory_id)
    return {"status": "success", "deleted": True, "memory_id": memory_id}


def search(svc: MemoryService, req: SearchRequest) -> dict[str, Any]:
    results = svc.search(req.query, limit=req.limit, mode=req.search_mode, category=req.category,
                         session_id=req.session_id, min_salience=req.min_salience, sort_by=req.sort_by,
                         keyword_weight=req.keyword_weight, scope=req.scope, actor=req.actor)
    return {"query": results.query, "results": [result_dict(r) for r in results], "warnings": list(results.warnings)}
