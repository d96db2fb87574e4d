"""The rows that search, dedup and grouping rank: full-text top rows, the chunks of nearest vectors that pass
the filters, memories by tag, the unreadable shares, and a memory's mean vector."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from memory_curator.core.index import unreadable
from memory_curator.core.index.filters import Filters
from memory_curator.core.index.store import IndexStore
from memory_curator.core.index.vectors import TABLE

PART = 500  # ids per IN (...) list: well below SQLite's limit on parameters


def fts_top(store: IndexStore, match: str, weights: Sequence[float], filters: Filters,
            depth: int) -> list[tuple[int, float, bool]]:
    """The ``depth`` best full-text rows as (pk, bm25, passes the filters), best first; ``weights`` per
    full-text column. Ranked in FTS5 alone,
    then the filters are checked on the top rows: joining every match to its memory row first cost as much
    again as the ranking."""
    where, params = filters.sql()
    w = ", ".join(str(float(x)) for x in weights)
    return store.conn.execute(
        f"SELECT t.rowid, t.r, m.pk IS NOT NULL AND {where} FROM ("
        f"  SELECT rowid, bm25(memories_fts, {w}) AS r FROM memories_fts "
        "   WHERE memories_fts MATCH ? ORDER BY r LIMIT ?"
        ") t LEFT JOIN memories m ON m.pk = t.rowid ORDER BY t.r",
        [*params, match, depth],
    ).fetchall()


def chunks_passing(store: IndexStore, chunk_ids: Sequence[int], filters: Filters) -> dict[int, tuple[int, str]]:
    """chunk id -> (memory pk, chunk text), for the chunks whose memory passes the filters."""
    where, params = filters.sql()
    allowed: dict[int, tuple[int, str]] = {}
    for i in range(0, len(chunk_ids), PART):
        part = list(chunk_ids[i : i + PART])
        marks = ",".join("?" * len(part))
        for cid, pk, text in store.conn.execute(
            f"SELECT c.chunk_id, c.memory_pk, c.content_snippet FROM memory_chunks c "
            f"JOIN memories m ON m.pk = c.memory_pk WHERE c.chunk_id IN ({marks}) AND {where}",
            [*part, *params],
        ):
            allowed[cid] = (pk, text)
    return allowed


def unreadable_shares(store: IndexStore, pks: Sequence[int]) -> dict[int, float]:
    """pk -> unreadable share of the memories among ``pks`` above 0 (core/index/unreadable.py)."""
    return unreadable.shares(store.conn, pks)


def tagged_ids(store: IndexStore, expr: str, filters: Filters, limit: int) -> list[str]:
    """Ids of the memories whose tags match the FTS5 expression ``expr``, best first."""
    where, params = filters.sql()
    rows = store.conn.execute(
        "SELECT m.id FROM memories_fts JOIN memories m ON m.pk = memories_fts.rowid "
        f"WHERE memories_fts MATCH ? AND {where} ORDER BY bm25(memories_fts, 0.0, 0.0, 1.0) LIMIT ?",
        (expr, *params, int(limit)),
    )
    return [r[0] for r in rows]


def passing_pks(store: IndexStore, pks: Sequence[int], filters: Filters) -> set[int]:
    """The pks among ``pks`` whose memory passes the filters."""
    where, params = filters.sql()
    out: set[int] = set()
    for i in range(0, len(pks), PART):
        part = list(pks[i : i + PART])
        out.update(pk for (pk,) in store.conn.execute(
            f"SELECT m.pk FROM memories m WHERE m.pk IN ({','.join('?' * len(part))}) AND {where}",
            [*part, *params]))
    return out


def memory_vectors(store: IndexStore, memory_ids: Iterable[str]) -> dict[str, np.ndarray]:
    """Memory id -> unit vector (the mean of its chunk vectors). Memories without vectors are absent."""
    if not store.vectors.exists():
        return {}
    ids = list(memory_ids)
    sums: dict[str, np.ndarray] = {}
    for i in range(0, len(ids), PART):
        part = ids[i : i + PART]
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
