"""Timing helpers and the table every benchmark prints."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import Any


def print_load() -> None:
    """What else the machine is doing: every figure scales with it."""
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (figures scale with it)")


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    if not s:
        return float("nan")
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


def time_each(fn: Callable[[Any], Any], args: Iterable[Any]) -> list[float]:
    """Milliseconds per call."""
    out = []
    for a in args:
        t = time.perf_counter()
        fn(a)
        out.append((time.perf_counter() - t) * 1000)
    return out


def row(name: str, ms: list[float], target: str = "", note: str = "") -> dict[str, str]:
    return {"benchmark": name, "n": str(len(ms)), "p50 ms": f"{percentile(ms, 50):.2f}",
            "p95 ms": f"{percentile(ms, 95):.2f}", "target": target, "note": note}


def print_table(rows: list[dict[str, str]]) -> None:
    if not rows:
        return
    cols = list(dict.fromkeys(k for r in rows for k in r))
    widths = {c: max(len(c), *(len(r.get(c, "")) for r in rows)) for c in cols}
    print("| " + " | ".join(c.ljust(widths[c]) for c in cols) + " |")
    print("|" + "|".join("-" * (widths[c] + 2) for c in cols) + "|")
    for r in rows:
        print("| " + " | ".join(r.get(c, "").ljust(widths[c]) for c in cols) + " |")
