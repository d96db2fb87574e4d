"""kill -9 at random moments of saves, batches, moves, deletes, pins, update_batch, consolidation, rebuilds and
inbox approvals (``kill_worker.py``): every acknowledged write survives, a batch of new memories is all or
nothing, and after reopening the files and the index agree, with no temp or staging files left.

The default run kills a few times; ``-m slow`` kills at 210 moments over seven vaults.
"""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from memory_curator.core.indexing import DUPLICATE_ID
from memory_curator.core.service import MemoryService

WORKER = Path(__file__).with_name("kill_worker.py")
ENV = {**os.environ, "OLLAMA_HOST": "http://127.0.0.1:9"}
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


@dataclass
class Killed:
    """What a worker said before it died."""

    lines: list[dict]
    stderr: str

    @property
    def acked(self) -> list[dict]:
        return [line for line in self.lines if "ack" in line]

    @property
    def in_flight(self) -> dict | None:
        starts = [line for line in self.lines if "start" in line]
        return starts[-1] if starts and len(starts) > len(self.acked) else None


@dataclass
class Tally:
    kills: int = 0
    acked: int = 0
    in_flight: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def _kill_after(vault: Path, seed: int, starts: int, delay_s: float) -> Killed:
    """Start a worker, let it begin ``starts`` operations, wait ``delay_s`` (to land inside the last one),
    then SIGKILL it."""
    proc = subprocess.Popen([sys.executable, str(WORKER), str(vault), str(seed)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV)
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for raw in proc.stdout:  # type: ignore[union-attr]
            lines.put(json.loads(raw))
        lines.put(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    seen: list[dict] = []
    try:
        begun = 0
        while begun < starts:
            line = lines.get(timeout=300)
            if line is None:
                pytest.fail(f"the worker exited by itself: {proc.stderr.read()[-3000:]}")  # type: ignore[union-attr]
            seen.append(line)
            begun += "start" in line
        time.sleep(delay_s)  # not a wait for something: the moment of the kill, chosen at random
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)
    reader.join(timeout=60)
    while (line := lines.get_nowait() if not lines.empty() else None) is not None:
        seen.append(line)  # acknowledged before the kill: written to the pipe, so the client had it
    return Killed(seen, proc.stderr.read())  # type: ignore[union-attr]


def _files(vault: Path, svc: MemoryService) -> dict[str, str]:
    out = {}
    for st in svc.vault.scan():
        item = svc.vault.read(st.rel)
        out.setdefault(item.id, item.content)
    return out


def _check(vault: Path, before: dict[str, str], killed: Killed, config) -> dict[str, str]:
    """The vault after the kill, reopened, against what the worker acknowledged; returns it as the next baseline."""
    expected: dict[str, str | None] = dict(before)
    pinned: set[str] = set()
    approved: set[str] = set()
    for line in killed.acked:
        expected.update(line["values"])
        if line["ack"] == "consolidate":
            expected[line["summary"]] = line["summary_content"]
        if line["ack"] == "pin":
            pinned.update(line["ids"])
        if line["ack"] == "approve":
            approved.update(line["ids"])
    flight = killed.in_flight
    maybe: dict[str, set] = defaultdict(set)
    if flight is not None:
        for mid, value in flight["values"].items():
            maybe[mid].add(value)
    with MemoryService.open(vault, embedder="none", config=config) as svc:
        live = {m.id: m for m in svc.list_memories(limit=100_000)}
        for mid, value in expected.items():
            actual = live[mid].content if mid in live else None
            assert actual == value or actual in maybe[mid], (
                f"{mid}: {actual!r}, acknowledged {value!r} (in flight: {flight})")
        for mid in pinned & set(live):
            assert live[mid].pinned or live[mid].content in maybe[mid], f"{mid} lost its acknowledged pin"
        for mid in approved & set(live):
            assert "review" not in live[mid].extra or mid in maybe, f"{mid} lost its acknowledged approval"
        new = {mid: live[mid] for mid in live if mid not in expected}
        if new:  # only the operation in flight may have added memories, and a batch all or none
            assert flight is not None, f"memories nobody saved: {sorted(new)}"
            contents = sorted(m.content for m in new.values())
            if flight["start"] in ("save", "save_ai"):
                assert contents == [flight["content"]]
            elif flight["start"] == "save_batch":
                assert contents == sorted(flight["contents"]), "a batch of new memories came back in part"
            else:
                assert flight["start"] == "consolidate" and len(new) == 1
                assert sorted(next(iter(new.values())).consolidated_from) == sorted(flight["ids"])
        # The files and the index agree; the only problem a kill may leave is the second copy of a move.
        files = _files(vault, svc)
        assert files == {mid: m.content for mid, m in live.items()}
        for p in svc.problems():
            assert p.reason.startswith(DUPLICATE_ID), (p.path, p.reason)
            assert svc.vault.read(p.path).content == live[svc.vault.read(p.path).id].content
        # A rebuild drops secondary indexes while it fills the tables: reopening makes any it left dropped.
        assert _index_names(svc) == _index_names_of_a_new_vault(config)
        leftovers = [p for p in vault.rglob(".tmp-*") if ".trash" not in p.parts]
        assert leftovers == [] and not any((vault / ".memory-curator" / "staging").glob("*"))
        return {mid: m.content for mid, m in live.items()}


def _index_names(svc: MemoryService) -> set[str]:
    return {r[0] for r in svc.store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}


_NEW_VAULT_INDEXES: set[str] = set()


def _index_names_of_a_new_vault(config) -> set[str]:
    if not _NEW_VAULT_INDEXES:
        with tempfile.TemporaryDirectory() as tmp, MemoryService.open(Path(tmp), embedder="none", config=config) as svc:
            _NEW_VAULT_INDEXES.update(_index_names(svc))
    return _NEW_VAULT_INDEXES


def _kill_series(tmp_path: Path, config, seed: int, kills: int, tally: Tally) -> None:
    vault = tmp_path / f"vault-{seed}"
    rng = random.Random(seed)
    before: dict[str, str] = {}
    for k in range(kills):
        killed = _kill_after(vault, seed * 1000 + k, starts=rng.randint(1, 12), delay_s=rng.uniform(0, 0.06))
        before = _check(vault, before, killed, config)
        tally.kills += 1
        tally.acked += len(killed.acked)
        if killed.in_flight is not None:
            tally.in_flight[killed.in_flight["start"]] += 1


def test_kill9_a_few_times(tmp_path, config):
    tally = Tally()
    _kill_series(tmp_path, config, seed=1, kills=4, tally=tally)
    assert tally.kills == 4 and tally.acked > 0


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_kill9_at_210_moments(tmp_path, config):
    tally = Tally()
    for seed in range(2, 9):
        _kill_series(tmp_path, config, seed=seed, kills=30, tally=tally)
    print(f"\nkill -9: {tally.kills} kills, {tally.acked} acknowledged writes checked, killed inside: "
          f"{dict(sorted(tally.in_flight.items()))}")
    assert tally.kills == 210
    # every kind of operation was cut in the middle at least once
    assert {"save", "save_batch", "update", "move", "update_batch", "consolidate", "rebuild"} <= set(tally.in_flight)
