"""The command line says on stderr what opening an older index does: at once on a terminal, after a second
elsewhere (a script's log), never on stdout, which scripts read."""

from __future__ import annotations

import io
import os
import sys

from memory_curator.cli.output import OpeningPrinter
from old_index import old_vault
from terminal import Clock, run_with_stderr_on_a_terminal

ENV = {**os.environ, "OLLAMA_HOST": "http://127.0.0.1:9"}


def test_a_terminal_sees_the_upgrade_on_stderr_and_stdout_stays_the_output(vault_dir, config):
    old_vault(vault_dir, config)
    done, text = run_with_stderr_on_a_terminal([sys.executable, "-m", "memory_curator.cli.main", "--vault",
                                                 str(vault_dir), "--embedder", "none", "list", "--json"], ENV)
    assert done.returncode == 0
    assert "Upgrading the index (1 of 4, migration 16): indexing the sessions' filter columns" in text
    assert "Upgrading the index (3 of 4, migration 18): giving each memory's link names a table of their own" in text
    assert "The index is upgraded" in text
    assert b"Upgrading" not in done.stdout
    assert [m["title"] for m in __import__("json").loads(done.stdout)] == ["Launch"]


def test_elsewhere_it_speaks_only_once_the_opening_has_taken_a_second():
    clock, out = Clock(), io.StringIO()
    printer = OpeningPrinter(out, after_s=1.0, every_s=10.0, clock=clock)
    printer(0, 0, "Upgrading the index (1 of 2, migration 17): adding a column")
    clock.now = 0.5
    printer(0, 0, "Upgrading the index (2 of 2, migration 18): the names links use")
    assert out.getvalue() == ""  # a quick opening says nothing
    clock.now = 1.2  # SQLite's ticks repeat the message while the statement runs
    printer(5000, 1000000, "Upgrading the index (2 of 2, migration 18): the names links use")
    clock.now = 5.0
    printer(400000, 1000000, "Upgrading the index (2 of 2, migration 18): the names links use")
    clock.now = 11.5
    printer(900000, 1000000, "Upgrading the index (2 of 2, migration 18): the names links use")
    clock.now = 12.0
    printer(0, 0, "Upgrading the index (2 of 2, migration 18): the links copied")
    printer.finish()
    assert out.getvalue().splitlines() == [
        "memory-curator: Upgrading the index (2 of 2, migration 18): the names links use: 5,000 of 1,000,000",
        "memory-curator: Upgrading the index (2 of 2, migration 18): the names links use: 900,000 of 1,000,000 (11 s)",
        "memory-curator: Upgrading the index (2 of 2, migration 18): the links copied",
        "memory-curator: The index is upgraded (12 s).",
    ]


def test_a_quick_opening_prints_nothing_at_all():
    clock, out = Clock(), io.StringIO()
    printer = OpeningPrinter(out, clock=clock)
    printer(0, 0, "Upgrading the index (1 of 1, migration 18): the names links use")
    clock.now = 0.3
    printer.finish()
    assert out.getvalue() == ""
