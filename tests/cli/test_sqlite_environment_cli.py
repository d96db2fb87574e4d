"""The CLI on a vault whose index it cannot write (issue 12 item 5): a message that says what to do and the
environment's exit code, never a traceback."""

from __future__ import annotations

from sqlite_conditions import read_only


def test_a_vault_on_a_read_only_disk_is_a_message_and_exit_code_3(cli, vault_dir):
    assert cli("add", "a memory written while the disk was writable").code == 0
    with read_only(vault_dir):
        run = cli("list")
    assert run.code == 3, run
    assert "cannot be written" in run.err and "writable" in run.err
    assert "Traceback" not in run.err + run.out
    assert cli("list").code == 0
