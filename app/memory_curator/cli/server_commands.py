"""`memory-curator serve` (the local HTTP API) and `memory-curator mcp` (the MCP server)."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from memory_curator.cli import output
from memory_curator.cli.registry import command, open_service
from memory_curator.serving.auth import default_token_path, load_or_create_token
from memory_curator.serving.worker import ServiceWorker

# The MCP SDK, starlette and uvicorn take ~0.4 s to import: only the two server commands load them, so the
# other commands (run often, by scripts) start fast.
LOOPBACK = ("127.0.0.1", "::1", "localhost")

DEFAULT_HTTP_PORT = 8766
DEFAULT_MCP_PORT = 8765


def _port(text: str) -> int:
    """A TCP port: --port 99999 went through to the socket's bind and ended the server with a traceback."""
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number from 1 to 65535 (got {text!r})")
    return port


def _network_args(port: int):
    def configure(p: argparse.ArgumentParser) -> None:
        p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: loopback only)")
        p.add_argument("--port", type=_port, default=port, help=f"port to listen on (default: {port})")

    return configure


def _warn_if_exposed(host: str) -> None:
    if host not in LOOPBACK:
        output.warn(f"listening on {host}: other machines can reach this server; keep the token secret")


@contextmanager
def _sigterm_as_exit() -> Iterator[None]:
    """SIGTERM (a service manager, `kill`) ends a server like Ctrl+C does: the engine closes and commits the last
    history batch. uvicorn re-raises a caught SIGTERM after its own shutdown, and the default handler would
    then end the process before any ``finally`` ran."""

    def stop(signum, frame):
        raise SystemExit(0)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _require_user(p: argparse.ArgumentParser) -> None:
    p.add_argument("--require-user", action="store_true",
                   help="every request must name its user_id; each user sees only their own memories and those "
                        "without an owner")


def _serve_args(p: argparse.ArgumentParser) -> None:
    _network_args(DEFAULT_HTTP_PORT)(p)
    _require_user(p)
    p.add_argument("--show-token", action="store_true", help="print the bearer token and exit")


@command("serve", "serve the vault over a local HTTP API (bearer token required)", _serve_args)
def cmd_serve(args, vault, config):
    token_path = default_token_path()
    token = load_or_create_token(token_path)
    if args.show_token:
        output.emit_json({"token": token, "file": str(token_path)}) if args.json else print(token)
        return 0
    _warn_if_exposed(args.host)
    from memory_curator.server.run import serve_http  # noqa: PLC0415 - heavy, see the note at the top
    from memory_curator.serving.listen import bind  # noqa: PLC0415 - heavy (uvicorn)

    with bind(args.host, args.port) as sock:  # a port in use is said before the vault opens
        worker = ServiceWorker(lambda: open_service(args, vault, config, watch=True))
        print(f"Memory Curator API on http://{args.host}:{args.port} (vault {worker.svc.vault.root}); token file "
              f"{token_path}", file=sys.stderr)
        try:
            with _sigterm_as_exit():
                serve_http(worker, token, sock, host=args.host, require_user=args.require_user)
        finally:
            worker.close()


def _mcp_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    _network_args(DEFAULT_MCP_PORT)(p)
    p.add_argument("--client", default="mcp", help="name recorded as the provenance of stored memories")
    _require_user(p)


@command("mcp", "serve the vault to LLM clients over MCP (stdio, or --http on loopback with the bearer token)",
         _mcp_args)
def cmd_mcp(args, vault, config):
    from memory_curator.mcp.server import serve as serve_mcp  # noqa: PLC0415 - heavy, see the note at the top
    from memory_curator.serving.listen import bind  # noqa: PLC0415 - heavy (uvicorn)

    token = sock = None
    if args.http:
        _warn_if_exposed(args.host)
        token_path = default_token_path()
        token = load_or_create_token(token_path)
        sock = bind(args.host, args.port)  # a port in use is said before the vault opens
    try:
        worker = ServiceWorker(lambda: open_service(args, vault, config, watch=True))
        if args.http:
            print(f"Memory Curator MCP on http://{args.host}:{args.port}/mcp (vault {worker.svc.vault.root}); "
                  f"clients send 'Authorization: Bearer <token>', the token is in {token_path}", file=sys.stderr)
        try:
            with _sigterm_as_exit():
                serve_mcp(worker, sock=sock, host=args.host, client=args.client, token=token,
                          allowed_hosts=(args.host,), require_user=args.require_user)
        finally:
            worker.close()
    finally:
        if sock is not None:
            sock.close()
