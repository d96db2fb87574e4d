"""The background upkeep run to the end where nothing polls (core/index/upkeep.py): the unreadable shares an
older index lacks and the keyword postings, with progress; a cancel keeps the steps done."""

from __future__ import annotations

from dataclasses import replace

from memory_curator.core.index import postings, unreadable
from memory_curator.core.index.upkeep import Pending, Upkeep
from memory_curator.core.progress import CancelToken
from memory_curator.core.service import MemoryService


def unfilled(svc: MemoryService) -> None:
    """The rows as migration 17 leaves an older index: no share stored, the fill at its start, no index."""
    conn = svc.store.conn
    conn.execute(f"DROP INDEX {unreadable.INDEX}")
    conn.execute("UPDATE memories SET unreadable = NULL")
    conn.execute("INSERT INTO meta (key, value) VALUES (?, '0')", (unreadable.KEY,))


def test_the_fill_runs_to_the_end_and_a_cancel_keeps_its_steps(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        svc.save_batch([{"content": f"note {i}" if i % 3 else f"日本語のメモ {i}", "category": "context"}
                        for i in range(4500)])
        unfilled(svc)
        upkeep = Upkeep(svc.store, None, config, step_s=0.0)  # one part (2,000 rows) a step
        assert upkeep.pending() == Pending(shares=4500)
        token = CancelToken()
        heard = []

        def progress(done: int, total: int, message: str) -> None:
            heard.append((done, total, message))
            token.cancel()

        left = upkeep.run(progress, token)
        assert heard == [(0, 4500, "storing the unreadable shares (memories)")]
        assert left == Pending(shares=2500)  # the first step is kept
        assert unreadable.reach(svc.store.conn) == (2000, 4500)
        heard.clear()
        assert upkeep.run(lambda *a: heard.append(a)) == Pending()
        assert [done for done, _, _ in heard] == [2000, 4000]
        assert not unreadable.pending(svc.store.conn)
        assert len(unreadable.shares(svc.store.conn, list(range(1, 4501)))) == 1500  # the Japanese third


def test_the_postings_are_built_through_the_unit(vault_dir, config):
    config = replace(config, postings_min_rows=20, postings_common=3)
    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False) as svc:
        svc.save_batch([{"content": f"river stone garden note {i}", "category": "context"} for i in range(30)])
        svc.rebuild_index(embed=False)
        assert svc.upkeep.pending() == Pending(postings="build")
        assert svc.upkeep.run() == Pending()
        assert postings.has_base(svc.store.conn)
