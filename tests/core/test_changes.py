"""Several processes, one vault: exclusive file names, the write lock, and the change signal."""

from __future__ import annotations

import os
import threading
from dataclasses import replace
from pathlib import Path

from memory_curator.core.changes import ChangeMonitor
from memory_curator.core.service import MemoryService
from memory_curator.core.vault.files import atomic_create_text
from memory_curator.core.vault.lock import VaultLock


def test_exclusive_creation_never_overwrites(tmp_path):
    target = tmp_path / "context" / "2026-01-01_same.md"
    paths = []

    def create(i):
        paths.append(atomic_create_text(target, f"writer {i}\n"))

    threads = [threading.Thread(target=create, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(paths)) == 8
    assert sorted(p.read_text() for p in paths) == sorted(f"writer {i}\n" for i in range(8))
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".tmp-")]


def test_two_services_saving_the_same_title(vault_dir, config):
    a = MemoryService.open(vault_dir, embedder="none", config=config)
    b = MemoryService.open(vault_dir, embedder="none", config=config)
    try:
        x = a.save("from a", title="Same title")
        y = b.save("from b", title="Same title")
        assert x.file_path != y.file_path
        assert a.get(y.id).content == "from b" and b.get(x.id).content == "from a"
    finally:
        a.close()
        b.close()


def test_poll_sees_another_process_and_an_editor(vault_dir, config):
    app = MemoryService.open(vault_dir, embedder="none", config=config)
    other = MemoryService.open(vault_dir, embedder="none", config=config)
    try:
        assert not app.poll_changes().changed
        other.save("Saved by the CLI")
        report = app.poll_changes()
        assert report.index_changed
        assert not app.poll_changes().changed
        # A text editor adds a file: the folder's mtime moves, the index follows on the next poll.
        note = Path(vault_dir) / "context" / "editor_note.md"
        note.write_text("# From my editor\n\nPlain markdown.\n")
        os.utime(note.parent, ns=(1, 1))  # make sure the folder signature differs even on coarse clocks
        report = app.poll_changes()
        assert report.files_changed == 1
        assert [m.title for m in app.list_memories() if m.title == "From my editor"]
        note.unlink()
        os.utime(note.parent, ns=(2, 2))
        assert app.poll_changes().files_changed == 1
        assert app.count() == 1
    finally:
        app.close()
        other.close()


def test_in_place_edit_is_found_by_the_periodic_full_scan(vault_dir, config):
    # Without file events (a network folder): the stat scan finds it.
    svc = MemoryService.open(vault_dir, embedder="none", config=replace(config, watch_files=False))
    try:
        item = svc.save("Original words", title="Edited")
        svc.poll_changes()
        path = Path(item.file_path)
        path.write_text(path.read_text().replace("Original words", "Changed in place"))
        svc._changes._full_scan_s = 0.0  # the periodic scan is due
        assert svc.poll_changes().files_changed == 1
        assert svc.search("changed", mode="keyword")[0].memory.id == item.id
    finally:
        svc.close()


def test_files_written_by_another_engine_process_need_no_resync(vault_dir, config):
    app = MemoryService.open(vault_dir, embedder="none", config=config)
    other = MemoryService.open(vault_dir, embedder="none", config=config)
    try:
        syncs: list[int] = []
        monitor = ChangeMonitor(app.store, app.vault, lambda _tracker: syncs.append(1) or 0, full_scan_s=1e9, watch=False)
        other.save("Indexed by the process that wrote it", category="decisions")
        os.utime(Path(vault_dir) / "decisions", ns=(5, 5))
        assert monitor.poll().index_changed and syncs == []  # the folder agrees with its rows: no sync
        (Path(vault_dir) / "decisions" / "by_hand.md").write_text("# By hand\n")
        os.utime(Path(vault_dir) / "decisions", ns=(6, 6))
        monitor.poll()
        assert syncs == [1]
    finally:
        app.close()
        other.close()


def test_poll_never_waits_for_another_writer(vault_dir, config):
    svc = MemoryService.open(vault_dir, embedder="none", config=config)
    other = VaultLock(svc.vault.state_dir)  # another process's lock on the same file
    try:
        svc.save("Before", title="Before")
        (Path(vault_dir) / "context" / "editor.md").write_text("# Editor\n")
        os.utime(Path(vault_dir) / "context", ns=(7, 7))
        with other.hold() as held:
            assert held
            with svc.write_lock.hold(wait=False) as mine:
                assert mine is False
            assert svc.poll_changes().files_changed == 0  # returns at once instead of blocking
        assert svc.poll_changes().files_changed == 1  # and catches up once the writer is done
    finally:
        svc.close()


def test_searches_by_another_process_are_not_a_change(vault_dir, config):
    """Recording that a search recalled a memory writes access statistics, not memories: no reload."""
    app = MemoryService.open(vault_dir, embedder="none", config=config)
    other = MemoryService.open(vault_dir, embedder="none", config=config)
    try:
        other.save("Coffee notes")
        assert app.poll_changes().index_changed
        assert other.search("coffee", mode="keyword")
        other.get(other.list_memories()[0].id)
        assert not app.poll_changes().index_changed
        other.update(other.list_memories()[0].id, salience=0.3)
        assert app.poll_changes().index_changed
    finally:
        app.close()
        other.close()
