"""The seed documents' own HTTP shapes, beside the contract's: seed 002's ``POST /memory`` and
``POST /memory/search`` (its VRPG memory service) and seed 004's ``POST /v1/memories/direct``.

They are the same engine operations as ``store`` and ``search`` under the names, defaults and limits their
seeds give: seed 002 sends ``text`` and one ``actor_id``, searches ten results with ``min_score`` 0.7 by
default; seed 004 sends a pre-formatted memory for a required ``user_id`` (core/direct.py maps it onto the
vault format).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from memory_curator.core.contract.inputs import Input, Owned, SessionId, TypedFields
from memory_curator.core.contract.results import Result
from memory_curator.core.contract.types import (
    MAX_LIMIT,
    MAX_QUERY,
    MAX_TITLE,
    Scope,
    SearchMode,
    Text,
    Unit,
    UserId,
)
from memory_curator.core.direct import MAX_CONTENT, MAX_TAGS

SEED002_MAX_TEXT = 10 * 1024  # "text up to 10KB per entry"
SEED002_LIMIT = 10  # "top N results (default 10)"; seed 000's search, the contract's, defaults to 5
SEED002_MIN_SCORE = 0.7  # "filter results by min_score threshold (default 0.7)"
ActorId = Annotated[Text, Field(min_length=1, max_length=MAX_TITLE, description="The actor (an NPC, a player, "
                                "an agent) the memory is about.")]


class SeedStore(Owned):
    """Seed 002's store: ``text`` with its scope, session and actor; the memory is classified before it is
    written and its labels come back."""

    text: Annotated[Text, Field(min_length=1, max_length=SEED002_MAX_TEXT, description="The memory's text.")]
    scope: Scope | None = None
    session_id: SessionId | None = None
    actor_id: ActorId | None = None


class SeedSearch(Owned):
    """Seed 002's search: hybrid over one scope or several at once, its defaults (10 results, min_score 0.7)."""

    query: Annotated[Text, Field(min_length=1, max_length=MAX_QUERY)]
    scope: Annotated[Scope | list[Scope] | None, Field(description="One scope or several (any of them).")] = None
    session_id: SessionId | None = None
    actor_id: ActorId | None = None
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT)] = SEED002_LIMIT
    min_score: Annotated[Unit, Field(description="Leave out hits scoring below this; the best hit of a query "
                                     "scores near 1.")] = SEED002_MIN_SCORE
    search_mode: SearchMode = "hybrid"


class SeedStored(Result):
    status: str
    memory_id: str
    labels: dict[str, Any]
    memory: dict[str, Any]


class DirectRequest(Input):
    user_id: UserId
    content: Annotated[Text, Field(min_length=1, max_length=MAX_CONTENT)]
    layer: Literal["short-term", "semantic", "long-term"] = "semantic"  # core/direct.py LAYERS
    type: Literal["explicit", "implicit"] = "explicit"  # core/direct.py TYPES
    importance: Unit = 0.8
    confidence: Unit = 0.9
    persona_tags: Annotated[list[Annotated[Text, Field(max_length=MAX_TITLE)]],
                            Field(max_length=MAX_TAGS)] = Field(default_factory=list)
    metadata: dict[str, Any] | None = None


class DirectStore(TypedFields, DirectRequest):
    """Seed 004's DirectMemoryRequest, field for field: its own fields, then the typed ones."""


class DirectStored(Result):
    """Seed 004's DirectMemoryResponse (``error_code`` is null on success; errors answer with the contract's
    error shape, whose ``status``, ``message`` and ``error_code`` are the seed's)."""

    status: str
    memory_id: str
    message: str
    storage: dict[str, bool]
    file: str
    error_code: str | None

