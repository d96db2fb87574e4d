"""The background upkeep run to the end where nothing polls (core/index/upkeep.py): the unreadable shares an
older index lacks and the keyword postings, with progress; a cancel keeps the steps done."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from memory_curator.core.index import postings, unreadable
from memory_curator.core.index.postings_unit import PostingsUnit
from memory_curator.core.index.upkeep import Pending, Upkeep
from memory_curator.core.kicked import FREE_S, HOLD_S, Pacer
from memory_curator.core.progress import CancelToken
from memory_curator.core.service import MemoryService


def unfilled(svc: MemoryService) -> None:
    """The rows as migration 17 leaves an older index: no share stored, the fill at its start."""
    conn = svc.store.conn
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


def test_the_background_leaves_the_lock_free_as_long_again_the_foreground_only_as_others_need():
    background = Pacer(0.05)
    assert background.free_for(10.0, now=10.01) == 0.05  # at least pause_s
    assert background.free_for(10.0, now=10.3) == pytest.approx(0.3)  # as long as the step held it
    fore = Pacer(0.05, foreground=True)
    # Steps with reads between them (the build: each read in a transaction of its own, the lock free meanwhile)
    # never pause: the lock is free FREE_S or more before every step.
    t = 0.0
    for _ in range(20):
        assert fore.free_for(t, now=t + 0.1) == 0.0
        t += 0.1 + 0.2  # a read of 0.2 s
    # Back-to-back steps (the fill, a fold): the lock is left free FREE_S once it was held HOLD_S.
    waits, t = [], 100.0
    for _ in range(12):
        wait = fore.free_for(t, now=t + 0.125)
        waits.append(wait)
        t += 0.125 + wait
    held = round(HOLD_S / 0.125)
    assert waits == ([0.0] * (held - 1) + [FREE_S]) * (12 // held) + [0.0] * (12 % held)


def test_maintain_does_not_wait_out_the_background_pauses(vault_dir, config):
    """The same unit as the app's, with an hour's pause after each step in the background: run by upkeep (a
    user waits) it builds to the end, and is back to the background's pauses after."""
    config = replace(config, postings_min_rows=20, postings_common=1)
    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False, background=False) as svc:
        svc.save_batch([{"content": f"river stone garden note {i} word{i % 7}", "category": "context"}
                        for i in range(60)])
        svc.rebuild_index(embed=False)
        unit = PostingsUnit(svc.vault.index_path, svc.vault.state_dir, min_rows=20, common=1, pause_s=3600)
        upkeep, token = Upkeep(svc.store, unit, config), CancelToken()
        assert upkeep.pending() == Pending(postings="build")
        timer = threading.Timer(60, token.cancel)  # on main: still in the first step's hour-long pause then
        timer.start()
        try:
            left = upkeep.run(cancel=token)
        finally:
            timer.cancel()
            unit.close()
        assert left == Pending()
        assert postings.has_base(svc.store.conn)
        assert not unit.pacer.foreground
