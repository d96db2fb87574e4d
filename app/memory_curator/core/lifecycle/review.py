"""A memory's review state: memories written by an LLM client wait for a person (the inbox, core/inbox.py).

The state is the frontmatter key ``review: pending`` (kept among the keys the codec passes through), so it
lives in the file and survives a rebuild of the index. Whether new "ai" memories wait is the vault setting
``review_inbox`` (on unless turned off).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory_curator.core.model import MemoryItem

REVIEW_KEY = "review"
PENDING = "pending"
SETTING = "review_inbox"


def lands_in_inbox(source: str, settings_value: Any) -> bool:
    """New memories from an LLM client ("ai") wait for review unless the vault turned the inbox off."""
    return source == "ai" and settings_value is not False


def mark_pending(extra: Mapping[str, Any]) -> dict[str, Any]:
    return {**extra, REVIEW_KEY: PENDING}


def is_pending(item: MemoryItem) -> bool:
    return item.extra.get(REVIEW_KEY) == PENDING


def without_review(extra: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in extra.items() if k != REVIEW_KEY}
