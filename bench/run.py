"""Run the benchmarks and print one table: ``python bench/run.py [--quick] [--n N] [--dim D]``.

Speed targets (2-core machine, 100,000 memories, 768 dimensions): hybrid p50 <= 15 ms and p95 <= 30 ms at
or below a plain numpy scan of the same vectors; keyword p50 <= 5 ms; save p50 <= 5 ms; rebuild <= 20 s.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_lifecycle  # noqa: E402
import bench_migration  # noqa: E402
import recall_bench  # noqa: E402
import vault_bench  # noqa: E402
from timing import print_table  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="10,000 memories instead of 100,000")
    ap.add_argument("--n", type=int, help="number of memories")
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--workdir", type=Path, help="where to put the temporary vault (default: system temp)")
    args = ap.parse_args(argv)
    n = args.n or (10_000 if args.quick else 100_000)
    rows = vault_bench.run(n, args.dim, args.queries, args.workdir)
    print()
    print_table(rows)
    print()
    print_table(recall_bench.run(n, args.dim, args.queries))
    print()
    print_table(bench_migration.run(n, args.workdir) + bench_lifecycle.run(3, args.workdir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
