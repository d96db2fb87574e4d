"""How alike two memories are: cosine of their stored vectors, or Jaccard of their word sets without them."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from memory_curator.core.index.store import IndexStore
from memory_curator.core.index.vectors import TABLE
from memory_curator.core.model import MemoryItem
from memory_curator.core.text import tokens


def memory_vectors(store: IndexStore, memory_ids: Iterable[str]) -> dict[str, np.ndarray]:
    """Memory id -> unit vector (the mean of its chunk vectors). Memories without vectors are absent."""
    if not store.vectors.exists():
        return {}
    ids = list(memory_ids)
    sums: dict[str, np.ndarray] = {}
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        rows = store.conn.execute(
            f"SELECT m.id, v.embedding FROM memories m JOIN memory_chunks c ON c.memory_pk = m.pk "
            f"JOIN {TABLE} v ON v.chunk_id = c.chunk_id WHERE m.id IN ({','.join('?' * len(part))})",
            part,
        )
        for mid, blob in rows:
            vec = np.frombuffer(blob, dtype=np.float32)
            sums[mid] = sums[mid] + vec if mid in sums else vec.copy()
    out = {}
    for mid, vec in sums.items():
        norm = float(np.linalg.norm(vec))
        if norm > 0:
            out[mid] = vec / norm
    return out


def word_set(item: MemoryItem) -> frozenset[str]:
    text = f"{item.title}\n{item.summary or ''}\n{item.content}"
    return frozenset(w for w in tokens.words(text) if w not in tokens.STOPWORDS and len(w) > 1)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)
