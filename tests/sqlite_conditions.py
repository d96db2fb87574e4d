"""Real conditions SQLite meets on a user's machine: another process holding a vault index's write lock (as a
backup tool or a database browser would), a vault on a read-only disk."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

HOLDER = """
import sys
import sqlean
conn = sqlean.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("held", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
"""


@contextmanager
def index_locked(index_path: Path) -> Iterator[Callable[[], None]]:
    """Held on entry; yields ``release()`` (also done on exit)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(index_path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)

    def release() -> None:
        if proc.poll() is None:
            proc.stdin.write("go\n")
            proc.stdin.flush()
            proc.wait(timeout=60)

    try:
        assert proc.stdout.readline().strip() == "held"
        yield release
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` read-only for this process: its modes as a user; a read-only bind mount as root, whom modes
    do not stop (the mount is what a read-only share or a locked-down disk is)."""
    if os.geteuid() != 0:
        paths = [folder, *folder.rglob("*")]
        for p in paths:
            p.chmod(0o555 if p.is_dir() else 0o444)
        try:
            yield
        finally:
            for p in paths:
                p.chmod(0o755 if p.is_dir() else 0o644)
        return
    bind = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True, text=True)
    if bind.returncode != 0:
        pytest.skip(f"running as root without the right to mount, nothing is read-only to us: {bind.stderr}")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], check=True, capture_output=True)
        yield
    finally:  # lazily: a file left open (a bug under test) must not keep the mount after the test
        subprocess.run(["umount", "--lazy", str(folder)], check=True)
