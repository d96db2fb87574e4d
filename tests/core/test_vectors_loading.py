"""A large vault's vector codes load in the background after opening (VectorTable.warm); searches meanwhile
answer by keyword at once, with a notice, on a real vault with the load held."""

from __future__ import annotations

import threading

from memory_curator.core.index import vectors
from memory_curator.core.model import VECTORS_LOADING

TOPICS = ["the database migration to Postgres", "our cat sleeps on the warm laptop", "release notes for version two",
          "the Kubernetes cluster ran out of memory", "a recipe for sourdough bread", "the quarterly budget review"]


def test_while_the_vectors_load_semantic_and_hybrid_answer_by_keyword_with_a_notice(svc_local, monkeypatch):
    """A large vault's codes load in the background after opening; a search meanwhile does not wait for them
    (nor scan the vectors exactly: 14 s at 1,000,000): keyword results, saying semantic ranking joins in later."""
    svc_local.save_batch([{"content": f"Note {i}: {TOPICS[i % len(TOPICS)]}"} for i in range(60)])
    assert svc_local.embedding.settle(120)
    monkeypatch.setattr(vectors, "EXACT_MAX_VALUES", 100)  # a vault large enough to load its codes
    svc_local.store.vectors.forget()
    hold = threading.Event()
    svc_local.store.vectors.warm(hold)
    try:
        keyword = [r.memory.id for r in svc_local.search("database migration", mode="keyword", record_access=False)]
        for mode in ("hybrid", "semantic"):
            res = svc_local.search("database migration", mode=mode, record_access=False)
            assert res.mode_used == "keyword"
            assert [r.memory.id for r in res] == keyword
            assert [getattr(w, "code", "") for w in res.warnings] == [VECTORS_LOADING]
            assert "semantic ranking joins in when loading ends" in res.warnings[0]
    finally:
        hold.set()
    svc_local.store.vectors._warming.result()  # loaded now
    res = svc_local.search("database migration", mode="hybrid", record_access=False)
    assert res.mode_used == "hybrid" and not res.warnings
    assert svc_local.store.vectors._codes is not None  # taken over, not loaded again
