"""The engine's value types. Frozen: a changed memory is a new value (``dataclasses.replace``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from typing import Any


class MemoryCategory(str, Enum):
    """The default categories. Vaults may hold others: a category is any safe folder name."""

    DECISIONS = "decisions"  # architecture choices, technology decisions: never decay
    SUMMARIES = "summaries"  # session summaries: decay slowly
    CONTEXT = "context"  # working memory of the active session: decays fast


DEFAULT_CATEGORIES: tuple[str, ...] = tuple(c.value for c in MemoryCategory)
SOURCES: tuple[str, ...] = ("user", "ai", "system")
SEARCH_MODES: tuple[str, ...] = ("keyword", "semantic", "hybrid")
SORT_KEYS: tuple[str, ...] = ("relevance", "importance", "recency")
DEFAULT_SCOPES: tuple[str, ...] = ("global", "project", "session")
# Typed memories (seed 004): a memory is of a kind when it holds any of that kind's fields.
TYPED_FIELDS: dict[str, tuple[str, ...]] = {
    "episodic": ("event_timestamp", "location", "participants", "event_type"),
    "emotional": ("emotional_state", "valence", "arousal", "trigger_event"),
    "procedural": ("skill_name", "proficiency_level"),
}
MEMORY_TYPES: tuple[str, ...] = tuple(TYPED_FIELDS)


def utcnow() -> datetime:
    # Whole seconds: timestamps are shown to people and written to YAML.
    return datetime.now(timezone.utc).replace(microsecond=0)


@dataclass(frozen=True)
class MemoryItem:
    """One thing to remember: a markdown file in the vault plus what the index knows about it."""

    id: str
    content: str
    title: str
    category: str
    created_at: datetime
    updated_at: datetime
    session_id: str | None = None
    source: str = "user"
    keywords: tuple[str, ...] = ()
    salience: float = 0.8
    # Index-only state (never written to the file).
    chunk_count: int = 0
    access_count: int = 0
    last_accessed: datetime | None = None
    importance: float = 0.5
    file_path: str | None = None
    # Optional frontmatter fields (written only when set).
    summary: str | None = None
    expires_at: datetime | None = None
    # Seed 003's two tiers: after this time the raw text is gone (``raw`` is None) and the summary stays.
    raw_expires_at: datetime | None = None
    scope: str | None = None
    actors: tuple[str, ...] = ()
    pinned: bool = False
    salience_floor: float | None = None
    superseded_by: str | None = None
    supersedes: tuple[str, ...] = ()
    consolidated_from: tuple[str, ...] = ()
    provenance: dict[str, Any] | None = None
    # A score set by hand; wins over the computed importance (kept in the file: it is user intent).
    importance_override: float | None = None
    # Typed fields (TYPED_FIELDS), validated; written as top-level frontmatter keys.
    typed: dict[str, Any] = field(default_factory=dict)
    # Frontmatter keys this version does not know; kept so a rewrite never drops them.
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def embedded(self) -> bool:
        return self.chunk_count > 0

    @property
    def raw(self) -> str | None:
        """The raw text, or None once its own time to live (``raw_expires_at``) has passed: clear_expired
        then drops it from the file, which keeps the summary as its text."""
        return None if self.raw_expires_at is not None and self.raw_expires_at <= utcnow() else self.content

    @property
    def used_summary(self) -> bool:
        """Whether the summary, not the full text, is what is embedded (seed 003's ``used_summary``);
        ``chunk_count`` says how many vectors are stored so far (0 until the background embedding is done)."""
        return self.summary is not None

    @property
    def embedded_source(self) -> str:
        """The text its vectors come from: the summary when there is one, else the content (the full text stays
        searchable by keyword). An empty summary is none: the file keeps none."""
        return self.summary or self.content

    @property
    def token_estimate(self) -> int:
        return estimate_tokens(self.content)

    @property
    def memory_types(self) -> tuple[str, ...]:
        if not self.typed:  # most memories (a rebuild asks every one)
            return ()
        return tuple(kind for kind, keys in TYPED_FIELDS.items() if any(k in self.typed for k in keys))


def estimate_tokens(text: str) -> int:
    """The seed's estimate: characters / 4."""
    return len(text) // 4


@dataclass(frozen=True)
class SearchResult:
    memory: MemoryItem
    score: float  # 0..1, higher is better
    distance: float | None  # cosine distance of the best chunk; None when not ranked semantically
    matched_snippet: str
    matched_keywords: tuple[str, ...] = ()
    explanation: RankExplanation | None = None


@dataclass(frozen=True)
class RankExplanation:
    """How a hit was ranked, so a user can see why a memory was recalled."""

    mode: str
    keyword_rank: int | None
    semantic_rank: int | None
    distance: float | None
    keyword_contribution: float
    semantic_contribution: float
    keyword_weight: float
    semantic_weight: float
    salience: float
    importance: float
    note: str = ""
    context_contribution: float = 0.0  # the part of the score lent by session neighbours (core/fusion.py)
    # The graph leg (entities the query names, core/graph/retrieval.py): its rank, share and how it got there.
    graph_rank: int | None = None
    graph_contribution: float = 0.0
    graph_weight: float = 0.0
    graph_note: str = ""
    # The sum of the contributions over this (1 + graph_weight: the best a hit can reach) is the score, kept
    # within 0..1. 0 in semantic mode, where the score is the cosine similarity.
    best_possible: float = 0.0
    # The relevance cut-off (search.relevance_cutoff): a hit is relevant when it holds the query's words as
    # strongly as the best keyword hits (FTS5 BM25 at most ``bm25_cutoff``; lower is better) or its meaning is
    # close (cosine distance at most ``cutoff_distance``); the rest are weaker matches shown on request.
    relevant: bool = True
    best_distance: float | None = None
    cutoff_distance: float | None = None
    bm25: float | None = None
    bm25_cutoff: float | None = None
    # Seed 001's importance blend: score = (1 - importance_weight) x relevance + importance_weight x importance;
    # ``relevance`` is the score before the blend (equal to it at weight 0, the default).
    importance_weight: float = 0.0
    relevance: float | None = None


@dataclass(frozen=True)
class MemoryStats:
    total_count: int
    by_category: dict[str, int]
    total_tokens: int
    avg_salience: float
    oldest_memory: datetime | None
    newest_memory: datetime | None
    index_size_bytes: int
    embedded_count: int = 0
    unembedded_count: int = 0
    embedding_model: str | None = None
    trash_count: int = 0
    pinned_count: int = 0
    superseded_count: int = 0
    expired_count: int = 0
    by_memory_type: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class EmbedderStatus:
    """What the status bar shows: which provider is active and whether it works."""

    provider: str  # "ollama" | "local" | "none"
    model: str | None
    available: bool
    detail: str  # e.g. "Ollama nomic-embed-text at localhost:11434" or "keyword only — Ollama not reachable"


@dataclass(frozen=True)
class VaultProblem:
    """A file the index could not read, with the reason. The file itself is never touched."""

    path: str
    reason: str


class Notice(str):
    """A warning's text with a code (``NOT_EMBEDDED_YET``): a plain string to a caller that prints it or sends
    it as JSON, and a key for a face that knows its user's next step (the app points to its status bar, the
    command line to a command; the engine names neither)."""

    code: str

    def __new__(cls, text: str, code: str) -> Notice:
        notice = super().__new__(cls, text)
        notice.code = code
        return notice


NOT_EMBEDDED_YET = "NOT_EMBEDDED_YET"
SEMANTIC_UNAVAILABLE = "SEMANTIC_UNAVAILABLE"  # the embedder is down, paused or of another model: keyword results
SEMANTIC_WEIGHT_LOWERED = "SEMANTIC_WEIGHT_LOWERED"  # the model reads the query's language poorly or not at all
VECTORS_LOADING = "VECTORS_LOADING"  # a large vault's vectors still load after opening: keyword results meanwhile
NOTICE_CODES = (NOT_EMBEDDED_YET, SEMANTIC_UNAVAILABLE, SEMANTIC_WEIGHT_LOWERED, VECTORS_LOADING)


class SearchResults(list):
    """A search's hits, best first, with what the caller needs to read them: the query as asked (seed 003's
    responses echo it), the mode actually used (keyword while the embedder is down) and the warnings saying
    why. A list, so callers that only want the hits iterate it as before."""

    def __init__(self, results: Iterable[SearchResult] = (), *, query: str = "", mode_used: str = "",
                 warnings: Sequence[str] = ()):
        super().__init__(results)
        self.query = query
        self.mode_used = mode_used
        self.warnings: tuple[str, ...] = tuple(warnings)

    @property
    def results(self) -> list[SearchResult]:
        return list(self)


class BatchResult(list):
    """The saved items, in input order, plus counts for callers that want them (MCP, HTTP, importers)."""

    def __init__(self, items: Iterable[MemoryItem] = (), errors: Sequence[dict] = ()):
        super().__init__(items)
        self.errors: list[dict] = list(errors)

    @property
    def success_count(self) -> int:
        return len(self)

    @property
    def error_count(self) -> int:
        return len(self.errors)

    @property
    def created_ids(self) -> list[str]:
        return [it.id for it in self]

    def as_dict(self) -> dict[str, Any]:
        return {
            "success_count": self.success_count,
            "error_count": self.error_count,
            "created_ids": self.created_ids,
            "errors": self.errors,
        }
