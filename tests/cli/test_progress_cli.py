"""Long commands say how far they are on stderr, the same way wherever it goes: on a terminal one line kept up to
date, in a script's or a cron job's log a line once the work has lasted a second and then every ten seconds.
Stdout stays the command's output (``--json`` included), which other programs read."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from memory_curator.cli.output import ProgressPrinter
from memory_curator.core.service import MemoryService
from terminal import Clock, run_with_stderr_on_a_terminal

pytestmark = pytest.mark.model  # the loopback Ollama server answers with the bundled model's vectors

NOTES = ["The boiler is serviced every October", "Anna prefers tea to coffee", "The spare key is under the mat"]


def _vault(vault_dir, config) -> None:
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        for text in NOTES:
            svc.save(text)


def _rebuild_args(vault_dir) -> list[str]:
    return [sys.executable, "-m", "memory_curator.cli.main", "--vault", str(vault_dir), "--embedder", "ollama",
            "rebuild", "--json"]


def _env(server) -> dict[str, str]:
    return {**os.environ, "OLLAMA_HOST": server.url}


def test_a_rebuild_from_cron_logs_how_far_it_is_and_stdout_stays_the_json(vault_dir, config, ollama_server):
    _vault(vault_dir, config)
    ollama_server.delay_s = 1.2  # each answer: the embedding ends after the rebuild has lasted a second
    done = subprocess.run(_rebuild_args(vault_dir), capture_output=True, env=_env(ollama_server), timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"memories": 3, "problems": []}
    log = done.stderr.decode().splitlines()
    assert "memory-curator: rebuilding: embedding: 3 of 3" in [line.split(" (")[0] for line in log], log
    assert all(line.startswith("memory-curator: ") for line in log)  # a log's lines, no terminal's \r


def test_on_a_terminal_the_rebuild_keeps_one_line_up_to_date(vault_dir, config, ollama_server):
    _vault(vault_dir, config)
    done, text = run_with_stderr_on_a_terminal(_rebuild_args(vault_dir), _env(ollama_server))
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"memories": 3, "problems": []}
    assert "\rrebuilding: reading files: 3 of 3\x1b[K" in text  # at once: no second to wait on a terminal
    assert "\rrebuilding: embedding: 3 of 3" in text
    assert text.endswith("\r\x1b[K")  # the line goes at the end; the result is on stdout


def _pipe() -> tuple[io.TextIOWrapper, io.TextIOWrapper]:
    """A real pipe, as a script or cron gives a command's stderr: (the command's end, the log's)."""
    read_end, write_end = os.pipe()
    stream = os.fdopen(write_end, "w")
    assert not stream.isatty()
    return stream, os.fdopen(read_end)


def test_in_a_log_an_import_names_its_files_every_ten_seconds_not_one_line_each():
    clock, (stream, log) = Clock(), _pipe()
    printer = ProgressPrinter("importing", stream, items=True, clock=clock)
    for n in range(1, 41):  # a file every half second
        clock.now = n * 0.5
        printer(n, 40, f"note{n}.md")
    printer.finish()
    stream.close()
    assert log.read().splitlines() == [
        "memory-curator: importing: note2.md: 2 of 40 (1 s)",  # once the work has lasted a second
        "memory-curator: importing: note22.md: 22 of 40 (11 s)",
        "memory-curator: importing: note40.md: 40 of 40 (20 s)",  # the end, not left at 22 of 40
    ]


def test_in_a_log_each_new_step_is_said_at_once_and_a_word_the_label_says_is_not_repeated():
    clock, (stream, log) = Clock(), _pipe()
    printer = ProgressPrinter("rebuilding", stream, clock=clock)
    printer(0, 300, "reading files")
    clock.now = 0.5
    printer(100, 300, "reading files")  # a quick command says nothing
    clock.now = 1.5
    printer(200, 300, "reading files")
    clock.now = 3.0
    printer(250, 300, "reading files")  # the same step within ten seconds
    clock.now = 3.5
    printer(0, 300, "embedding")  # a new step
    clock.now = 14.0
    printer(290, 300, "embedding")
    printer.finish()
    stream.close()
    assert log.read().splitlines() == ["memory-curator: rebuilding: reading files: 200 of 300 (2 s)",
                                       "memory-curator: rebuilding: embedding: 0 of 300",
                                       "memory-curator: rebuilding: embedding: 290 of 300 (10 s)"]
    clock, (stream, log) = Clock(), _pipe()
    printer = ProgressPrinter("updating", stream, clock=clock, after_s=0.0)
    printer(1, 2, "updating")
    printer.finish()
    stream.close()
    assert log.read() == "memory-curator: updating: 1 of 2\n"
