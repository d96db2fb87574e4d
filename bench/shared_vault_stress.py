"""Many processes, one vault: figures for the stress run (HTTP server, MCP server over stdio, CLI processes and
the app's in-process engine writing at once), and the consistency check afterwards.

    python bench/shared_vault_stress.py [--http-ops 500] [--mcp-ops 500] [--app-ops 500] [--cli-ops 30]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from timing import percentile, print_table  # noqa: E402

from memory_curator.core.config import MemoryConfig  # noqa: E402
from servers.shared_vault import run_stress  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--http-ops", type=int, default=500)
    ap.add_argument("--mcp-ops", type=int, default=500)
    ap.add_argument("--app-ops", type=int, default=500)
    ap.add_argument("--cli-ops", type=int, default=30)
    args = ap.parse_args()
    config = MemoryConfig(ollama_host="http://127.0.0.1:9")
    with tempfile.TemporaryDirectory() as tmp:
        r = run_stress(Path(tmp) / "vault", config, http_ops=args.http_ops, mcp_ops=args.mcp_ops,
                       app_ops=args.app_ops, cli_ops=args.cli_ops)
    rows = [{"writer": t.name, "ops": str(t.ops), "seconds": f"{t.seconds:.1f}",
             "ops/s": f"{t.ops / t.seconds:.1f}" if t.seconds else "-",
             "p50 ms": f"{percentile(t.latencies_ms, 50):.1f}", "p95 ms": f"{percentile(t.latencies_ms, 95):.1f}",
             "max ms": f"{max(t.latencies_ms, default=0):.1f}", "errors": str(len(t.errors))} for t in r.tallies]
    rows.append({"writer": "all", "ops": str(r.ops), "seconds": f"{r.seconds:.1f}",
                 "ops/s": f"{r.ops / r.seconds:.1f}", "errors": str(len(r.errors))})
    print_table(rows)
    expected = r.expected
    print(f"\nmemories expected {len(expected)}, files {len(r.files)}, index rows {len(r.index)}; "
          f"files == expected: {r.files == expected}; index == files: {r.index == r.files}; "
          f"trashed {len(r.trashed)}")
    for e in r.errors[:10]:
        print("error:", e)
    return 0 if not r.errors and r.files == expected == r.index else 1


if __name__ == "__main__":
    sys.exit(main())
