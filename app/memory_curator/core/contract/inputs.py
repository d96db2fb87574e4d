"""Each operation's input, as one pydantic model: the names, types, defaults and limits every face uses.

Models forbid unknown fields, so a misspelt field is an error (``UNKNOWN_FIELD``), never silently dropped. The
engine checks the values again (it trusts no caller) with the same checks (core/validation.py), so the Python
API and the CLI refuse what HTTP and MCP refuse, with the same codes.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic import ValidationError as PydanticError
from pydantic_core import PydanticCustomError

from memory_curator.core.contract import cursors
from memory_curator.core.contract.errors import invalid
from memory_curator.core.contract.types import (
    MAX_BATCH,
    MAX_CONTENT_CHARS,
    MAX_ID,
    MAX_LIMIT,
    MAX_QUERY,
    MAX_TITLE,
    BatchMode,
    Category,
    Label,
    MemoryId,
    MemoryType,
    OrderBy,
    Scope,
    SearchMode,
    SortKey,
    Text,
    Unit,
    UserId,
    When,
    Words,
)

Short = Annotated[Text, Field(max_length=500)]
SessionId = Annotated[Text, Field(min_length=1, max_length=MAX_ID, description="The conversation or task it "
                                  "belongs to.")]


class Input(BaseModel):
    # NaN and infinity are refused as such ("must be a finite number"): allowed, NaN failed the range check and
    # the message said "must be at most 1.0 (got 'NaN')".
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Owned(Input):
    """Operations over HTTP and MCP carry the caller's user (``user_id``); the app and the CLI do not."""

    user_id: UserId | None = None


class TypedFields(Input):
    """Typed memories (seed 004); the engine checks them again and refuses bad values with a finer code."""

    event_timestamp: Annotated[When | None, Field(description="Episodic: when it happened.")] = None
    location: Short | None = None
    participants: Annotated[list[Short] | None, Field(max_length=100)] = None
    event_type: Short | None = None
    emotional_state: Short | None = None
    valence: Annotated[float | None, Field(ge=-1.0, le=1.0)] = None
    arousal: Unit | None = None
    trigger_event: Short | None = None
    skill_name: Annotated[Short | None, Field(description="Procedural: the skill.")] = None
    proficiency_level: Short | None = None


class MemoryCore(Input):
    """What a client may set on a new memory, besides the typed fields."""

    content: Annotated[Text, Field(min_length=1, max_length=MAX_CONTENT_CHARS,
                                   description="The memory's text (markdown).")]
    title: Annotated[Text | None, Field(max_length=MAX_TITLE, description="Defaults to the first heading or "
                                        "line.")] = None
    category: Category = "context"
    keywords: Words = Field(default_factory=list, description="Tags.")
    session_id: SessionId | None = None
    salience: Annotated[Unit | None, Field(description="How important, 0..1.")] = None
    scope: Scope | None = None
    actors: Annotated[Words, Field(description="Who or what the memory is about.")] = Field(default_factory=list)
    expires_at: Annotated[When | None, Field(description="After this time the memory is hidden from search "
                                                 "and can be cleared (clear_expired).")] = None
    summary: Annotated[Text | None, Field(max_length=MAX_CONTENT_CHARS, description="A short summary, searched "
                                          "beside the text.")] = None
    raw_ttl: Annotated[int | None, Field(ge=1, le=10**10, description="Seconds the raw text is kept; the summary "
                                         "stays searchable after (raw: null). Without a summary the memory "
                                         "expires whole (seed 003).")] = None


class MemoryFields(TypedFields, MemoryCore):
    """What a client may set on a new memory (its own fields first, then the typed ones)."""


class Store(MemoryFields, Owned):
    pass


class StoreBatch(Owned):
    items: Annotated[list[MemoryFields], Field(min_length=1, max_length=MAX_BATCH)]
    mode: Annotated[BatchMode, Field(description="rollback: one invalid item stores nothing; skip: invalid items "
                                     "are reported by index and the rest are stored.")] = "rollback"
    # skip mode (seed 001): items that do not fit MemoryFields, reported by their index instead of refusing the
    # call; ``positions`` are the kept items' indexes in the request. Faces that check arguments themselves
    # (the MCP SDK) leave these fields' items to this model.
    CHECKED_ITEM_BY_ITEM: ClassVar[tuple[str, ...]] = ("items",)
    _rejected: list[dict[str, Any]] = PrivateAttr(default_factory=list)
    _positions: list[int] = PrivateAttr(default_factory=list)

    @model_validator(mode="wrap")
    @classmethod
    def _skip_bad_items(cls, data: Any, handler: Any) -> StoreBatch:
        items = data.get("items") if isinstance(data, dict) else None
        if not (isinstance(items, list) and data.get("mode") == "skip" and 0 < len(items) <= MAX_BATCH):
            return handler(data)
        kept, positions, rejected = [], [], []
        for n, raw in enumerate(items):
            try:
                kept.append(MemoryFields.model_validate(raw))
                positions.append(n)
            except PydanticError as exc:
                bad = invalid(exc, MemoryFields, ("items", n))
                rejected.append({"index": n, "id": None, "error": str(bad), "code": bad.code})
        model = handler({**data, "items": kept or [MemoryFields(content="-")]})
        model.items = kept
        model._positions, model._rejected = positions, rejected
        return model

    def merged(self, result: dict[str, Any]) -> dict[str, Any]:
        """The engine's batch result with the items refused here, every error by its index in the request."""
        positions = self._positions or list(range(len(self.items)))
        errors = [{**e, "index": positions[e["index"]]} if isinstance(e.get("index"), int) else e
                  for e in result["errors"]]
        errors = sorted(errors + self._rejected, key=lambda e: e.get("index", -1))
        return {**result, "error_count": len(errors), "errors": errors}


