"""The command registry: every CLI module registers its commands with ``@command`` on import.

Core commands live in ``commands.py``; other modules (import/export, lifecycle, servers) register theirs the
same way and are imported by ``main.py``.
"""

from __future__ import annotations

import argparse
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from memory_curator.cli import output
from memory_curator.core.config import MemoryConfig
from memory_curator.core.embed.resolve import CHOICES as EMBEDDER_CHOICES
from memory_curator.core.progress import CancelToken
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


def open_service(args: argparse.Namespace, vault: Path, config: MemoryConfig, *, watch: bool = False,
                 sync: bool = True) -> MemoryService:
    """The vault named on the command line, with the embedder chosen by ``--embedder``. The process exits after
    the command, so closing waits (up to the Ollama timeout) for what it wrote to be embedded. ``watch``: a
    server, which polls: file events start before the opening sync (MemoryService.open), and an older index's
    upgrade is logged line by line (a command says it on stderr when it takes long: output.OpeningPrinter; Ctrl-C
    stops it, the migrations done kept). ``sync`` False: no opening sync, and a new index is left empty (a
    command that reads every file itself)."""
    config = replace(config, embed_close_wait_s=max(config.embed_close_wait_s, config.ollama_timeout_s))
    opening = output.OpeningPrinter(lines=watch)
    try:
        svc = MemoryService.open(vault, embedder=args.embedder, config=config, watch=watch, sync=sync, fill=sync,
                                 progress=opening)
    except BaseException:
        opening.finish(ok=False)
        raise
    opening.finish()
    return svc


@contextmanager
def ctrl_c_cancels() -> Iterator[CancelToken]:
    """Ctrl-C cancels the long operation given the token: it stops at its next step (a file, an item, a batch)
    and keeps what it did, where an interrupt would cut it short anywhere."""
    token = CancelToken()
    previous = signal.signal(signal.SIGINT, lambda *_: token.cancel())
    try:
        yield token
    finally:
        signal.signal(signal.SIGINT, previous)


# The CLI's names for contract fields (core/contract/operations.py), per command, where the flag is not
# ``--field-name``: short, older or positional names. tests/test_contract.py checks every operation's field has
# its flag here or under its own name, so a field added to the contract fails the test until the CLI takes it.
TYPED = "--field"  # typed fields (seed 004) come as --field KEY=VALUE
CONTRACT_FLAGS: dict[str, dict[str, str]] = {
    "add": {"content": "content", "session_id": "--session", **dict.fromkeys((
        "event_timestamp", "location", "participants", "event_type", "emotional_state", "valence", "arousal",
        "trigger_event", "skill_name", "proficiency_level"), TYPED)},
    "get": {"memory_id": "id"},
    "update": {"memory_id": "id", "session_id": "--session"},
    "update-batch": {"updates": "file"},
    "delete": {"memory_id": "id"},
    "search": {"query": "query", "search_mode": "--mode", "session_id": "--session", "sort_by": "--sort",
               "memory_type": "--type"},
    "list": {"session_id": "--session", "order_by": "--order", "memory_type": "--type"},
    "score": {"memory_id": "id", "score": "value"},
    "consolidate": {"ids": "ids", "preserve_originals": "--trash-originals"},
    "entities": {"query": "query"},
    "entity": {"name": "name"},
    "links": {"memory_id": "id"},
    "graph-query": {"query": "query"},
    "entity-merge": {"names": "names"},
    "entity-rename": {"name": "name", "new_name": "new_name"},
    "entity-hide": {"name": "name", "hidden": "--undo"},
    "link": {"memory_id": "id", "target": "target", "linked": "--remove"},
    "classify": {"memory_ids": "ids"},
}
