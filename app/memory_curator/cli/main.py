"""``memory-curator``: the command line over the same engine as the desktop app.

Exit codes: 0 ok, 1 not found / nothing done, 2 bad input (usage or validation), 3 environment problem
(storage, index, embedder), 130 cancelled.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from memory_curator import __version__
from memory_curator.cli import (  # importing a command module registers its commands
    commands,
    conflict_commands,
    graph_commands,
    history_commands,
    io_commands,
    lifecycle_commands,
    output,
    server_commands,
    source_commands,
)
from memory_curator.cli.registry import COMMANDS, register_all
from memory_curator.core.errors import Cancelled, CuratorError, MemoryNotFoundError, ValidationError
from memory_curator.environment import config_from_env, default_vault_dir

COMMAND_MODULES = (commands, io_commands, server_commands, history_commands, lifecycle_commands,
                   source_commands, conflict_commands, graph_commands)  # others add theirs here

EXIT_OK, EXIT_NOT_FOUND, EXIT_USAGE, EXIT_ENV, EXIT_CANCELLED = 0, 1, 2, 3, 130


class _Parser(argparse.ArgumentParser):
    """Usage errors go to stderr as usual, and with ``--json`` also as a JSON error on stdout, so a script
    reading stdout always gets JSON."""

    json_errors = False

    def error(self, message: str):  # type: ignore[override]
        if _Parser.json_errors:
            output.error(f"{self.prog}: {message}", True, code="USAGE_ERROR")
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="memory-curator",
        description="Curate the long-term memory of LLM assistants. Without a command, opens the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"memory-curator {__version__}")
    parser.add_argument("--vault", type=Path, default=None,
                        help="vault folder (default: $MEMORY_CURATOR_VAULT or the user data folder)")
    parser.add_argument("--embedder", choices=("auto", "ollama", "local", "none"), default="auto",
                        help="embedding provider (default: auto: the vault's model, or the best available)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    register_all(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    _Parser.json_errors = "--json" in argv
    args = parser.parse_args(argv)
    if args.command is None:
        from memory_curator.gui.app import run as run_gui  # noqa: PLC0415 - Qt loads only for the app

        return run_gui(vault=args.vault)
    vault = args.vault or default_vault_dir()
    as_json = getattr(args, "json", False)
    try:
        code = COMMANDS[args.command](args, vault, config_from_env()) or EXIT_OK
        sys.stdout.flush()  # a reader that went away shows here, inside the handlers below
        return code
    except BrokenPipeError:
        # Piped into `head` or a pager that quit: stop quietly, as other command-line tools do.
        output.silence_stdout()
        return EXIT_OK
    except MemoryNotFoundError as exc:
        output.error(str(exc), as_json, code=exc.code)
        return EXIT_NOT_FOUND
    except ValidationError as exc:
        output.error(str(exc), as_json, code=exc.code)
        return EXIT_USAGE
    except Cancelled as exc:
        output.error(str(exc), as_json, code="CANCELLED")
        return EXIT_CANCELLED
    except CuratorError as exc:
        output.error(str(exc), as_json, code=getattr(exc, "code", "ERROR"))
        return EXIT_ENV
    except KeyboardInterrupt:
        output.error("Interrupted.", as_json, code="CANCELLED")
        return EXIT_CANCELLED
    except OSError as exc:
        # The engine wraps the errors it expects; anything left is the disk or the system (full, read-only...).
        where = f" ({exc.filename})" if exc.filename else ""
        output.error(f"{exc.strerror or exc}{where}. Check the disk space and permissions of the vault folder.",
                     as_json, code="STORAGE_ERROR")
        return EXIT_ENV


if __name__ == "__main__":
    sys.exit(main())
