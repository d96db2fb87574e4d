"""SQLite's environment errors are the user's to fix, not our bugs (issue 12 item 5): a lock another program
holds, a full database, a read-only index file become IndexBusy / StorageError with what to do, nothing is
half-written, and the vault works again once the cause is gone. Real conditions: another process holding a
real SQLite write lock, SQLite's own page limit, a file the process may not write."""

from __future__ import annotations

import pytest

from memory_curator.core.errors import CuratorError, IndexBusy, StorageError
from memory_curator.core.service import MemoryService
from sqlite_conditions import index_locked, read_only


@pytest.fixture
def locked_index(svc):
    """The vault's index write-locked by another process until ``release()``; the service waits 0.2 s, not
    15 s, before giving up."""
    svc.store.conn.execute("PRAGMA busy_timeout = 200")
    with index_locked(svc.vault.index_path) as release:
        yield release


def _files(svc) -> set[str]:
    return {st.rel for st in svc.vault.scan()}


@pytest.fixture
def kept(svc):
    return svc.save("saved before the lock")


def test_a_lock_held_by_another_program_is_index_busy_and_nothing_is_half_written(svc, kept, locked_index):
    before = _files(svc)
    with pytest.raises(IndexBusy) as err:
        svc.save("saved while another program holds the index")
    assert isinstance(err.value, CuratorError) and err.value.code == "INDEX_BUSY"
    assert "locked by another program" in str(err.value) and "Try again" in str(err.value)
    assert _files(svc) == before  # the file written first was taken back with the failed row
    with pytest.raises(IndexBusy):
        svc.get(kept.id)  # a recall is a write too
    assert [it.id for it in svc.list_memories()] == [kept.id]  # readers are not blocked (WAL)
    locked_index()
    again = svc.save("saved once the other program let go")
    assert {it.id for it in svc.list_memories()} == {kept.id, again.id}


def test_a_full_database_is_a_storage_error_and_nothing_is_half_written(svc):
    svc.save("a first memory")
    before = _files(svc)
    pages = svc.store.conn.execute("PRAGMA page_count").fetchone()[0]
    svc.store.conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own limit: as a full disk to it
    with pytest.raises(StorageError) as err:
        svc.save_batch([{"content": f"memory {i} " + "words " * 400} for i in range(20)])
    assert "full" in str(err.value) and "Free some space" in str(err.value)
    assert _files(svc) == before
    svc.store.conn.execute("PRAGMA max_page_count = 1073741823")
    assert len(svc.save_batch([{"content": "room again"}])) == 1


def test_a_read_only_index_is_a_storage_error_that_says_what_to_do(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        mid = svc.save("a memory in a vault on a read-only disk").id
    with read_only(vault_dir):
        with pytest.raises(StorageError) as err:
            with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
                svc.get(mid)  # a recall writes to the index, should opening not
    assert "cannot be written" in str(err.value) and "writable" in str(err.value)
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert svc.get(mid).content == "a memory in a vault on a read-only disk"
