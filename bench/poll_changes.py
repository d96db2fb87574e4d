"""What the change signal costs: MemoryService.poll_changes() on a vault of N memories when nothing changed
(the common case: two stats and one PRAGMA), after another process saved, after an editor added a file (a
stat-only sync), and when the periodic full rescan is due.

    python bench/poll_changes.py [--memories 10000] [--repeat 20]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import print_table, row, time_each  # noqa: E402

from memory_curator.core.config import MemoryConfig  # noqa: E402
from memory_curator.core.service import MemoryService  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    config = MemoryConfig(ollama_host="http://127.0.0.1:9")
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        cats = ("decisions", "summaries", "context")
        with MemoryService.open(vault, embedder="none", config=config) as svc:
            for start in range(0, args.memories, 1000):
                svc.save_batch([{"content": f"Memory {i} about topic {i % 97}", "category": cats[i % 3]}
                                for i in range(start, min(args.memories, start + 1000))])
        app = MemoryService.open(vault, embedder="none", config=config)
        other = MemoryService.open(vault, embedder="none", config=config)
        app._changes._full_scan_s = 1e9  # measure each case on its own
        idle = time_each(lambda _: app.poll_changes(), range(args.repeat))

        def after_other_save(i: int) -> None:
            other.save(f"saved elsewhere {i}")
            app.poll_changes()

        other_ms = time_each(after_other_save, range(args.repeat))

        def after_editor_adds(i: int) -> None:
            (vault / "context" / f"editor_{i}.md").write_text(f"# Editor note {i}\n\ntext\n")
            app.poll_changes()

        editor_ms = time_each(after_editor_adds, range(args.repeat))
        app._changes._full_scan_s = 0.0
        full_ms = time_each(lambda _: app.poll_changes(), range(args.repeat))
        other.close()
        app.close()
    n = f"{args.memories} memories"
    print_table([
        row("poll, nothing changed", idle, note=n),
        row("save elsewhere + poll", other_ms, note="data_version; the changed folder agrees with its rows"),
        row("editor adds a file + poll", editor_ms, note="folder mtime -> stat-only sync"),
        row("poll with the full rescan due", full_ms, note="every 5 s, or 20x its cost when slow"),
    ])
    return 0


if __name__ == "__main__":
    sys.exit(main())
