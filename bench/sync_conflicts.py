"""What sync conflicts cost: the marker check every file read now makes, settling when there is no conflict
(every sync does it), a sync that finds N Syncthing copies, a settle while they wait for a person, listing
them, and resolving one (keep ours: two files to the trash, one written, the index updated).

    python bench/sync_conflicts.py [--memories 2000] [--copies 20] [--repeat 20]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import print_load, print_table, row, time_each  # noqa: E402

from memory_curator.core.config import MemoryConfig  # noqa: E402
from memory_curator.core.conflicts import markers  # noqa: E402
from memory_curator.core.service import MemoryService  # noqa: E402

COPY = ".sync-conflict-20261123-082800-ABCDEFG.md"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=2000)
    ap.add_argument("--copies", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    plain = "---\nid: x\ntitle: T\n---\n\n" + "word " * 400
    marked = "---\nid: x\n<<<<<<< HEAD\ntitle: A\n=======\ntitle: B\n>>>>>>> o\n---\n\n" + "line\n" * 400
    scan = time_each(lambda _: [markers.split(plain) for _ in range(1000)], range(args.repeat))
    split = time_each(lambda _: markers.split(marked), range(args.repeat))
    config = MemoryConfig(ollama_host="http://127.0.0.1:9")
    with tempfile.TemporaryDirectory() as tmp, \
            MemoryService.open(Path(tmp) / "vault", embedder="none", config=config) as svc:
        for start in range(0, args.memories, 1000):
            svc.save_batch([{"content": f"Memory {i} about topic {i % 97}", "title": f"Memory {i}"}
                            for i in range(start, min(args.memories, start + 1000))])
        idle = time_each(lambda _: svc.conflicts.settle(), range(args.repeat))
        rels = list(svc.store.paths())[: args.copies]

        def make_copies() -> None:
            for rel in rels:
                path = svc.vault.abs(rel)
                path.with_name(path.stem + COPY).write_text(path.read_text().replace("Memory", "Changed memory"))

        make_copies()
        found = time_each(lambda _: svc.sync(), range(1))
        waiting = time_each(lambda _: svc.conflicts.settle(), range(args.repeat))
        listing = time_each(lambda _: svc.conflicts.list(), range(args.repeat))
        keys = [c.key for c in svc.conflicts.list()]
        resolve = time_each(lambda key: svc.conflicts.resolve(key, "ours"), keys)
    print_load()
    n = f"{args.memories} memories, {args.copies} copies"
    print_table([
        row("marker check, 1,000 reads of a 2 KB file", scan, note="what every Vault.read adds"),
        row("split a conflicted file (400 lines)", split),
        row("settle with no conflict", idle, note="one query; every sync does it"),
        row("sync that finds the copies", found, note=n + "; tries to merge each"),
        row("settle while they wait for a person", waiting, note="cached: no merge tried again"),
        row("list the conflicts", listing, note=n),
        row("resolve one (keep ours)", resolve, note="2 files to the trash, 1 written, reindexed"),
    ])
    return 0


if __name__ == "__main__":
    sys.exit(main())
