"""The disk fault matrix: a read-only vault and a full disk, under every kind of write. Each write either
succeeds or fails with a StorageError that says what is wrong; nothing is half-written (every file as it was,
no temp file left, the index agreeing with the files); and once the fault is gone, saving and the embedding
backfill complete.

The faults are the kernel's own answers. A full disk: the vault lives on its own 24 MB tmpfs, filled until
the kernel answers ENOSPC; where mounting is not allowed (a container without CAP_SYS_ADMIN) it is
RLIMIT_FSIZE at the files' current sizes, and the kernel answers EFBIG (``Disk.method`` says which ran).
Read-only: the vault's folders and files without write permission, the kernel answers EACCES.
"""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memory_curator.core.errors import StorageError
from memory_curator.core.service import MemoryService

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="tmpfs, mount and rlimits as on Linux")


class Disk:
    """A folder whose disk can be made read-only or full, and given back."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True)
        self.can_mount = os.geteuid() == 0 and _run("mount", "-t", "tmpfs", "-o", "size=24m,mode=0755", "tmpfs",
                                                       str(root))
        self.method = {
            "full": "a 24 MB tmpfs filled to ENOSPC" if self.can_mount else "RLIMIT_FSIZE (EFBIG)",
            "read_only": "read-only bind mounts (EROFS)" if self.can_mount else
                         ("chattr +i (EPERM)" if os.geteuid() == 0 else "chmod a-w (EACCES)"),
        }

    @contextlib.contextmanager
    def read_only(self, *folders: Path) -> Iterator[None]:
        """``folders`` read-only (the vault, or some of its folders). A read-only bind mount of each on
        itself: a remount of the tmpfs itself is refused while the index is open for writing, as it is in a
        running app; the open index keeps working, as it would."""
        if self.can_mount:
            for folder in folders:
                _run("mount", "--bind", str(folder), str(folder), check=True)
                _run("mount", "-o", "remount,bind,ro", str(folder), check=True)
            try:
                yield
            finally:
                for folder in reversed(folders):
                    _run("umount", str(folder), check=True)
            return
        paths = [p for f in folders for p in (f, *f.rglob("*")) if not p.name.startswith("index.db")]
        if os.geteuid() == 0:  # root passes permission checks; the immutable flag stops it
            _run("chattr", "+i", *map(str, paths), check=True)
            try:
                yield
            finally:
                _run("chattr", "-i", *map(str, paths), check=True)
            return
        modes = {p: p.stat().st_mode for p in paths}
        for p, mode in modes.items():
            p.chmod(mode & ~0o222)
        try:
            yield
        finally:
            for p, mode in modes.items():
                p.chmod(mode)

    @contextlib.contextmanager
    def full(self) -> Iterator[None]:
        if self.can_mount:
            filler = self.root / "filler"
            with open(filler, "wb") as fh:
                with contextlib.suppress(OSError):
                    while True:
                        fh.write(b"\0" * 65536)
                        fh.flush()
            try:
                yield
            finally:
                filler.unlink()
            return
        biggest = max(p.stat().st_size for p in self.root.rglob("*") if p.is_file())
        old_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
        old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed
        resource.setrlimit(resource.RLIMIT_FSIZE, (biggest, old_limit[1]))
        try:
            yield
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, old_limit)
            signal.signal(signal.SIGXFSZ, old_handler)

    def release(self) -> None:
        if self.can_mount:
            _run("umount", "-l", str(self.root))


def _run(*cmd: str, check: bool = False) -> bool:
    done = subprocess.run(cmd, capture_output=True, text=True)
    if check and done.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: {done.stderr.strip()}")
    return done.returncode == 0


@pytest.fixture
def disk():
    parent = Path(tempfile.mkdtemp(prefix="mc-disk-"))
    d = Disk(parent / "disk")
    yield d
    d.release()
    shutil.rmtree(parent, ignore_errors=True)


def _snapshot(vault: Path) -> dict[str, bytes]:
    """Every file of the vault but the index and its state folder, by path."""
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*")
            if p.is_file() and not p.name.startswith("index.db") and ".memory-curator" not in p.parts}


def _agree(svc: MemoryService) -> None:
    files = {}
    for st in svc.vault.scan():
        item = svc.vault.read(st.rel)
        files[item.id] = item.content
    assert files == {m.id: m.content for m in svc.list_memories(limit=10_000)}
    assert svc.problems() == []


WRITES: dict[str, Callable[[MemoryService, list], object]] = {
    "save": lambda svc, ms: svc.save("a new memory about the harbour " * 40),
    "save_batch": lambda svc, ms: svc.save_batch([{"content": f"batch item {i} " * 200} for i in range(3)]),
    "update": lambda svc, ms: svc.update(ms[0].id, content="rewritten " * 300),
    "move": lambda svc, ms: svc.update(ms[1].id, category="decisions"),
    "pin": lambda svc, ms: svc.pin(ms[2].id),
    "update_batch": lambda svc, ms: svc.update_batch([{"id": ms[3].id, "content": "batched " * 300},
                                                      {"id": ms[4].id, "salience": 0.2}]),
    "consolidate": lambda svc, ms: svc.consolidate([ms[0].id, ms[1].id]),
    "delete": lambda svc, ms: svc.delete(ms[5].id),
    "import": lambda svc, ms: svc.import_paths([ms[-1]]),
}
# A full disk leaves SQLite's own writes to the engine's mapping of SQLite errors (issue #12 item 5): a
# delete only renames its file, so the index is the first to fail there.
FULL_DISK_WRITES = [name for name in WRITES if name != "delete"]


REASONS = {"full": ("disk is full", "File too large"), "read_only": ("read-only",),
           "read_only_folders": ("read-only",)}


@pytest.mark.parametrize("fault", ["read_only", "read_only_folders", "full"])
def test_every_write_fails_whole_and_clearly_then_works_again(disk, config, local_embedder, fault):
    vault = disk.root / "vault"
    outside = disk.root.parent / "note-to-import.md"
    outside.write_text("# An imported note\n\n" + "words to import " * 300)
    svc = MemoryService.open(vault, embedder=local_embedder, config=config)
    try:
        ms = [svc.save(f"memory {i} about the garden and the sea", category="context") for i in range(6)]
        svc.save("a summary's folder exists too", category="summaries")
        # The background unit's connection opens its WAL at its first read: done before the fault, or that file,
        # opened through the read-only bind mount, keeps the mount busy (umount failed on a loaded CI machine).
        assert svc.embedding.wait(60)
        args = [*ms, outside]
        before, count = _snapshot(vault), svc.count()
        names = FULL_DISK_WRITES if fault == "full" else list(WRITES)
        making = {"full": disk.full, "read_only": lambda: disk.read_only(vault),
                  "read_only_folders": lambda: disk.read_only(vault / "context", vault / "summaries")}[fault]
        failures = {}
        with making():
            for name in names:
                try:
                    result = WRITES[name](svc, args)
                except StorageError as exc:
                    failures[name] = str(exc)
                else:  # an import reports each file instead of raising
                    failed = result.failed if name == "import" else []  # type: ignore[attr-defined]
                    failures[name] = failed[0].error if failed else None
        method = disk.method["full" if fault == "full" else "read_only"]
        print(f"\n{fault} via {method}:\n" + "\n".join(f"  {n}: {m}" for n, m in failures.items()))
        for name, message in failures.items():
            assert message is not None, f"{name} claimed to succeed on a {fault} disk"
            assert any(reason in message for reason in REASONS[fault]), (name, message)
        assert _snapshot(vault) == before  # nothing half-written, no temp file
        assert svc.count() == count
        _agree(svc)
        # The fault gone: every write works, and memories saved meanwhile are embedded by the backfill.
        for name in names:
            WRITES[name](svc, args)
        _agree(svc)
        svc.reindex_missing()
        assert svc.health().unembedded_count == 0
    finally:
        svc.close()


def test_a_file_where_a_category_folder_goes_fails_whole(tmp_path, config):
    """Seed 000: a plain file named like the category's folder; the save said FileExistsError (HTTP 500)."""
    with MemoryService.open(tmp_path / "vault", embedder="none", config=config) as svc:
        (svc.vault.root / "ideas").write_text("someone's file")
        for write in (lambda: svc.save("an idea", category="ideas"),
                      lambda: svc.save_batch([{"content": "a"}, {"content": "b", "category": "ideas"}]),
                      lambda: svc.update(svc.save("movable").id, category="ideas")):
            with pytest.raises(StorageError, match="a file is where a folder should be") as raised:
                write()
            assert raised.value.__cause__ is None or raised.value.__cause__.errno in (errno.EEXIST, errno.ENOTDIR)
        assert [m.content for m in svc.list_memories()] == ["movable"]
        _agree(svc)
