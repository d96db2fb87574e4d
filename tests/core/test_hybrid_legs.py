"""A hybrid search runs its vector scan on the search worker beside its keyword leg (core/search.py): the
results are the ones the legs give one after the other, on a real index searched on its in-memory codes."""

from __future__ import annotations

import os
import signal
import threading

from memory_curator.core import search
from memory_curator.core.index import codes, vectors

TOPICS = ["the database migration to Postgres", "our cat sleeps on the warm laptop", "release notes for version two",
          "the Kubernetes cluster ran out of memory", "a recipe for sourdough bread", "the quarterly budget review"]
QUERIES = ["database migration", "cat on a laptop", "memory of the cluster", "bread recipe", "budget", "release"]


def _hits(svc, **kw):
    out = []
    for q in QUERIES:
        for mode in ("hybrid", "semantic", "keyword"):
            res = svc.search(q, limit=10, mode=mode, record_access=False, **kw)
            out.append([(r.memory.id, r.score, r.explanation.keyword_rank, r.explanation.semantic_rank,
                         r.distance) for r in res.results])
    return out


def _in_sequence(scan, work):
    work()
    return scan()


def test_hybrid_legs_side_by_side_give_the_results_of_the_legs_in_sequence(svc_local, monkeypatch):
    svc_local.save_batch([{"content": f"Note {i}: {TOPICS[i % len(TOPICS)]}, item {i * 7 % 13}",
                           "category": ("decisions", "context")[i % 2], "session_id": f"s{i % 5}"}
                          for i in range(60)])
    assert svc_local.embedding.settle(120)
    monkeypatch.setattr(vectors, "EXACT_MAX_VALUES", 100)  # the codes answer, as in a large vault
    monkeypatch.setattr(codes, "MIN_CANDIDATES", 20)
    svc_local.store.vectors.forget()
    together = _hits(svc_local) + _hits(svc_local, category="context")
    assert svc_local.store.vectors._codes is not None
    assert any(t.name.startswith("search-vectors") for t in threading.enumerate())  # the worker scanned
    monkeypatch.setattr(search, "_beside", _in_sequence)
    assert _hits(svc_local) + _hits(svc_local, category="context") == together
    assert all(r and r[0][3] for r in together[::3])  # the hybrid lists have semantic ranks


class _Helped(codes.Scan):
    """A scan whose result says whether the search worker lent it a hand (``help``) within 5 s."""

    def __init__(self):
        self._helped = threading.Event()

    def help(self):
        self._helped.set()

    def __call__(self):
        return self._helped.wait(5)


def test_a_forked_child_scans_on_a_worker_of_its_own():
    """The worker thread does not survive a fork; the child's executor would queue the scan's help forever."""
    assert search._beside(_Helped(), lambda: None)  # the parent's worker thread runs now
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        signal.alarm(10)
        os._exit(0 if search._beside(_Helped(), lambda: None) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_an_error_in_the_keyword_leg_beside_a_shared_scan_waits_for_the_workers_part(svc_local, monkeypatch):
    """With the codes' scan (shared: the worker helps, the caller ends it) a failing keyword leg still leaves
    only once the worker's part is done, and the scan's blocks stay whole: ended afterwards, it gives what a
    scan of its own gives."""
    svc_local.save_batch([{"content": t} for t in TOPICS * 10])
    assert svc_local.embedding.settle(120)
    monkeypatch.setattr(vectors, "EXACT_MAX_VALUES", 100)
    monkeypatch.setattr(codes, "MIN_CANDIDATES", 20)
    svc_local.store.vectors.forget()
    query = svc_local.embedding.embedder.embed_query("database migration")
    scan, _finish = svc_local.store.vectors.knn_split(query, 5)
    assert isinstance(scan, codes.CodeScan)

    def fail():
        raise RuntimeError("keyword leg failed")

    try:
        search._beside(scan, fail)
    except RuntimeError as e:
        assert str(e) == "keyword leg failed"
    else:
        raise AssertionError("the keyword leg's error was lost")
    assert search._WORKER._work_queue.empty()  # the worker's part was not left queued behind the caller
    alone, _ = svc_local.store.vectors.knn_split(query, 5)
    assert sorted(scan().tolist()) == sorted(alone().tolist())
