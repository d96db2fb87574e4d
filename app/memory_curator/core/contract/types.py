"""The contract's field types and limits, shared by every operation's input model."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Annotated, Literal

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from memory_curator.core.contract.text import INVALID_TEXT, problem

MAX_BATCH = 100
MAX_CONTENT_CHARS = 100_000  # a memory, not a document: import documents instead
MAX_TITLE = 200
MAX_ID = 200
MAX_QUERY = 2000
MAX_LIST = 50
MAX_LIMIT = 100
CATEGORY_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
SCOPE_PATTERN = r"^[a-z][a-z0-9_-]{0,39}$"


def _text(value: str) -> str:
    why = problem(value)
    if why:
        raise PydanticCustomError(INVALID_TEXT, why)
    return value


def _named(code: str, pattern: str, what: str):
    """A pattern checked with its own code and message (pydantic's would say only "should match pattern")."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.match(value):
            # pydantic fills {name} from the context but knows no !r: the repr goes in as text
            raise PydanticCustomError(code, "must be {what} (got {value})", {"what": what, "value": repr(value)})
        return value

    return AfterValidator(check)


def _when(value: datetime) -> datetime:
    dt = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    try:  # 0001-01-01T00:00:00+14:00 is a valid date whose UTC time is not
        dt.astimezone(timezone.utc)
    except OverflowError:
        raise PydanticCustomError("INVALID_DATETIME", "is out of range: its UTC time is before the year 1") from None
    return dt


Text = Annotated[str, AfterValidator(_text)]
When = Annotated[datetime, AfterValidator(_when)]
MemoryId = Annotated[Text, Field(min_length=1, max_length=MAX_ID, description="A memory's id.")]
Category = Annotated[Text, _named("INVALID_CATEGORY", CATEGORY_PATTERN, "a folder name of lower-case letters, "
                                 "digits, '-' or '_', such as decisions, summaries or context"),
                     Field(json_schema_extra={"pattern": CATEGORY_PATTERN}, description="A folder of the vault: "
                           "decisions, summaries, context or another lower-case name.")]
Scope = Annotated[Text, _named("INVALID_SCOPE", SCOPE_PATTERN, "a short lower-case name such as global, project "
                               "or session"),
                  Field(json_schema_extra={"pattern": SCOPE_PATTERN}, description="global, project, session or "
                        "another short lower-case name.")]
UserId = Annotated[Text, Field(min_length=1, max_length=MAX_ID, description="The caller's user: a memory stored "
                               "with a user_id is visible only to that user (HTTP and MCP).")]
Label = Annotated[Text, Field(pattern=r"^[a-z0-9][a-z0-9_\-]{0,39}$", description="A classification label of the "
                               "vault's set (event, location...): only memories that carry it.")]
Words = Annotated[list[Annotated[Text, Field(max_length=MAX_TITLE)]], Field(max_length=MAX_LIST)]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]

SearchMode = Literal["keyword", "semantic", "hybrid"]
SortKey = Literal["relevance", "importance", "recency"]
BatchMode = Literal["rollback", "skip"]
MemoryType = Literal["episodic", "emotional", "procedural"]
OrderBy = Literal["updated", "created", "title", "salience", "session", "category", "access_count"]
