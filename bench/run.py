"""Run the benchmarks and print one table: ``python bench/run.py [--quick | --scale 1m] [--n N] [--dim D]``.

Speed targets (2-core machine, 768 dimensions), printed beside each figure with a numpy float32 scan of the
same vectors from the same run:
- 100,000 memories: hybrid p50 <= 15 ms and p95 <= 30 ms at or below the numpy scan; keyword p50 <= 5 ms;
  save p50 <= 5 ms; rebuild <= 15 s.
- ``--scale 1m`` (1,000,000 one-chunk memories): hybrid p50 <= 30 ms and p95 <= 60 ms; keyword p50 <= 10 ms;
  rebuild <= 10 minutes; the engine's and the app's memory under 2 GB; the app's memory list scrolls without a
  main-thread stall over 50 ms. Needs about 9 GB of memory and 12 GB of disk (the
  1,000,000 files, the index with its vectors, then the recall benchmark's own index); about an hour on 2 cores.
  The migration is timed at 100,000 memories (its target's size).
- Throughput with the bundled model (any scale): ``save_batch`` of 1,000 short memories >= 150 memories/s and
  the import of a 100-page PDF with embedding < 20 s, each beside the model alone on the same texts.
- The desktop app (offscreen) on the benchmark's vault: opening it, the memory list's page fetches and longest
  stall while scrolling, the app's memory (``--no-app`` leaves it out).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_lifecycle  # noqa: E402
import bench_migration  # noqa: E402
import recall_bench  # noqa: E402
import throughput  # noqa: E402
import vault_bench  # noqa: E402
from timing import print_load, print_table  # noqa: E402

MIGRATION_MAX = 100_000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="10,000 memories instead of 100,000")
    ap.add_argument("--scale", choices=sorted(vault_bench.SCALES), help="the targets (and size) of a scale")
    ap.add_argument("--n", type=int, help="number of memories")
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--workdir", type=Path, help="where to put the temporary vault (default: system temp)")
    ap.add_argument("--no-app", action="store_true", help="leave out the desktop app's figures")
    args = ap.parse_args(argv)
    scale = vault_bench.SCALES[args.scale or "100k"]
    n = args.n or (10_000 if args.quick else scale.n)
    print_load()
    rows = vault_bench.run(n, args.dim, args.queries, args.workdir, scale, app=not args.no_app)
    print()
    print_table(rows)
    print()
    print_table(recall_bench.run(n, args.dim, args.queries, args.workdir))
    print()
    # The migration's target is about 100,000 memories (an index of the first schema is years old): larger
    # scales time it at that size, and the lifecycle benchmarks do not depend on the vault's size.
    print_table(bench_migration.run(min(n, MIGRATION_MAX), args.workdir) + bench_lifecycle.run(3, args.workdir))
    print()
    emb = throughput.LocalEmbedder()
    emb.embed_documents(["warm up the model"])  # loading (and deriving) the model is not what is measured
    print_table(throughput.save_batch_rows(emb, 1000, args.workdir, random.Random(5), 0)
                + throughput.pdf_rows(emb, 100, args.workdir, random.Random(50)))
    print_load()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
