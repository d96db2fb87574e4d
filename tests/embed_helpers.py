"""Waiting for the background embedding (core/embed/background.py) in tests: saves return before their
vectors exist, so a test that needs them waits for the unit, with a generous bound for a loaded machine."""

from __future__ import annotations

WAIT_S = 120.0


def embedded(svc, timeout: float = WAIT_S) -> None:
    """Wait until the service's background unit has embedded everything it was asked to; fail with its state."""
    assert svc.embedding.wait(timeout), f"embedding did not finish: {svc.embedding.progress}"
