"""What the change signal costs: MemoryService.poll_changes() on a vault of N memories when nothing changed
(the common case: two stats and one PRAGMA), after another process saved, after an editor added a file (a
stat-only sync), after an edit in place (found by its file event: the time until a poll reports it), and when
the periodic full rescan is due (every 5 s without file events, every 300 s with them).

    python bench/poll_changes.py [--memories 10000] [--repeat 20]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
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
        app.poll_changes()  # the first poll starts the file watcher
        idle = time_each(lambda _: app.poll_changes(), range(args.repeat))

        def after_other_save(i: int) -> None:
            other.save(f"saved elsewhere {i}")
            app.poll_changes()

        other_ms = time_each(after_other_save, range(args.repeat))

        def after_editor_adds(i: int) -> None:
            (vault / "context" / f"editor_{i}.md").write_text(f"# Editor note {i}\n\ntext\n")
            app.poll_changes()

        editor_ms = time_each(after_editor_adds, range(args.repeat))

        def edit_in_place(i: int) -> None:
            path = vault / "context" / f"editor_{i}.md"
            path.write_text(f"# Editor note {i}\n\nedited in place\n")
            while not app.poll_changes().files_changed:
                time.sleep(0.001)

        event_ms = time_each(edit_in_place, range(args.repeat))

        def full_scan(_: int) -> None:
            app._changes._last_full = float("-inf")  # due now
            app.poll_changes()

        full_ms = time_each(full_scan, range(args.repeat))
        other.close()
        app.close()
    n = f"{args.memories} memories"
    print_table([
        row("poll, nothing changed", idle, note=n),
        row("save elsewhere + poll", other_ms, note="data_version; the changed folder agrees with its rows"),
        row("editor adds a file + poll", editor_ms, note="folder mtime -> stat-only sync"),
        row("edit in place, until a poll reports it", event_ms, note="file event -> stat of that folder"),
        row("poll with the full rescan due", full_ms, note="every 5 s, or 20x its cost when slow"),
    ])
    scan = sorted(full_ms)[len(full_ms) // 2]
    print(f"full rescans cost {scan / 5000:.2%} of a core every 5 s without events, {scan / 300000:.3%} every 300 s "
          "with them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
