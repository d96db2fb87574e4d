"""What the command-line progress tests share: a command run with its stderr on a real pseudo-terminal, and a clock
the test moves by hand."""

from __future__ import annotations

import os
import pty
import subprocess


def run_with_stderr_on_a_terminal(args: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess, str]:
    """Run ``args`` to the end with stderr on a pseudo-terminal (so the command sees a terminal there) and stdout on
    a pipe: the finished process (its stdout) and all it wrote to the terminal."""
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(args, stdout=subprocess.PIPE, stderr=follower, env=env, timeout=120)
        os.close(follower)
        follower = -1
        err = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            err += chunk
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    return done, err.decode()


class Clock:
    """A printer's clock: ``now`` is what the test sets."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now
