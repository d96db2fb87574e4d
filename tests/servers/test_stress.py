"""Stress: the HTTP server, the MCP server and the CLI in their own processes plus the app's engine, all writing
to one vault at once (loopback only). Afterwards the files, the index and what every writer was told agree
exactly: no write lost, no "database is locked", no stray file. Figures: bench/shared_vault_stress.py."""

from __future__ import annotations

import subprocess

import pytest

from servers.shared_vault import run_stress


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_servers_cli_and_app_share_one_vault(tmp_path, config):
    report = run_stress(tmp_path / "vault", config, http_ops=500, mcp_ops=500, app_ops=500, cli_ops=12)
    assert report.errors == []
    assert report.problems == []  # no file was ever caught half-moved or duplicated
    assert report.ops >= 2000
    expected = report.expected
    assert len(expected) > 500
    assert report.files == expected  # every acknowledged write is on disk, with its last content
    assert report.index == expected  # and the index agrees with the files
    deleted = set().union(*(t.deleted for t in report.tallies))
    assert deleted and deleted <= report.trashed and not deleted & set(report.files)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_git_history_with_concurrent_writers(tmp_path, config):
    """Every process commits its own changes (under the vault's lock): nothing is left uncommitted, nothing
    derived is tracked, and the vault still agrees with the index."""
    vault = tmp_path / "vault"
    vault.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=vault, check=True)
    report = run_stress(vault, config, http_ops=150, mcp_ops=150, app_ops=150, cli_ops=4)
    assert report.errors == [] and report.problems == []
    assert report.files == report.expected == report.index

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=vault, capture_output=True, text=True, check=True).stdout

    assert git("status", "--porcelain") == ""
    assert len(git("log", "--format=%s").splitlines()) >= 2
    assert all(line.startswith("Memory Curator: ") for line in git("log", "--format=%s").splitlines())
    assert not [t for t in git("ls-files").split() if "index.db" in t or t.endswith(".lock")]
