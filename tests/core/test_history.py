"""Git history of a vault: batched commits with readable messages, versions, diffs, the index never committed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memory_curator.core.errors import ValidationError
from memory_curator.core.history import find_version
from memory_curator.core.service import MemoryService


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def git_svc(vault_dir, config):
    vault_dir.mkdir(parents=True)
    _git(vault_dir, "init", "-q")
    svc = MemoryService.open(vault_dir, embedder="none", config=config)
    yield svc
    svc.close()


def test_changes_are_committed_in_one_batch_with_a_readable_message(git_svc):
    a = git_svc.save("We chose SQLite", title="Vector store")
    git_svc.save("Second", title="Other")
    commit = git_svc.commit_history(force=True)
    assert commit is not None
    (subject,) = _git(git_svc.vault.root, "log", "--format=%s").splitlines()
    assert subject.startswith("Memory Curator: ")
    assert set(subject.removeprefix("Memory Curator: ").split("; ")) == {'add "Vector store"', 'add "Other"'}
    tracked = _git(git_svc.vault.root, "ls-files").split()
    assert not any(name.startswith("index.db") for name in tracked)
    git_svc.delete(a.id)
    git_svc.commit_history(force=True)
    assert _git(git_svc.vault.root, "log", "-1", "--format=%s").strip() == 'Memory Curator: delete "Vector store"'
    assert git_svc.commit_history(force=True) is None  # nothing pending


def test_versions_diff_and_restore(git_svc):
    item = git_svc.save("First text", title="Plan")
    git_svc.commit_history(force=True)
    git_svc.update(item.id, content="Second text", category="decisions")  # also moves the file
    git_svc.commit_history(force=True)
    rel = git_svc.store.file_info(item.id).file_path
    versions = git_svc.history.versions(rel)
    assert len(versions) == 2 and versions[0].path.startswith("decisions/") and versions[1].path.startswith("context/")
    diff = git_svc.history.diff(versions[1], versions[0])
    assert "-First text" in diff and "+Second text" in diff
    assert find_version(versions, "2") == versions[1]
    assert find_version(versions, versions[0].commit[:8]) == versions[0]
    with pytest.raises(ValidationError):
        find_version(versions, "9")


def test_close_commits_what_is_pending(vault_dir, config):
    vault_dir.mkdir(parents=True)
    _git(vault_dir, "init", "-q")
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        svc.save("Remember me", title="Last words")
    assert "Last words" in _git(vault_dir, "log", "--format=%s")


def test_history_is_off_without_git_repository(svc):
    svc.save("x")
    assert svc.commit_history(force=True) is None
    with pytest.raises(ValidationError, match="not a git repository"):
        svc.history.versions("context/x.md")


def test_index_lines_are_added_to_an_old_gitignore(vault_dir, config):
    vault_dir.mkdir(parents=True)
    (vault_dir / ".gitignore").write_text("*.tmp\n")
    _git(vault_dir, "init", "-q")
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        (svc.vault.state_dir / "index.db.corrupt-20260101-000000").write_bytes(b"old index kept aside")
        svc.save("Something")
    tracked = _git(vault_dir, "ls-files").split()
    assert ".gitignore" in tracked and any(t.startswith("context/") for t in tracked)
    assert not any("index.db" in t or t.endswith(".lock") for t in tracked)
