"""Two machines sharing one vault through git, as people do it: a bare remote, two clones, the app open on
each, ``git pull`` leaving what git leaves. Real git, real files, real services."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from memory_curator.core.config import MemoryConfig
from memory_curator.core.service import MemoryService

_IDENTITY = ["-c", "user.name=Tester", "-c", "user.email=tester@example.com", "-c", "init.defaultBranch=main",
             "-c", "pull.rebase=false", "-c", "merge.conflictStyle=merge"]


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(["git", *_IDENTITY, *args], cwd=root, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}{done.stdout}")
    return done


def next_second() -> None:
    """Wait for the clock's next second: ``updated_at`` has whole seconds, and two machines' edits are never
    made in the same one (the same second would give the same line, which git merges without a conflict)."""
    time.sleep(1.001 - time.time() % 1)


class Machines:
    """``a`` and ``b``: services on two clones of one vault, history on."""

    def __init__(self, tmp_path: Path, config: MemoryConfig):
        self.remote = tmp_path / "remote.git"
        git(tmp_path, "init", "-q", "--bare", "-b", "main", str(self.remote))
        self.root_a = tmp_path / "a" / "vault"
        self.root_a.mkdir(parents=True)
        git(self.root_a, "init", "-q", "-b", "main")
        self.config = config
        self.a = MemoryService.open(self.root_a, embedder="none", config=config)
        self.b: MemoryService | None = None

    def share(self) -> MemoryService:
        """A's vault pushed, then cloned as B's."""
        self.a.commit_history(force=True)
        git(self.root_a, "remote", "add", "origin", str(self.remote))
        git(self.root_a, "push", "-q", "-u", "origin", "main")
        self.root_b = self.root_a.parent.parent / "b" / "vault"
        git(self.root_a.parent.parent, "clone", "-q", str(self.remote), str(self.root_b))
        self.b = MemoryService.open(self.root_b, embedder="none", config=self.config)
        next_second()
        return self.b

    def push(self, svc: MemoryService) -> None:
        svc.commit_history(force=True)
        next_second()
        git(svc.vault.root, "push", "-q", "origin", "HEAD:main")

    def pull(self, svc: MemoryService) -> subprocess.CompletedProcess:
        """``git pull``; a conflict is not a failure here (git exits 1 and leaves the markers)."""
        svc.commit_history(force=True)
        return git(svc.vault.root, "pull", "-q", "origin", "main", check=False)

    def close(self) -> None:
        for svc in (self.a, self.b):
            if svc is not None:
                svc.close()
