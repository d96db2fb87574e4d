"""Running the CLI in-process: ``cli("add", "text")`` -> Run(code, out, err), on a temp vault."""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass

import pytest

from memory_curator.cli.main import main


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def json(self):
        return json.loads(self.out)


@pytest.fixture
def cli(vault_dir, capsys, monkeypatch):
    """Call ``memory-curator --vault VAULT --embedder none ARGS...``; ``stdin=`` feeds standard input,
    ``embedder=`` picks another provider. Usage errors (argparse) come back as their exit code too."""

    def run(*args: str, stdin: str | None = None, embedder: str = "none") -> Run:
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        capsys.readouterr()
        try:
            code = main(["--vault", str(vault_dir), "--embedder", embedder, *args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


@pytest.fixture
def added(cli):
    """Add a memory through the CLI; returns its JSON."""

    def add(content: str, *args: str):
        r = cli("add", content, *args, "--json")
        assert r.code == 0, r.err
        return r.json

    return add
