"""Chunk vectors in a sqlite-vec ``vec0`` table, created once the embedding dimension is known.

Vectors are L2-normalised before they are stored, so cosine distance is the metric and a score is
``1 - distance``. The model that made them is recorded in ``meta``; vectors of two models never mix.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from memory_curator.core.errors import DimensionMismatch
from memory_curator.core.index.db import Connection

TABLE = "chunk_vectors"


def to_blob(vec: Sequence[float] | np.ndarray, dim: int) -> bytes:
    arr = np.asarray(vec, dtype=np.float32).reshape(-1)
    if arr.shape[0] != dim:
        raise DimensionMismatch(
            f"The embedder returned vectors of {arr.shape[0]} dimensions, but this vault's index holds {dim}. "
            "Choose the vault's model again, or change the model (which re-embeds every memory)."
        )
    norm = float(np.linalg.norm(arr))
    if norm > 0:
        arr = arr / norm
    return arr.astype(np.float32).tobytes()


class VectorTable:
    def __init__(self, conn: Connection):
        self.conn = conn

    @property
    def dim(self) -> int | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'embed_dim'").fetchone()
        return int(row[0]) if row else None

    @property
    def model(self) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'embed_model'").fetchone()
        return row[0] if row else None

    def exists(self) -> bool:
        return (
            self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (TABLE,)).fetchone() is not None
        )

    def create(self, model: str, dim: int) -> None:
        if self.exists():
            self.conn.execute(f"DROP TABLE {TABLE}")
        self.conn.execute(
            f"CREATE VIRTUAL TABLE {TABLE} USING vec0(chunk_id INTEGER PRIMARY KEY, "
            f"embedding float[{int(dim)}] distance_metric=cosine)"
        )
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('embed_model', ?)", (model,))
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('embed_dim', ?)", (str(dim),))

    def drop(self) -> None:
        if self.exists():
            self.conn.execute(f"DROP TABLE {TABLE}")
        self.conn.execute("DELETE FROM meta WHERE key IN ('embed_model', 'embed_dim')")

    def clear(self) -> None:
        if self.exists():
            self.conn.execute(f"DELETE FROM {TABLE}")

    def insert(self, chunk_id: int, vec: Sequence[float] | np.ndarray) -> None:
        dim = self.dim
        if dim is None:
            raise DimensionMismatch("The vector table has not been created for a model yet.")
        self.conn.execute(f"INSERT INTO {TABLE} (chunk_id, embedding) VALUES (?, ?)", (chunk_id, to_blob(vec, dim)))

    def delete(self, chunk_ids: Iterable[int]) -> None:
        if not self.exists():
            return
        self.conn.executemany(f"DELETE FROM {TABLE} WHERE chunk_id = ?", [(c,) for c in chunk_ids])

    def knn(self, query: Sequence[float] | np.ndarray, k: int) -> list[tuple[int, float]]:
        """The ``k`` nearest chunks as (chunk_id, cosine distance), nearest first."""
        dim = self.dim
        if dim is None or not self.exists() or k <= 0:
            return []
        blob = to_blob(query, dim)
        return list(
            self.conn.execute(
                f"SELECT chunk_id, distance FROM {TABLE} WHERE embedding MATCH ? AND k = ? ORDER BY distance",
                (blob, int(k)),
            )
        )

    def count(self) -> int:
        if not self.exists():
            return 0
        return self.conn.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0]
