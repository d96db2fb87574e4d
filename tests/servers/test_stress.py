"""Stress: the HTTP server, the MCP server and the CLI in their own processes plus the app's engine, all writing
to one vault at once (loopback only). Afterwards the files, the index and what every writer was told agree
exactly: no write lost, no "database is locked", no stray file. Figures: bench/shared_vault_stress.py."""

from __future__ import annotations

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
