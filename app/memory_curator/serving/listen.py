"""The servers' listening socket, bound before the vault opens and handed to uvicorn: a port in use is said in
words at once, and a server never announces an address it cannot serve (`serve` printed 'Memory Curator API on
...', opened the vault, then ended with uvicorn's 'address already in use')."""

from __future__ import annotations

import errno
import socket
from typing import Any

import uvicorn

from memory_curator.core.errors import CuratorError


class CannotListen(CuratorError):
    """The address or port cannot be listened on: an environment problem, not a bug (no traceback)."""

    code = "CANNOT_LISTEN"


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` as uvicorn binds one (SO_REUSEADDR: a server just stopped leaves its
    port free at once); uvicorn listens on it."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise CannotListen(f"Port {port} on {host} is already in use (another Memory Curator server, or another "
                               "program): stop that one, or choose another port with --port.") from None
        raise CannotListen(f"Cannot listen on {host} port {port}: {exc.strerror or exc}. Choose another --host or "
                           "--port.") from None
    return sock


def run(app: Any, sock: socket.socket) -> None:
    """Serve ``app`` on ``sock`` until the process is stopped."""
    uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False)).run(sockets=[sock])
