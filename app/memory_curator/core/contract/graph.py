"""The entity graph's operations (issue 11 item 6, seed 002's graph query): inputs and results."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from memory_curator.core.contract.inputs import Input, Owned
from memory_curator.core.contract.results import Memory, Result
from memory_curator.core.contract.types import MAX_QUERY, MAX_TITLE, MemoryId, Text

EntityName = Annotated[Text, Field(min_length=1, max_length=MAX_TITLE, description="An entity's name or one of "
                                   "its aliases (case and accents do not matter).")]


class Entities(Owned):
    query: Annotated[Text | None, Field(max_length=MAX_TITLE, description="Only entities whose name or an alias "
                                        "contains this.")] = None
    min_count: Annotated[int, Field(ge=1, le=1_000_000, description="Only entities mentioned by at least this "
                                    "many memories.")] = 1
    limit: Annotated[int, Field(ge=1, le=500)] = 50
    include_hidden: Annotated[bool, Field(description="Also names marked 'not an entity'.")] = False


class Entity(Owned):
    name: EntityName
    limit: Annotated[int, Field(ge=1, le=200, description="How many of its memories, newest first.")] = 20


class Links(Owned):
    memory_id: MemoryId
    limit: Annotated[int, Field(ge=0, le=100, description="How many memories sharing an entity with it.")] = 20


class GraphQuery(Owned):
    query: Annotated[Text, Field(min_length=1, max_length=MAX_QUERY, description="Names the entities to start "
                                 "from, e.g. 'what does the wizard owe us'.")]
    limit: Annotated[int, Field(ge=1, le=100)] = 10


class EntityOut(Result):
    name: str
    key: str
    count: int
    sources: list[str]
    aliases: list[str]
    hidden: bool


class EntityList(Result):
    entities: list[EntityOut]
    count: int


class EntityMemories(Result):
    entity: EntityOut
    memories: list[Memory]


class LinkOut(Result):
    source: str
    target: str
    kind: str
    via: list[str]


class MemoryLinks(Result):
    memory_id: str
    entities: list[dict[str, Any]]
    links: list[LinkOut]


class GraphHit(Result):
    memory: Memory
    score: float
    why: str


class GraphAnswer(Result):
    query: str
    entities: list[str]
    expansion: list[str]
    results: list[GraphHit]


# Corrections (the vault's entities.yaml): the vault owner's, so the CLI and the app only, never a remote caller.
class EntityMerge(Input):
    names: Annotated[list[EntityName], Field(min_length=1, max_length=50, description="The entities that are "
                                             "the same as into.")]
    into: EntityName


class EntityRename(Input):
    name: EntityName
    new_name: EntityName


class EntityHide(Input):
    name: EntityName
    hidden: Annotated[bool, Field(description="false takes a 'not an entity' back.")] = True


class Link(Input):
    memory_id: MemoryId
    target: Annotated[MemoryId, Field(description="The memory to link it to.")]
    linked: Annotated[bool, Field(description="false keeps a link the graph found from showing.")] = True


class Corrected(Result):
    status: str
    entity: EntityOut | None = None


# Labels (seed 002's Classify): a run rewrites the files of the whole vault, so it is the owner's too.
class Classify(Input):
    memory_ids: Annotated[list[MemoryId] | None, Field(min_length=1, max_length=100_000, description="Only these "
                                                       "memories (default: every memory).")] = None


class Classified(Result):
    status: str
    changed: int  # files rewritten with new labels
    done: int  # memories labelled again
    total: int
    cancelled: bool
