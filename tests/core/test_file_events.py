"""File events (watchdog) name the folders other programs wrote in, so an edit in place is noticed without the
periodic stat scan; network and FUSE mounts keep the scan."""

from __future__ import annotations

import time
from pathlib import Path

from memory_curator.core.changes import ChangeMonitor
from memory_curator.core.watching import FileWatcher, filesystem_type, is_remote_type

DEADLINE_S = 60  # events arrive within milliseconds; a loaded machine may take longer


def poll_until(poll, done):
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        result = poll()
        if done(result):
            return result
        time.sleep(0.02)
    raise AssertionError("no change noticed before the deadline")


def test_an_edit_in_place_is_noticed_by_its_event(svc):
    item = svc.save("Original words", title="Edited")
    syncs: list[int] = []

    def sync(_tracker):
        syncs.append(1)
        return svc.sync().changed

    # The periodic scan is never due here: only the file's event can lead to the change.
    monitor = ChangeMonitor(svc.store, svc.vault, sync, full_scan_s=1e9)
    try:
        assert monitor.poll().files_changed == 0 and monitor.watching
        path = Path(item.file_path)
        path.write_text(path.read_text().replace("Original words", "Changed in place"))
        report = poll_until(monitor.poll, lambda r: r.files_changed)
        assert report.files_changed == 1
        assert svc.search("changed", mode="keyword")[0].memory.id == item.id
    finally:
        monitor.close()
    assert not monitor.watching


def test_the_service_watches_from_its_first_poll_and_stops_on_close(vault_dir, config):
    from memory_curator.core.service import MemoryService

    svc = MemoryService.open(vault_dir, embedder="none", config=config)
    watcher = None
    try:
        item = svc.save("Before", title="Note")
        assert not svc._changes.watching  # opening alone (a CLI command) starts no watcher
        svc.poll_changes()
        watcher = svc._changes._watcher
        assert watcher is not None and watcher.alive
        path = Path(item.file_path)
        path.write_text(path.read_text().replace("Before", "After the edit"))
        poll_until(svc.poll_changes, lambda r: r.files_changed)
        assert svc.get(item.id).content.strip() == "After the edit"
    finally:
        svc.close()
    assert not watcher.alive


def test_only_memory_files_in_visible_folders_count(tmp_path):
    root = tmp_path / "vault"
    for folder in ("context", "decisions", ".trash", ".memory-curator"):
        (root / folder).mkdir(parents=True)
    watcher = FileWatcher(root)
    try:
        (root / ".memory-curator" / "vault.json").write_text("{}")
        (root / ".trash" / "gone.md").write_text("x")
        (root / "context" / ".tmp-123.md~").write_text("x")
        (root / "context" / "notes.txt").write_text("x")
        (root / "top.md").write_text("x")
        (root / "decisions" / "moved.md").write_text("x")
        seen: set[str] = set()
        poll_until(lambda: seen.update(watcher.take()), lambda _: "decisions" in seen)
        assert seen == {"decisions"}
        (root / "decisions" / "moved.md").rename(root / "context" / "moved.md")
        seen.clear()
        poll_until(lambda: seen.update(watcher.take()), lambda _: "context" in seen)
        assert seen <= {"context", "decisions"}
    finally:
        watcher.stop()


MOUNTS = """\
/dev/sda1 / ext4 rw,relatime 0 0
server:/export /home/me/shared nfs4 rw 0 0
//nas/notes /mnt/my\\040notes cifs rw 0 0
me@host:/srv /home/me/remote fuse.sshfs rw 0 0
/dev/sdb1 /home/me/shared/local-disk ext4 rw 0 0
"""


def test_the_filesystem_of_a_path_is_its_longest_mount():
    assert filesystem_type(Path("/home/me/vault"), MOUNTS) == "ext4"
    assert filesystem_type(Path("/home/me/shared/vault"), MOUNTS) == "nfs4"
    assert filesystem_type(Path("/home/me/shared/local-disk/vault"), MOUNTS) == "ext4"
    assert filesystem_type(Path("/home/me/sharedx"), MOUNTS) == "ext4"  # a prefix of the name is not a parent
    assert filesystem_type(Path("/mnt/my notes/vault"), MOUNTS) == "cifs"
    assert filesystem_type(Path("/home/me/remote"), MOUNTS) == "fuse.sshfs"


def test_network_and_fuse_filesystems_keep_the_scan():
    assert all(is_remote_type(t) for t in ("nfs4", "cifs", "smb3", "fuse.sshfs", "9p", "smbfs", "virtiofs"))
    assert not any(is_remote_type(t) for t in ("ext4", "btrfs", "xfs", "apfs", "ntfs", "tmpfs", "overlay", None))


def test_a_file_that_could_not_be_read_and_is_fixed_in_place_is_read_again(svc):
    svc.save("a readable memory", category="context")
    broken = svc.vault.root / "context" / "broken.md"
    broken.write_text("---\ntitle: [unclosed\n---\nx", encoding="utf-8")
    svc.sync()
    assert [p.path for p in svc.health().unreadable] == ["context/broken.md"]
    monitor = ChangeMonitor(svc.store, svc.vault, lambda _tracker: svc.sync().changed, full_scan_s=1e9)
    try:
        assert monitor.poll().files_changed == 0 and monitor.watching
        broken.write_text("---\ntitle: Fixed\n---\nnow readable", encoding="utf-8")  # an editor repairs it
        poll_until(monitor.poll, lambda r: r.files_changed)
        assert svc.health().unreadable == [] and svc.count() == 2
        broken.write_text("---\ntitle: [broken again\n---\nx", encoding="utf-8")
        poll_until(monitor.poll, lambda r: svc.health().unreadable)
        assert [p.path for p in svc.health().unreadable] == ["context/broken.md"]
    finally:
        monitor.close()