class Get(Owned):
    memory_id: MemoryId


class UpdateFields(Input):
    content: Annotated[Text | None, Field(min_length=1, max_length=MAX_CONTENT_CHARS)] = None
    title: Annotated[Text | None, Field(max_length=MAX_TITLE)] = None
    category: Category | None = None
    keywords: Words | None = None
    session_id: SessionId | None = None
    salience: Unit | None = None


class Update(UpdateFields, Owned):
    memory_id: MemoryId


class UpdateItem(UpdateFields):
    id: MemoryId


class UpdateBatch(Owned):
    updates: Annotated[list[UpdateItem], Field(min_length=1, max_length=MAX_BATCH)]
    mode: Annotated[BatchMode, Field(description="rollback: any failure undoes all; skip: failures are reported "
                                     "and the rest are updated.")] = "rollback"


class Delete(Owned):
    memory_id: MemoryId


class SearchFilters(Input):
    category: Category | None = None
    session_id: SessionId | None = None
    scope: Annotated[Scope | list[Scope] | None, Field(description="One scope or several (any of them).")] = None
    actor: Annotated[Text | None, Field(max_length=MAX_TITLE, description="Memories about this person, agent or "
                                        "entity.")] = None
    memory_type: MemoryType | None = None
    label: Label | None = None


class Search(SearchFilters, Owned):
    query: Annotated[Text, Field(min_length=1, max_length=MAX_QUERY)]
    search_mode: Annotated[SearchMode, Field(description="keyword (exact words), semantic (meaning) or hybrid "
                                             "(both).")] = "hybrid"
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT)] = 5
    min_salience: Unit = 0.0
    sort_by: SortKey = "relevance"
    keyword_weight: Annotated[Unit | None, Field(description="Hybrid: the keyword side's share (default: the "
                                                 "vault's setting).")] = None
    importance_weight: Annotated[Unit, Field(description="Blend of relevance and importance: 0 ranks by relevance "
                                             "alone, 1 by importance alone (seed 001).")] = 0.0
    min_score: Annotated[Unit, Field(description="Leave out hits scoring below this (seed 002).")] = 0.0


class ListMemories(SearchFilters, Owned):
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT)] = 20
    offset: Annotated[int, Field(ge=0, le=cursors.MAX_OFFSET)] = 0
    order_by: OrderBy = "updated"
    cursor: Annotated[str | None, Field(max_length=cursors.MAX_CURSOR, description="Where the page starts: the "
                                        "next_cursor of the page before, sent back as it came (instead of offset: "
                                        "nothing is skipped or listed twice when memories change between pages)."
                                        )] = None

    @field_validator("cursor")
    @classmethod
    def _cursor_of_this_order(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        cursor = cursors.decode(value)
        if "order_by" in info.data and cursor.order_by != info.data["order_by"]:
            raise PydanticCustomError(cursors.INVALID_CURSOR, f"was made for order_by {cursor.order_by!r}: send "
                                                              "that order_by with it")
        if info.data.get("offset"):
            raise PydanticCustomError(cursors.INVALID_CURSOR, "comes instead of offset: give one of them")
        return value


class SessionContext(Owned):
    session_id: SessionId


class GetScore(Owned):
    memory_id: MemoryId


class SetScore(Owned):
    memory_id: MemoryId
    score: Annotated[Unit, Field(description="The importance to keep (0..1); it wins over the computed score.")]


class Consolidate(Owned):
    ids: Annotated[list[MemoryId] | None, Field(min_length=2, max_length=50, description="The memories to "
                                                "consolidate (2 to 50).")] = None
    query: Annotated[Text | None, Field(min_length=1, max_length=MAX_QUERY, description="Or: consolidate this "
                                        "query's best hits.")] = None
    preserve_originals: Annotated[bool, Field(description="Keep the originals (marked superseded); false moves "
                                              "them to the trash.")] = True
    title: Annotated[Text | None, Field(max_length=MAX_TITLE)] = None
    category: Category | None = None

    @model_validator(mode="after")
    def _ids_or_query(self) -> Consolidate:
        if not self.ids and not self.query:
            # Shown after the field, "request", as every message is: "request must give ids ... or a query ..."
            raise PydanticCustomError("MISSING_FIELD", "must give ids (2 to 50 memories) or a query (its best hits "
                                      "are consolidated)")
        return self


class ClearExpired(Owned):
    pass


class Health(Input):
    pass


def engine_values(model: BaseModel, *, drop: tuple[str, ...] = ("user_id",)) -> dict[str, Any]:
    """The fields a caller gave (or that have a non-empty default), as engine keyword arguments."""
    data = model.model_dump(exclude=set(drop), exclude_none=True)
    return {k: v for k, v in data.items() if v != []}
