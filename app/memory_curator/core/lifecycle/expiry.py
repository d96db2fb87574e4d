"""Seed 003's two tiers: a raw text may expire before its summary.

A memory saved with a summary and ``raw_ttl`` keeps the summary as its searchable, embedded text for as long
as the memory lives; once ``raw_expires_at`` has passed, readers see ``raw`` as None and ``clear_expired``
drops the raw text from the file (the summary becomes the body, so nothing of the raw text stays on disk or
in the index). A memory without a summary has nothing to keep, so its ``raw_ttl`` is its ``expires_at``.
"""

from __future__ import annotations

from memory_curator.core.index import lifecycle as rows
from memory_curator.core.memories import Memories
from memory_curator.core.model import utcnow
from memory_curator.core.vault.codec import format_dt, title_from


def drop_expired_raw(memories: Memories) -> int:
    """Rewrite each memory whose raw text expired with its summary as the text. Returns how many."""
    n = 0
    for memory_id in rows.raw_expired_ids(memories.store, format_dt(utcnow())):
        item = memories.fresh(memory_id)
        if item is None or not item.summary or item.content == item.summary:
            continue
        # A title made from the raw text's first line is raw text too: it is made again from the summary.
        derived = item.title == title_from(item.content, "Untitled")
        memories.update(memory_id, content=item.summary, title=title_from(item.summary, "Untitled") if derived
                        else None)
        n += 1
    return n
