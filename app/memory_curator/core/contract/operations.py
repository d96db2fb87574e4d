"""The operations LLM clients and scripts reach, each defined once and named on every face.

An Operation names its input and result models, its error codes, and where each face has it: the Python method
(``python``, with ``renames`` where the Python API predates the contract's name), the MCP tool, the HTTP route
and the CLI command. server/ and mcp/ build their routes and tools from this list; tests/test_contract.py walks
it over every face.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel

from memory_curator.core.contract import graph as g
from memory_curator.core.contract import inputs as i
from memory_curator.core.contract import results as r
from memory_curator.core.contract import seeds as s

BASE_ERRORS = ("VALIDATION_ERROR", "STORAGE_ERROR", "INDEX_ERROR", "INDEX_BUSY", "INTERNAL_ERROR")
BY_ID = ("NOT_FOUND", "FORBIDDEN")


@dataclass(frozen=True)
class Http:
    method: str
    path: str  # {name} segments are fields of the input model
    status: int = 200


@dataclass(frozen=True)
class Operation:
    name: str
    summary: str  # the MCP tool's description and the OpenAPI summary
    input: type[BaseModel]
    result: type[BaseModel]
    errors: tuple[str, ...] = BASE_ERRORS
    python: str | None = None  # MemoryService method
    renames: dict[str, str] = field(default_factory=dict)  # contract field -> Python parameter, where they differ
    mcp: str | None = None
    http: Http | None = None
    cli: str | None = None
    face_only: tuple[str, ...] = ("user_id",)  # fields of the remote faces only (HTTP, MCP)


OPERATIONS: tuple[Operation, ...] = (
    Operation("store", "Store one memory (markdown text) in the user's vault. It waits in the user's review inbox "
              "unless they turned that off. Returns memory_id and the stored memory.", i.Store, r.Stored,
              python="save", mcp="memory_store", http=Http("POST", "/v1/memories", 201), cli="add"),
    Operation("store_batch", "Store up to 100 memories at once. mode 'rollback': one invalid item stores nothing; "
              "'skip': invalid items are reported by index in errors and the rest are stored.", i.StoreBatch,
              r.Batch, python="save_batch", mcp="memory_batch_store", http=Http("POST", "/v1/memories/batch", 201)),
    Operation("get", "Get one memory by id.", i.Get, r.Memory, BASE_ERRORS + BY_ID, python="get",
              mcp="memory_get", http=Http("GET", "/v1/memories/{memory_id}"), cli="get"),
    Operation("update", "Change a memory: give its memory_id and only the fields to change.", i.Update, r.Memory,
              BASE_ERRORS + BY_ID + ("EMBEDDING_ERROR", "SYNC_CONFLICT"), python="update", mcp="memory_update",
              http=Http("PATCH", "/v1/memories/{memory_id}"), cli="update"),
    Operation("update_batch", "Update up to 100 memories at once (each: id plus the fields to change). mode "
              "'rollback': any failure undoes all; 'skip': failures are reported and the rest are updated.",
              i.UpdateBatch, r.Batch, python="update_batch", mcp="memory_batch_update",
              http=Http("POST", "/v1/memories/batch-update"), cli="update-batch"),
    Operation("delete", "Delete a memory (it goes to the vault's trash, where the user can restore it). Deleting "
              "twice is fine: the second answers deleted: false.", i.Delete, r.Deleted, BASE_ERRORS + BY_ID,
              python="delete", mcp="memory_delete", http=Http("DELETE", "/v1/memories/{memory_id}"), cli="delete"),
    Operation("search", "Search memories. search_mode: keyword (exact words), semantic (meaning) or hybrid (both, "
              "the default). Filters: category, session_id, scope (one or several), actor, memory_type, "
              "label, min_salience.", i.Search, r.SearchResults, BASE_ERRORS + ("EMBEDDING_ERROR",), python="search",
              renames={"search_mode": "mode"}, mcp="memory_search", http=Http("POST", "/v1/search"), cli="search"),
    Operation("list", "List memories, newest change first (or by order_by), with the same filters as search. "
              "For the next page send next_cursor back as cursor (null: no more pages).",
              i.ListMemories, r.MemoryPage, python="list_memories", mcp="memory_list",
              http=Http("GET", "/v1/memories"), cli="list", face_only=("user_id", "cursor")),
    Operation("session_context", "All memories of a session, oldest first, with their total token estimate.",
              i.SessionContext, r.SessionContext, python="get_session_context", mcp="memory_session_context",
              http=Http("GET", "/v1/sessions/{session_id}")),
    Operation("get_score", "Get a memory's importance score (0..1, from how often and how recently it is used) "
              "and its parts.", i.GetScore, r.Score, BASE_ERRORS + BY_ID, python="get_score",
              mcp="memory_get_score", http=Http("GET", "/v1/memories/{memory_id}/score"), cli="score"),
    Operation("set_score", "Set a memory's importance score by hand (0..1); it wins over the computed score.",
              i.SetScore, r.Score, BASE_ERRORS + BY_ID, python="set_score", mcp="memory_set_score",
              http=Http("PUT", "/v1/memories/{memory_id}/score"), cli="score"),
    Operation("consolidate", "Consolidate 2 to 50 related memories into one summary memory (extractive). Give "
              "ids, or a query to pick them. preserve_originals keeps the originals (marked as superseded).",
              i.Consolidate, r.Consolidated, BASE_ERRORS + BY_ID, python="consolidate", mcp="memory_consolidate",
              http=Http("POST", "/v1/consolidate", 201), cli="consolidate"),
    Operation("clear_expired", "Move memories whose expires_at has passed to the vault's trash; returns how many.",
              i.ClearExpired, r.Cleared, python="clear_expired", mcp="memory_clear_expired",
              http=Http("POST", "/v1/memories/clear-expired"), cli="clear-expired"),
    Operation("health", "Status: version, each component's status and the index's statistics.", i.Health,
              r.Health, python="stats", mcp="memory_health", http=Http("GET", "/health"), cli="stats"),
    # The entity graph (issue 11): entities, one entity's memories, a memory's links, seed 002's graph query.
    Operation("entities", "List the entities (people, projects, places, names) the memories mention, most "
              "mentioned first, with their aliases; query filters by name.", g.Entities, g.EntityList,
              python="graph.entities", mcp="memory_entities", http=Http("GET", "/v1/entities"), cli="entities"),
    Operation("entity", "One entity and the memories that mention it (by any of its names), newest first.",
              g.Entity, g.EntityMemories, BASE_ERRORS + ("NOT_FOUND",), python="graph.memories_of",
              mcp="memory_entity", http=Http("GET", "/v1/entities/{name}"), cli="entity"),
    Operation("links", "A memory's links both ways (wikilinks, supersedes, parts, links added by hand) and the "
              "memories it shares an entity with, and the entities it mentions.", g.Links, g.MemoryLinks,
              BASE_ERRORS + BY_ID, python="graph.links", renames={"limit": "shared_limit"}, mcp="memory_links",
              http=Http("GET", "/v1/memories/{memory_id}/links"), cli="links"),
    Operation("graph_query", "Seed 002's graph query: the entities a question names, the related names it "
              "expands to, and the memories connected to them, each with how the graph reached it.",
              g.GraphQuery, g.GraphAnswer, python="graph.query", mcp="memory_graph_query",
              http=Http("POST", "/v1/graph/query"), cli="graph-query"),
    Operation("entity_merge", "Merge entities: names become aliases of into (kept in entities.yaml, across "
              "rebuilds).", g.EntityMerge, g.Corrected, BASE_ERRORS + ("NOT_FOUND",), python="graph.merge",
              cli="entity-merge"),
    Operation("entity_rename", "Show an entity under another name.", g.EntityRename, g.Corrected,
              BASE_ERRORS + ("NOT_FOUND",), python="graph.rename", cli="entity-rename"),
    Operation("entity_hide", "Mark a name as not an entity (or take that back).", g.EntityHide, g.Corrected,
              python="graph.hide", cli="entity-hide"),
    Operation("link", "Link two memories by hand, or keep a link the graph found from showing.", g.Link,
              g.Corrected, BASE_ERRORS + ("NOT_FOUND",), python="graph.link",
              renames={"memory_id": "a", "target": "b"}, cli="link"),
    Operation("classify", "Label memories again with the vault's label set (all, or memory_ids); labels a person "
              "set are kept. Answers how many files changed.", g.Classify, g.Classified,
              BASE_ERRORS + ("NOT_FOUND",), python="graph.labels.classify", cli="classify"),
    # The seeds' own HTTP shapes (core/contract/seeds.py): seed 002's store and search, seed 004's direct store.
    Operation("seed_store", "Seed 002: store a memory (text, scope, session_id, actor_id); it is classified "
              "before it is written; answers its memory_id and labels.", s.SeedStore, s.SeedStored,
              python="save", renames={"text": "content", "actor_id": "actors"}, http=Http("POST", "/memory", 201)),
    Operation("seed_search", "Seed 002: hybrid search over one scope or several, 10 results with min_score 0.7 "
              "by default.", s.SeedSearch, r.SearchResults, BASE_ERRORS + ("EMBEDDING_ERROR",), python="search",
              renames={"search_mode": "mode", "actor_id": "actor"}, http=Http("POST", "/memory/search")),
    Operation("store_direct", "Seed 004: store a pre-formatted memory for a user (Direct Memory API); its id is "
              "mem_ + 12 hex digits.", s.DirectStore, s.DirectStored, BASE_ERRORS + ("EMBEDDING_ERROR",),
              python="store_direct", http=Http("POST", "/v1/memories/direct", 201), face_only=()),
)

_BY_NAME = {op.name: op for op in OPERATIONS}
_BY_TOOL = {op.mcp: op for op in OPERATIONS if op.mcp}


def operation(name: str) -> Operation:
    return _BY_NAME[name]


def by_mcp_tool(tool: str) -> Operation:
    return _BY_TOOL[tool]
