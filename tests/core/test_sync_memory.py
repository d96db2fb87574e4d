"""A sync's memory does not grow with the vault: it compares the files with their index rows a chunk at a time
(issue 14: at 1,000,000 files one sync with nothing changed held a record per file and per row, ~700 MB)."""

from __future__ import annotations

import os
import tracemalloc
import uuid

from memory_curator.core import indexing
from memory_curator.core.service import MemoryService


def _write_files(root, n: int, folders=("decisions", "context")) -> None:
    for i in range(n):
        folder = root / folders[i % len(folders)]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"2025-01-01_note-{i}.md").write_text(
            f"---\nid: {uuid.UUID(int=i + 1)}\ntitle: Note {i}\ncreated_at: '2025-01-01T00:00:00Z'\n"
            f"updated_at: '2025-01-01T00:00:00Z'\n---\n\nBody of note {i} about topic {i % 17}.\n",
            encoding="utf-8")


def _sync_peak(root, n: int, config) -> int:
    """tracemalloc's peak over one sync of an ``n``-file vault in which nothing changed."""
    _write_files(root, n)
    with MemoryService.open(root, embedder="none", config=config) as svc:
        assert svc.count() == n
        tracemalloc.start()
        try:
            report = indexing.sync(svc.store, svc.vault)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert (report.changed, report.unchanged) == (0, n)
    return peak


def test_a_sync_with_nothing_changed_holds_a_chunk_of_files_not_the_vault(tmp_path, config):
    small = _sync_peak(tmp_path / "small", 1_000, config)
    large = _sync_peak(tmp_path / "large", 4_000, config)
    # A record per file and per row (the sync before) gave ~4x the peak at 4x the files; a chunk at a time
    # gives the same peak whatever the vault's size.
    assert large < 1.5 * small, (small, large)


def test_changed_added_and_deleted_files_are_found_across_chunks(tmp_path, config):
    n = 3 * indexing.COMPARE_CHUNK + 7
    _write_files(tmp_path, n)
    with MemoryService.open(tmp_path, embedder="none", config=config) as svc:
        edited = tmp_path / "context" / "2025-01-01_note-1001.md"
        edited.write_text(edited.read_text(encoding="utf-8").replace("Body", "Edited body"), encoding="utf-8")
        os.utime(edited, ns=(1, 1))  # another mtime, whatever the clock's resolution
        (tmp_path / "decisions" / "2025-01-01_note-4.md").unlink()
        (tmp_path / "decisions" / "2025-01-01_note-1500.md").unlink()
        (tmp_path / "summaries").mkdir()
        (tmp_path / "summaries" / "2025-01-02_new.md").write_text("# New\n\nA new note.\n", encoding="utf-8")
        report = indexing.sync(svc.store, svc.vault)
        assert (report.added, report.updated, report.removed) == (1, 1, 2)
        assert report.unchanged == n - 3  # two deleted, one edited
        assert svc.count() == n - 1
        assert "Edited body" in svc.get(str(uuid.UUID(int=1002))).content
        assert svc.store.holder_of(str(uuid.UUID(int=5))) is None


def test_a_changed_file_taking_an_unchanged_files_id_is_settled_without_a_map_of_ids(tmp_path, config):
    """The id's holder comes from the index row when its file did not change (the map of every unchanged
    file's id is gone): the copy (same updated_at, a later path) loses to the file that holds the id, and is
    reported."""
    _write_files(tmp_path, 10)
    with MemoryService.open(tmp_path, embedder="none", config=config) as svc:
        holder = tmp_path / "decisions" / "2025-01-01_note-2.md"
        copy = tmp_path / "decisions" / "2025-01-01_note-2z.md"
        copy.write_text(holder.read_text(encoding="utf-8"), encoding="utf-8")
        later = holder.stat().st_mtime_ns + 10**10
        os.utime(copy, ns=(later, later))  # written later: the frontmatter's updated_at decides, not the clock
        report = indexing.sync(svc.store, svc.vault)
        assert svc.store.holder_of(str(uuid.UUID(int=3))) == "decisions/2025-01-01_note-2.md"
        assert [p for p, _ in report.problems] == ["decisions/2025-01-01_note-2z.md"]
        assert svc.count() == 10
