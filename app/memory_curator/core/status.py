"""The service's status for a health check (seed 002's ``GET /health``): each component's state and the index's
statistics, read without changing anything.

The seed's Hive stack maps onto our components: Vectorizer is the vector search (sqlite-vec and the embedder),
Lexum the keyword search (FTS5), Nexus the entity graph, Classify the labels, and the vault's files are where
every memory lives. The service is ``ok`` while the vault is writable and the index reads every file;
``degraded`` when a part works in a fallback (the embedder down: keyword results; files the index skips).
"""

from __future__ import annotations

import os
from typing import Any

from memory_curator.core.config import MemoryConfig
from memory_curator.core.index.store import IndexStore
from memory_curator.core.model import EmbedderStatus, MemoryStats
from memory_curator.core.vault.store import Vault

OK, DEGRADED, OFF = "ok", "degraded", "off"


def components(vault: Vault, store: IndexStore, embedder: EmbedderStatus, config: MemoryConfig) -> dict[str, Any]:
    writable = vault.root.is_dir() and os.access(vault.root, os.W_OK)
    unreadable = len(store.problems())
    if embedder.provider == "none":
        vectors = OFF
    else:
        vectors = OK if embedder.available else DEGRADED
    return {
        "vault": {"status": OK if writable else DEGRADED, "path": str(vault.root), "writable": writable},
        "index": {"status": DEGRADED if unreadable else OK, "unreadable_files": unreadable},
        "keyword_search": {"status": OK, "seed": "Lexum"},
        "vector_search": {"status": vectors, "seed": "Vectorizer", "provider": embedder.provider,
                          "model": embedder.model, "detail": embedder.detail},
        "graph": {"status": OK if config.graph_weight > 0 else OFF, "seed": "Nexus",
                  "detail": "entities and links are kept; the graph leg of hybrid search is "
                            + ("on" if config.graph_weight > 0 else "off (MemoryConfig.graph_weight)")},
        "classifier": {"status": OK, "seed": "Classify"},
    }


def overall(parts: dict[str, Any]) -> str:
    """ok, or degraded when any component is (a component turned off is not a fault)."""
    return DEGRADED if any(p["status"] == DEGRADED for p in parts.values()) else OK


def index_statistics(stats: MemoryStats, store: IndexStore) -> dict[str, Any]:
    return {
        "memories": stats.total_count, "embedded": stats.embedded_count, "unembedded": stats.unembedded_count,
        "chunks": store.vectors.count(), "by_category": stats.by_category, "by_memory_type": stats.by_memory_type,
        "pinned": stats.pinned_count, "superseded": stats.superseded_count, "expired": stats.expired_count,
        "trash": stats.trash_count, "size_bytes": stats.index_size_bytes, "embedding_model": stats.embedding_model,
    }
