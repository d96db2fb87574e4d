"""File events for a vault (watchdog: inotify, FSEvents, ReadDirectoryChangesW), so an edit made in place by
another program is noticed without stat'ing every file every few seconds.

Events do not cross the network: a change made on another machine to a shared folder (NFS, SMB, sshfs and
other FUSE mounts, a VM's shared folder) or inside a virtual sync drive reaches no local watcher. Those vaults,
and systems where no native watcher starts, keep the periodic stat scan (``core/changes.py``).
"""

from __future__ import annotations

import ctypes
import logging
import os
import re
import subprocess
import sys
import threading
import warnings
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.polling import PollingObserver

log = logging.getLogger(__name__)
# watchdog 7 warns when a folder comes back at a path it watched before (a folder moved to the trash and back, a
# category emptied and made again): it replaces that watch's callback, which is what is wanted. Since the app
# watches from the opening on (before its first sync), such moves in a session printed it.
warnings.filterwarnings("ignore", message="Callback with id .* already exists for watch", category=RuntimeWarning)

# What a write, a creation, a removal or a rename report; reads (opened, closed without writing) do not count.
_WRITES = frozenset({"created", "deleted", "modified", "moved", "closed"})
# Filesystem types whose changes made elsewhere raise no local event (Linux /proc/mounts, macOS `mount`).
_REMOTE_PREFIXES = ("nfs", "cifs", "smb", "9p", "afs", "afpfs", "ceph", "glusterfs", "lustre", "fuse", "osxfuse",
                    "macfuse", "davfs", "webdav", "vboxsf", "virtiofs", "ncp", "sshfs")
_BSD_MOUNT = re.compile(r"^(?P<dev>\S+) on (?P<point>.+) \((?P<type>[^,)]+)")


def filesystem_type(path: Path, mounts: str) -> str | None:
    """The type of the filesystem holding ``path``, from a mount table in ``/proc/mounts`` form (device,
    mount point with spaces as ``\\040``, type, ...): the entry with the longest mount point holding the path."""
    best, best_len = None, -1
    target = str(path)
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) > best_len:
            best, best_len = fields[2], len(point)
    return best


def is_remote_type(fs_type: str | None) -> bool:
    return fs_type is not None and fs_type.lower().startswith(_REMOTE_PREFIXES)


def events_reach(path: Path) -> bool:
    """Do local file events tell about changes to ``path``? False on network and FUSE filesystems."""
    real = Path(os.path.realpath(path))
    if sys.platform == "win32":  # pragma: no cover - Windows
        if str(real).startswith("\\\\"):
            return False  # a UNC path: \\server\share
        drive_remote = 4
        return ctypes.windll.kernel32.GetDriveTypeW(real.anchor) != drive_remote  # type: ignore[attr-defined]
    return not is_remote_type(filesystem_type(real, _mount_table()))


def _mount_table() -> str:
    """Mounted filesystems as ``device point type`` lines (Linux's own table; macOS's ``mount`` rewritten)."""
    try:
        return Path("/proc/self/mounts").read_text(encoding="utf-8", errors="replace")
    except OSError:
        pass
    try:  # macOS, BSD: "//user@host/share on /Volumes/share (smbfs, nodev, nosuid)"
        out = subprocess.run(["mount"], capture_output=True, text=True, timeout=5, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = []
    for line in out.splitlines():
        m = _BSD_MOUNT.match(line)
        if m:
            point = m["point"].replace(" ", "\\040")
            lines.append(f"{m['dev']} {point} {m['type']}")
    return "\n".join(lines)


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: FileWatcher):
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        # A folder "modified" is a file created or removed in it, which that file's own event reports.
        if event.event_type in _WRITES and not (event.is_directory and event.event_type == "modified"):
            self._watcher._note(event.src_path, event.is_directory)
            if event.dest_path:
                self._watcher._note(event.dest_path, event.is_directory)


class FileWatcher:
    """Collects the vault folders (categories) in which files were written, created, removed or renamed."""

    def __init__(self, root: Path):
        self.root = Path(os.path.realpath(root))
        self._lock = threading.Lock()
        self._folders: set[str] = set()
        self._observer = Observer()
        self._observer.schedule(_Handler(self), str(self.root), recursive=True)
        self._observer.daemon = True
        self._observer.start()  # watches are in place when this returns: a change after it is reported

    @classmethod
    def start(cls, root: Path) -> FileWatcher | None:
        """A running watcher, or None where events would not tell (network filesystems, no native watcher)
        or cannot start (inotify's limits): the caller keeps scanning."""
        if Observer is PollingObserver or not events_reach(root):
            return None
        try:
            return cls(root)
        except (OSError, RuntimeError) as exc:
            log.info("Watching %s for file changes is not possible (%s); scanning it periodically instead.", root, exc)
            return None

    def _note(self, path: bytes | str, is_directory: bool) -> None:
        p = os.fsdecode(path)
        try:
            rel = Path(p).relative_to(self.root).parts
        except ValueError:
            return
        if not rel or any(part.startswith(".") for part in rel):
            return  # the root itself, .memory-curator/, .trash/, .git/, temp files of atomic writes
        if len(rel) == 1 and not is_directory:
            return  # files at the top level are not memories
        if not is_directory and not rel[-1].endswith(".md"):
            return
        with self._lock:
            self._folders.add(rel[0])

    def take(self) -> set[str]:
        """The folders touched since the last call."""
        with self._lock:
            out, self._folders = self._folders, set()
        return out

    def give_back(self, folders: set[str]) -> None:
        """Folders a poll could not look at now (another process was writing): the next poll takes them."""
        with self._lock:
            self._folders |= folders

    @property
    def alive(self) -> bool:
        return self._observer.is_alive()

    def stop(self) -> None:
        self._observer.stop()
        if self._observer.is_alive():
            self._observer.join(timeout=5)
