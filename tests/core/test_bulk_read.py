"""A large rebuild reads files in a helper process. It must give the rows an in-process read gives, report
broken files the same way, finish when the helper cannot start or dies, and stop the helper on cancel."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest

from memory_curator.core import bulk_read, indexing
from memory_curator.core.errors import Cancelled
from memory_curator.core.progress import CancelToken
from memory_curator.core.service import MemoryService
from memory_curator.core.vault.store import UNKNOWN, Vault


@pytest.fixture
def filled(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        saved = [svc.save(f"note {i} about zeppelin{i}", keywords=[f"k{i}"], category="decisions") for i in range(30)]
    (vault_dir / "context").mkdir(exist_ok=True)
    (vault_dir / "context" / "broken.md").write_text("---\nid: [oops\n---\nbody\n")
    (vault_dir / "context" / "binary.md").write_bytes(b"\x00\x01 binary")
    # A copy that differs: an identical one needs no person, and opening the vault merges it away (core/conflicts).
    Path(saved[0].file_path).with_name("copy.md").write_text(Path(saved[0].file_path).read_text() + "edited\n")
    return vault_dir, saved


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(bulk_read, "CHUNK", 7)  # several hand-overs, the last one short
    monkeypatch.setattr(bulk_read, "HELPER_MIN_FILES", 10)


def _rows(vault: Vault, helpers: int):
    stats = sorted(vault.scan(), key=lambda s: s.rel)
    return [r for part in bulk_read.Chunks(vault, stats, helpers=helpers) for r in part]


@pytest.mark.parametrize("helpers", [1, 2, 3])
def test_the_helpers_read_what_this_process_reads(filled, small_chunks, helpers):
    vault = Vault(filled[0])
    here = _rows(vault, helpers=0)
    assert _rows(vault, helpers=helpers) == here  # in order, though each helper reads every n-th chunk
    assert {r.rel for r in here if r.row is None} == {"context/broken.md", "context/binary.md"}
    assert sum(r.row is not None for r in here) == 31  # 30 notes and the copy (ids are checked by the writer)


@pytest.mark.parametrize("helper", ["missing", "exits at once"])
def test_a_helper_that_fails_leaves_the_reading_here(filled, small_chunks, monkeypatch, caplog, helper):
    vault = Vault(filled[0])
    here = _rows(vault, helpers=0)
    executable = str(filled[0] / "no-python") if helper == "missing" else shutil.which("true")
    monkeypatch.setattr(sys, "executable", executable)
    assert _rows(vault, helpers=2) == here
    assert "reading" in caplog.text


def _started_helpers(monkeypatch) -> list[subprocess.Popen]:
    started: list[subprocess.Popen] = []
    real_start = bulk_read._start_helper
    monkeypatch.setattr(bulk_read, "_start_helper", lambda *a: started.append(real_start(*a)) or started[-1])
    return started


def test_a_helper_sends_ahead_of_the_writer(tmp_path, monkeypatch):
    """The helpers' chunks are taken off their pipes as they come (up to AHEAD each), not when the writer asks:
    a helper with its next chunk done went on only once the writer wanted it. Each chunk here is larger than a
    pipe holds, so a helper whose chunks are not taken cannot finish before the writer asks for them."""
    (tmp_path / "context").mkdir()
    for i in range(bulk_read.AHEAD + 1):
        (tmp_path / "context" / f"n{i}.md").write_text(f"note {i} " + "word " * 40_000)
    monkeypatch.setattr(bulk_read, "CHUNK", 1)
    started = _started_helpers(monkeypatch)
    vault = Vault(tmp_path)
    stats = sorted(vault.scan(), key=lambda s: s.rel)
    with closing(bulk_read.Chunks(vault, stats, helpers=1)) as parts:
        first = next(parts)
        assert started[0].wait(timeout=30) == 0  # it sent the rest with the writer busy with the first
        rest = list(parts)
    assert [f.rel for part in [first, *rest] for f in part] == [st.rel for st in stats]
    with closing(bulk_read.Chunks(vault, stats, helpers=1)) as parts:  # stopped early: helper and reader go
        next(parts)
    assert started[1].returncode is not None
    assert not [t for t in threading.enumerate() if t.name == "bulk-read-take"]


def test_rebuild_through_the_helper(filled, config, small_chunks):
    vault_dir, saved = filled
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        report = svc.rebuild_index(embed=False)
        assert report.added == 30
        reasons = dict(report.problems)
        twin = {"decisions/copy.md", Path(saved[0].file_path).relative_to(vault_dir).as_posix()}
        (loser,) = set(reasons) & twin  # whichever of the two files with one id comes second in the scan
        assert set(reasons) == {"context/broken.md", "context/binary.md", loser} and "same id" in reasons[loser]
        assert {p.path for p in svc.problems()} == set(reasons)
        assert [r.memory.id for r in svc.search("zeppelin7", mode="keyword")] == [saved[7].id]


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="helper processes read only with two cores or more")
def test_a_rebuild_starts_its_helpers_before_it_empties_the_index(filled, config, small_chunks, monkeypatch):
    """Their start (an interpreter and its imports each) overlaps the clear, instead of following it and the scan
    while the writer waits for the first rows."""
    vault_dir, saved = filled
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        indexed = svc.store.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
        rows_at_start = []
        real_start = bulk_read._start_helper

        def start(*args):
            rows_at_start.append(svc.store.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0])
            return real_start(*args)

        monkeypatch.setattr(bulk_read, "_start_helper", start)
        report = svc.rebuild_index(embed=False)
        assert [r.memory.id for r in svc.search("zeppelin7", mode="keyword")] == [saved[7].id]
    assert indexed == report.added == 30
    assert rows_at_start and set(rows_at_start) == {indexed}


def _children() -> set[int]:
    """Child processes of this one, running or exited but not yet waited for (Linux /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
        except OSError:
            continue
        if stat and int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid():
            found.add(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
def test_cancelling_a_rebuild_stops_the_helper(filled, config, small_chunks):
    vault_dir, _ = filled
    token = CancelToken()
    before = _children()
    during = []

    def progress(done, total, message):
        during.append(_children() - before)
        token.cancel()

    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        with pytest.raises(Cancelled):
            svc.rebuild_index(embed=False, progress=progress, cancel=token)
        assert during[0]  # the helper had been started
        assert not (_children() - before)  # and is gone: stopped and waited for, no zombie left
        svc.rebuild_index(embed=False)  # the index can be rebuilt whole afterwards
        assert svc.count() == 30


def test_the_helper_imports_neither_sqlite_nor_numpy():
    """Each helper process imports what reading needs; the store brought SQLite, sqlite-vec and numpy with it,
    a quarter of a second of each helper's start, paid before the first rows come."""
    code = "import sys, memory_curator.core.bulk_read; print(sorted({'numpy', 'sqlean', 'sqlite_vec'} & set(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(Path(bulk_read.__file__).resolve().parents[2])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]"


def test_rows_of_a_names_only_scan_take_the_stat_of_the_read(filled):
    """A rebuild lists the files without a stat each; every row (a conflicted file's too) records the file's
    modification time and size as it was read, which is what a sync later compares with."""
    vault_dir, saved = filled
    Path(saved[1].file_path).write_text(Path(saved[1].file_path).read_text()
                                        + "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> other\n")
    vault = Vault(vault_dir)
    names = sorted(vault.scan(stat=False), key=lambda s: s.rel)
    assert {(st.mtime_ns, st.size) for st in names} == {(UNKNOWN, UNKNOWN)}
    rows = [r for r in bulk_read.read_rows(str(vault_dir), names) if r.row is not None]
    assert any(r.problem for r in rows)  # the conflicted file, listed under this machine's side
    for r in rows:
        st = os.stat(vault_dir / r.rel)
        assert r.row.values[11:13] == (st.st_mtime_ns, st.st_size), r.rel
    assert len(rows) == 31


def _memory_file_system(path: Path) -> bool:
    """Whether ``path`` is on a file system that keeps its files in memory only (tmpfs: nothing to evict)."""
    mounts = [line.split()[1:3] for line in Path("/proc/self/mounts").read_text().splitlines()]
    found = max((m for m in mounts if str(path).startswith(m[0].rstrip("/") + "/")), key=lambda m: len(m[0]))
    return found[1] in ("tmpfs", "ramfs")


def test_read_ahead_is_skipped_for_files_in_memory(tmp_path):
    """Reading ahead opens every file a second time (0.5 CPU-s at 100,000 files): not when they are in the page
    cache already, as after the app's own scan and reads. A file only on disk makes it read ahead again."""
    names = []
    for i in range(10):
        (tmp_path / f"f{i}.md").write_text(f"note {i}\n")
        names.append(f"f{i}.md")
    for name in names:
        (tmp_path / name).read_bytes()
    if not hasattr(os, "RWF_NOWAIT"):
        assert not indexing._in_memory(str(tmp_path), names)  # cannot tell: reads ahead as before
        return
    assert indexing._in_memory(str(tmp_path), names)
    if _memory_file_system(tmp_path):
        pytest.skip("this file system keeps files in memory")
    fd = os.open(tmp_path / names[3], os.O_RDONLY)
    try:
        os.fsync(fd)
        for _ in range(20):  # a probe that misses may start reading the file in: evicted again before the next
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            if not indexing._in_memory(str(tmp_path), names):
                break
            time.sleep(0.05)
        else:
            pytest.fail("a file out of the page cache was taken for one in memory")
    finally:
        os.close(fd)
