"""The command registry: every CLI module registers its commands with ``@command`` on import.

Core commands live in ``commands.py``; other modules (import/export, lifecycle, servers) register theirs the
same way and are imported by ``main.py``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from memory_curator.core.config import MemoryConfig
from memory_curator.core.embed.resolve import CHOICES as EMBEDDER_CHOICES
from memory_curator.core.service import MemoryService

Command = Callable[[argparse.Namespace, Path, MemoryConfig], int | None]
COMMANDS: dict[str, Command] = {}
_SPECS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None] | None]] = {}


def command(name: str, help: str, configure: Callable[[argparse.ArgumentParser], None] | None = None):
    """Register a command: its help text and a function adding its arguments. The function returns the exit
    code (None means 0); CuratorErrors it raises become messages and exit codes in ``main``."""

    def wrap(fn: Command) -> Command:
        if name in COMMANDS and COMMANDS[name] is not fn:
            raise RuntimeError(f"CLI command {name!r} is registered twice")
        COMMANDS[name] = fn
        _SPECS[name] = (help, configure)
        return fn

    return wrap


def register_all(sub: argparse._SubParsersAction) -> None:
    for name, (help, configure) in _SPECS.items():
        p = sub.add_parser(name, help=help, description=help)
        p.add_argument("--json", action="store_true", help="machine-readable output")
        # Also accepted after the command (`memory-curator search x --vault DIR`); SUPPRESS keeps the value
        # given before the command when they are not repeated.
        p.add_argument("--vault", type=Path, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        p.add_argument("--embedder", choices=EMBEDDER_CHOICES, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        if configure is not None:
            configure(p)


def open_service(args: argparse.Namespace, vault: Path, config: MemoryConfig) -> MemoryService:
    """The vault named on the command line, with the embedder chosen by ``--embedder``."""
    return MemoryService.open(vault, embedder=args.embedder, config=config)
