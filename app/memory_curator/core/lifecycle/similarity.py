"""How alike two memories are: cosine of their stored vectors, or Jaccard of their word sets without them."""

from __future__ import annotations

from memory_curator.core.model import MemoryItem
from memory_curator.core.text import tokens


def word_set(item: MemoryItem) -> frozenset[str]:
    text = f"{item.title}\n{item.summary or ''}\n{item.content}"
    return frozenset(w for w in tokens.words(text) if w not in tokens.STOPWORDS and len(w) > 1)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)
