"""A change reads what it changes under the vault's write lock: another process's change made while this one
waited for the lock is kept, not overwritten by a copy read before it (issue 12 item 4). Two real processes,
the real lock."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

OTHER = """
import sys
from memory_curator.core.service import MemoryService
svc = MemoryService.open(sys.argv[1], embedder="none")
with svc.write_lock.hold():
    print("held", flush=True)
    sys.stdin.readline()  # until the test's own change waits for the lock
    svc.update(sys.argv[2], keywords=["from-the-other-process"])
svc.close()
print("done", flush=True)
"""
LOCK_FILE = os.path.join("vault", "lock.py")


def _waiting_for_the_lock(thread_id: int) -> bool:
    frame = sys._current_frames().get(thread_id)
    while frame is not None:
        if frame.f_code.co_name == "_acquire" and frame.f_code.co_filename.endswith(LOCK_FILE):
            return True
        frame = frame.f_back
    return False


def _while_another_process_changes(svc, memory_id, change) -> None:
    """Run ``change(svc)`` (here: the service lives on this thread) while another process holds the write
    lock; once the change waits for the lock, the other process adds a keyword to ``memory_id`` and lets go."""
    other = subprocess.Popen([sys.executable, "-c", OTHER, str(svc.vault.root), memory_id],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    me = threading.get_ident()
    finished = threading.Event()
    released: list[bool] = []

    def release_when_waited_for():
        deadline = time.monotonic() + 120
        while not _waiting_for_the_lock(me):  # a condition polled, not a guess at how long reading takes
            if finished.is_set() or time.monotonic() > deadline:
                return  # the change never waited for the lock: the other process is killed below
            time.sleep(0.005)
        other.stdin.write("go\n")
        other.stdin.flush()
        released.append(True)

    try:
        assert other.stdout.readline().strip() == "held"
        watcher = threading.Thread(target=release_when_waited_for, daemon=True)
        watcher.start()
        try:
            change(svc)
        finally:
            finished.set()
            watcher.join(timeout=60)
        assert released == [True]
        assert other.stdout.readline().strip() == "done"
    finally:
        if other.poll() is None:
            other.kill()
        other.wait(timeout=60)


@pytest.mark.parametrize("mode", ["rollback", "skip"])
def test_update_batch_keeps_a_change_made_while_it_waited(svc, mode):
    first, second = svc.save_batch([{"content": "first note", "keywords": ["mine"]},
                                    {"content": "second note"}])
    _while_another_process_changes(svc, first.id, lambda s: s.update_batch(
        [{"id": first.id, "content": "first note, rewritten"}, {"id": second.id, "salience": 0.2}], mode=mode))
    item = svc.get(first.id, record_access=False)
    assert item.content == "first note, rewritten"
    assert item.keywords == ("from-the-other-process",)
    assert "from-the-other-process" in svc.vault.abs(svc.store.file_info(first.id).file_path).read_text()


def test_inbox_merge_keeps_a_change_made_to_the_target_while_it_waited(svc):
    target = svc.save("the target", keywords=["mine"])
    incoming = svc.save("the incoming text", source="ai")
    _while_another_process_changes(svc, target.id, lambda s: s.inbox.merge(incoming.id, target.id))
    merged = svc.get(target.id, record_access=False)
    assert "the incoming text" in merged.content
    assert "from-the-other-process" in merged.keywords


def test_a_merge_on_save_keeps_a_change_made_while_it_waited(svc):
    existing = svc.save("the vector store is sqlite-vec inside the index", keywords=["mine"])
    _while_another_process_changes(svc, existing.id, lambda s: s.save_checked(
        "the vector store is sqlite-vec inside the index", keywords=["new"], on_duplicate="merge"))
    merged = svc.get(existing.id, record_access=False)
    assert merged.keywords == ("from-the-other-process", "new")
