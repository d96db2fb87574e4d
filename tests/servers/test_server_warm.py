"""A server's engine loads a large vault's vector codes in the background when it starts (as the app's reader
does), instead of in the first semantic search on its one engine thread."""

from __future__ import annotations

from memory_curator.core.index import vectors
from memory_curator.core.model import VECTORS_LOADING
from memory_curator.core.service import MemoryService
from memory_curator.serving.worker import ServiceWorker


def test_the_server_engine_warms_the_vector_codes_at_start(vault_dir, config, local_embedder, monkeypatch):
    svc = MemoryService.open(vault_dir, embedder=local_embedder, config=config)
    svc.save_batch([{"content": f"Note {i} about the database migration and the cat"} for i in range(40)])
    assert svc.embedding.settle(120)
    svc.close()
    monkeypatch.setattr(vectors, "EXACT_MAX_VALUES", 100)  # large enough to search on codes
    worker = ServiceWorker(lambda: MemoryService.open(vault_dir, embedder=local_embedder, config=config))
    try:
        table = worker.svc.store.vectors
        assert table._warming is not None or table._codes is not None
        res = worker.run(MemoryService.search, "database migration", mode="hybrid", record_access=False)
        # keyword results with the notice while loading, hybrid once loaded: never an exact scan meanwhile
        assert res.mode_used == "hybrid" or [w.code for w in res.warnings] == [VECTORS_LOADING]
    finally:
        worker.close()
