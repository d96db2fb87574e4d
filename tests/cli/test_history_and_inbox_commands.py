"""`history`, `diff`, `restore-version`, `inbox` and `serve --show-token` from the command line."""

from __future__ import annotations

import subprocess


def test_history_diff_and_restore(cli, vault_dir):
    vault_dir.mkdir(parents=True)
    assert cli("history", "--init").code == 0
    mid = cli("add", "First words", "-t", "Plan", "--json").json["id"]
    assert cli("update", mid, "--content", "Second words").code == 0
    versions = cli("history", mid, "--json").json
    assert len(versions) == 2 and versions[0]["number"] == 1
    diff = cli("diff", mid, "2", "1").out
    assert "-First words" in diff and "+Second words" in diff
    assert cli("diff", mid, "1").out.strip() == "no differences"
    restored = cli("restore-version", mid, "2", "--json").json
    assert restored["content"] == "First words"
    assert len(cli("history", mid, "--json").json) == 3  # the restore is a version too
    log = subprocess.run(["git", "log", "--format=%s"], cwd=vault_dir, capture_output=True, text=True).stdout
    assert 'edit "Plan"' in log and 'add "Plan"' in log


def test_history_needs_a_repository(cli):
    mid = cli("add", "x", "--json").json["id"]
    r = cli("history", mid)
    assert r.code == 2 and "git" in r.err


def test_inbox_list_approve_reject(cli):
    a = cli("add", "From an assistant", "--source", "ai", "--json").json["id"]
    b = cli("add", "Another one", "--source", "ai", "--json").json["id"]
    cli("add", "Mine")
    listed = cli("inbox", "--json").json
    assert {m["id"] for m in listed} == {a, b}
    assert cli("inbox", "approve", a).code == 0
    assert cli("inbox", "reject", b).code == 0
    assert cli("inbox", "--json").json == []
    assert "the review inbox is empty" in cli("inbox").out
    assert cli("get", b).code == 1


def test_inbox_can_be_turned_off(cli):
    assert cli("inbox", "off").code == 0
    cli("add", "Trusted assistant", "--source", "ai")
    assert cli("inbox", "--json").json == []
    assert cli("inbox", "on").code == 0
    cli("add", "Reviewed again", "--source", "ai")
    assert len(cli("inbox", "--json").json) == 1


def test_show_token(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMORY_CURATOR_TOKEN_FILE", str(tmp_path / "token"))
    first = cli("serve", "--show-token").out.strip()
    assert len(first) >= 32 and cli("serve", "--show-token").out.strip() == first
