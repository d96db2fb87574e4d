"""A sync takes a cancel (the app's close cancels a poll's sync: ~20 s at 1,000,000 files) and a cancelled sync
leaves the index consistent: the batches it committed stay, the next sync (or poll) does the rest."""

from __future__ import annotations

import threading
import time

import pytest

from memory_curator.core import indexing
from memory_curator.core.errors import Cancelled
from memory_curator.core.progress import CancelToken
from memory_curator.core.service import MemoryService
from memory_curator.serving.worker import ServiceWorker


def write_by_hand(folder, n: int) -> None:
    """Files another program wrote, made in a hidden folder and moved in at once (as one change)."""
    staging = folder.parent / ".staging"
    staging.mkdir()
    for i in range(n):
        (staging / f"note-{i:05}.md").write_text(f"---\ntitle: By hand {i}\n---\nwritten by hand {i}\n")
    staging.rename(folder)


def cancel_at_first_progress(token: CancelToken, seen: list[int]):
    def progress(done: int, total: int, _message: str = "") -> None:
        seen.append(done)
        token.cancel()

    return progress


def consistent(svc) -> None:
    report = svc.health()
    assert report.unreadable == [] and report.missing_files == []
    assert svc.count() == len(svc.list_memories(limit=100_000))


def test_a_cancelled_sync_keeps_its_committed_batches_and_the_next_sync_finishes(svc):
    svc.save("Saved through the engine", title="Engine")
    by_hand = indexing.WRITE_BATCH + 30
    write_by_hand(svc.vault.root / "notes", by_hand)
    token, seen = CancelToken(), []
    with pytest.raises(Cancelled):
        svc.sync(progress=cancel_at_first_progress(token, seen), cancel=token)
    assert seen == [indexing.WRITE_BATCH]
    assert svc.count() == 1 + indexing.WRITE_BATCH
    consistent(svc)
    assert svc.sync().added == 30
    assert svc.count() == 1 + by_hand
    consistent(svc)


def test_a_sync_cancelled_before_it_reads_a_file_changes_nothing(svc):
    """The comparison of files with rows (most of a sync at 1,000,000 files when few changed) hears the cancel."""
    write_by_hand(svc.vault.root / "notes", indexing.COMPARE_CHUNK + 10)
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        svc.sync(cancel=token)
    assert svc.count() == 0
    assert svc.sync().added == indexing.COMPARE_CHUNK + 10


def test_a_cancelled_polls_sync_is_done_again_by_the_next_poll(svc):
    svc.poll_changes()  # the first poll's scan: nothing to read
    write_by_hand(svc.vault.root / "notes", indexing.WRITE_BATCH + 30)
    token, seen = CancelToken(), []
    with pytest.raises(Cancelled):
        svc.poll_changes(progress=cancel_at_first_progress(token, seen), cancel=token)
    assert seen == [indexing.WRITE_BATCH] and svc.count() == indexing.WRITE_BATCH
    assert svc.poll_changes().files_changed == 30  # the folder still counts as changed: looked at again
    consistent(svc)


def test_the_opening_sync_counts_as_the_first_polls_scan(vault_dir, config):
    """The app starts file events before its opening sync: the first poll then runs no second full sync (at
    1,000,000 files it took ~20 s more), and an edit made while the opening sync ran is still picked up."""
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        item = svc.save("Before the app opened", title="Edited in place")
    svc = MemoryService.open(vault_dir, embedder="none", config=config, sync=False)
    try:
        svc.start_watching()
        write_by_hand(svc.vault.root / "notes", 3)  # the opening sync reads these (and reports progress)
        path = svc.vault.root / svc.store.file_info(item.id).file_path

        def edit_in_place(done: int, total: int, _message: str = "") -> None:
            # The opening sync compared this file before: only its event can tell the poll.
            path.write_text(path.read_text().replace("Before the app opened", "Edited while the app opened"))

        svc.sync(progress=edit_in_place)
        opening = svc.last_sync
        assert svc._changes.watching
        deadline = time.monotonic() + 30
        while svc.get_batch([item.id], record_access=False)[0].content.strip() != "Edited while the app opened":
            assert time.monotonic() < deadline, "the edit made during the opening was missed"
            svc.poll_changes()
        assert svc.last_sync is not opening  # the event's folder synced
        settled = svc.last_sync
        svc.poll_changes()
        assert svc.last_sync is settled
    finally:
        svc.close()


@pytest.mark.parametrize("opening_sync", [True, False], ids=["opening-sync", "none"])
def test_the_first_poll_scans_only_without_an_opening_sync(vault_dir, config, opening_sync):
    """What changed before the watcher started is looked for once: by the opening sync, else by the first poll."""
    svc = MemoryService.open(vault_dir, embedder="none", config=config, sync=False)
    try:
        svc.start_watching()
        if opening_sync:
            svc.sync()
        before = svc.last_sync
        assert svc.poll_changes().files_changed == 0
        assert (svc.last_sync is before) == opening_sync
        after = svc.last_sync
        svc.poll_changes()
        assert svc.last_sync is after
    finally:
        svc.close()


@pytest.mark.parametrize("watch", [True, False], ids=["server", "cli"])
def test_a_server_opening_with_watch_runs_one_full_sync(vault_dir, config, watch):
    """A server (``watch=True``) starts file events before the opening sync, which counts as the first scan."""
    MemoryService.open(vault_dir, embedder="none", config=config).close()
    (vault_dir / "notes").mkdir()
    (vault_dir / "notes" / "by-hand.md").write_text("---\ntitle: By hand\n---\nwritten while no one watched\n")
    worker = ServiceWorker(lambda: MemoryService.open(vault_dir, embedder="none", config=config, watch=watch))
    try:
        opening = worker.run(lambda svc: svc.last_sync)
        assert opening.added == 1
        worker.run(MemoryService.poll_changes)
        assert (worker.run(lambda svc: svc.last_sync) is opening) == watch  # without events: the poll scans
    finally:
        worker.close()


def test_closing_a_server_worker_cancels_its_polls_sync(vault_dir, config):
    worker = ServiceWorker(lambda: MemoryService.open(vault_dir, embedder="none", config=config))
    write_by_hand(vault_dir / "notes", indexing.WRITE_BATCH + 30)
    held, outcome = threading.Event(), []

    def hold(done: int, total: int, _message: str = "") -> None:  # the sync waits here until close cancels it
        held.set()
        deadline = time.monotonic() + 30
        while not worker.poll_cancel.cancelled and time.monotonic() < deadline:
            time.sleep(0.01)

    def poll() -> None:  # as poll_forever polls: the worker's own token
        try:
            worker.run(MemoryService.poll_changes, progress=hold, cancel=worker.poll_cancel)
            outcome.append("finished")
        except Cancelled:
            outcome.append("cancelled")

    thread = threading.Thread(target=poll)
    thread.start()
    assert held.wait(30)
    worker.close()
    thread.join(30)
    assert outcome == ["cancelled"]
    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False) as svc:
        assert svc.count() == indexing.WRITE_BATCH
        assert svc.sync().added == 30


def test_a_poll_cancelled_while_it_compares_a_changed_folder_looks_again(svc):
    """The look at a changed folder (a second for 333,000 files) hears the cancel; the folder stays changed."""
    svc.save("Saved through the engine", title="Engine", category="notes")
    svc.poll_changes()
    (svc.vault.root / "notes" / "by-hand.md").write_text("---\ntitle: By hand\n---\nwritten by another program\n")
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        svc.poll_changes(cancel=token)
    assert svc.count() == 1
    assert svc.poll_changes().files_changed == 1
