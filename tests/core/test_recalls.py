"""A search's recalls are queued and written in batches (core/lifecycle/recalls.py): every read of the access
statistics in the engine sees the searches made before it, a search writes the batch that is due, a thread
writes what the engine leaves waiting, close() writes what is left, counts stay exact with several engines
searching at once, and another process sees the rows once written. Real SQLite, real threads, a real second
process."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest

from memory_curator.core.lifecycle import access
from memory_curator.core.model import utcnow
from memory_curator.core.service import MemoryService
from memory_curator.core.vault.codec import format_dt
from sqlite_conditions import index_locked

COUNT = """
import sys
import sqlean
conn = sqlean.connect(sys.argv[1])
print(conn.execute("SELECT COUNT(*) FROM access_log WHERE kind = 'search'").fetchone()[0],
      conn.execute("SELECT COALESCE(SUM(access_count), 0) FROM access_stats").fetchone()[0])
"""


def _other_process_sees(index_path) -> tuple[int, int]:
    out = subprocess.run([sys.executable, "-c", COUNT, str(index_path)], capture_output=True, text=True, check=True)
    log_rows, counted = out.stdout.split()
    return int(log_rows), int(counted)


def _raw_log(svc) -> list[tuple[str, str, str]]:
    return svc.store.conn.execute("SELECT memory_id, accessed_at, kind FROM access_log ORDER BY rowid").fetchall()


def _log(svc) -> list[tuple[str, str, str]]:
    svc.store.settle()
    return _raw_log(svc)


def test_every_read_of_the_statistics_sees_the_searches_before_it(svc):
    a = svc.save("the lighthouse keeper logs every ship", keywords=["sea"])
    b = svc.save("a ship passes the lighthouse at dawn", keywords=["sea"])
    for n in range(1, 6):
        svc.search("lighthouse", mode="keyword")
        # each read right after the search, without waiting: the store settles the queued recall first
        assert svc.get(a.id, record_access=False).access_count == n
        assert {it.id: it.access_count for it in svc.list_memories(order_by="access_count")} == {a.id: n, b.id: n}
        assert svc.get_score(b.id).recent_accesses == n
        assert svc.search("lighthouse", mode="keyword", record_access=False).results[0].memory.access_count == n
    ranked = svc.search("ship", mode="keyword", sort_by="importance", record_access=False)
    assert {r.memory.id for r in ranked.results} == {a.id, b.id}
    assert svc.memories.recalls.batches >= 1  # written by the recalls' thread, not the search


def test_the_rows_are_those_the_search_would_have_written(svc):
    a = svc.save("the orchard's apple trees", keywords=["fruit"])
    svc.get(a.id)
    svc.memories.recalls._batch_s = 60.0  # nothing written until a settle: what is read meanwhile is counted in
    before = format_dt(utcnow())
    hits = svc.search("orchard", mode="keyword")
    after = format_dt(utcnow())
    assert hits.results[0].memory.access_count == 1  # a search shows the counts from before its own recall
    counted_in = svc.get(a.id, record_access=False)
    assert svc.memories.recalls.pending == 1 and len(_raw_log(svc)) == 1  # not written yet
    [(_, _, first), (mid, at, kind)] = _log(svc)  # settles: written now
    assert first == "get"
    assert (mid, kind) == (a.id, "search") and before <= at <= after  # the search's time, not the write's
    written = svc.get(a.id, record_access=False)
    assert format_dt(written.last_accessed) == at
    assert written.access_count == 2
    assert (counted_in.access_count, counted_in.last_accessed, counted_in.importance) == (
        written.access_count, written.last_accessed, written.importance)
    [expected] = access.scores(svc.store, svc.config, [a.id], written.last_accessed)
    assert written.importance == pytest.approx(expected.computed, abs=1e-6)
    svc.get(a.id)  # a get after the search: logged after it, synchronously as before
    assert [k for _, _, k in _log(svc)] == ["get", "search", "get"]


def test_close_writes_what_is_queued(vault_dir, config):
    svc = MemoryService.open(vault_dir, embedder="none", config=config)
    svc.save("a river runs through the valley")
    for _ in range(30):
        svc.search("river", mode="keyword")
    svc.close()
    assert _other_process_sees(vault_dir / "index.db") == (30, 30)


def test_another_process_sees_the_rows_once_settled(svc):
    svc.save("the glacier moves a metre a day")
    for _ in range(3):
        svc.search("glacier", mode="keyword")
    svc.store.settle()
    assert svc.memories.recalls.pending == 0
    assert _other_process_sees(svc.vault.index_path) == (3, 3)


def test_a_search_writes_the_batch_that_is_due(svc):
    svc.save("the lamp is lit at dusk")
    svc.memories.recalls._batch_s = 0.0  # every search finds its batch due
    for n in range(1, 4):
        svc.search("lamp", mode="keyword")
        assert svc.memories.recalls.pending == 0
        assert _other_process_sees(svc.vault.index_path) == (n, n)


def test_the_thread_writes_what_the_engine_leaves_waiting(svc):
    svc.save("the mill turns with the wind")
    svc.search("mill", mode="keyword")
    assert svc.memories.recalls.pending == 1
    deadline = time.monotonic() + 30
    while _other_process_sees(svc.vault.index_path) != (1, 1) and time.monotonic() < deadline:
        time.sleep(0.2)  # the engine does nothing meanwhile
    assert _other_process_sees(svc.vault.index_path) == (1, 1)
    assert svc.memories.recalls.pending == 0 and svc.memories.recalls.batches == 1


def test_searches_from_several_engines_and_threads_keep_counts_exact(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as first:
        target = first.save("the bell tower rings at noon", keywords=["bell"]).id
    threads, errors, per_thread = 4, [], 40

    def searcher() -> None:
        try:
            with MemoryService.open(vault_dir, embedder="none", config=config, sync=False) as svc:
                for _ in range(per_thread):
                    assert svc.search("bell tower", mode="keyword").results
        except Exception as exc:  # noqa: BLE001 - reported by the test's thread
            errors.append(exc)

    workers = [threading.Thread(target=searcher) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(120)
    assert errors == []
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert svc.get(target, record_access=False).access_count == threads * per_thread
        assert svc.get_score(target).recent_accesses == threads * per_thread
    assert _other_process_sees(vault_dir / "index.db") == (threads * per_thread, threads * per_thread)


def test_a_search_answers_while_another_program_holds_the_index(svc):
    item = svc.save("the ferry leaves at six")
    with index_locked(svc.vault.index_path) as release:
        started = time.monotonic()
        assert svc.search("ferry", mode="keyword").results  # its recall waits for the lock, not the search
        answered = time.monotonic() - started
        assert svc.memories.recalls.pending == 1  # still waiting for the other program's lock
        release()
    assert answered < 10  # the record used to wait for the lock (up to the 15 s busy timeout) before answering
    svc.store.settle()
    assert svc.memories.recalls.pending == 0 and [r[0] for r in _raw_log(svc)] == [item.id]


@pytest.mark.slow
def test_recalls_that_could_not_be_written_are_kept_and_written_later(svc):
    item = svc.save("the tide comes in twice a day")
    svc.memories.recalls._retry_s = 0.2
    with index_locked(svc.vault.index_path):
        svc.search("tide", mode="keyword")
        deadline = time.monotonic() + 60
        while svc.memories.recalls._failed_at is None and time.monotonic() < deadline:
            time.sleep(0.1)  # the writer gives up after SQLite's busy timeout (15 s)
        assert svc.memories.recalls._failed_at is not None
        # reads wait for no failing write; the recall is counted in meanwhile
        assert svc.list_memories(order_by="access_count")[0].access_count == 1
        assert svc.memories.recalls.pending == 1
    svc.store.settle()
    deadline = time.monotonic() + 30
    while svc.memories.recalls.pending and time.monotonic() < deadline:
        time.sleep(0.1)
    assert svc.get(item.id, record_access=False).access_count == 1
    assert svc.store.conn.execute("SELECT accessed_at FROM access_log").fetchone()[0] < format_dt(
        utcnow() - timedelta(seconds=10))  # stamped at the search, not at the write
