"""Migrating an index of the first schema to the current one: ``python bench/bench_migration.py [--n N]``.

Builds an index with migration 1 only, filled like a real vault (about 1 KB of text per memory; some
superseded, expiring, scoped, typed and recalled memories), then times ``migrations.migrate``.
Target (seed 001): 100,000 memories in at most 30 s.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))

from timing import print_load, print_table  # noqa: E402

from memory_curator.core.config import MemoryConfig  # noqa: E402
from memory_curator.core.index import db, migrations  # noqa: E402
from memory_curator.core.index.store import IndexStore  # noqa: E402
from memory_curator.core.lifecycle import access  # noqa: E402

WORDS = "memory vault index search decision summary context sqlite vector embed session recall".split()


def build_v1(path: Path, n: int, seed: int = 7) -> None:
    rnd = random.Random(seed)
    conn = db.connect(path)
    migrations.current_version(conn)
    conn.execute("BEGIN")
    migrations.m001_initial(conn)
    conn.execute("INSERT INTO schema_migrations (version, name) VALUES (1, 'initial')")
    rows, stats = [], []
    for i in range(n):
        meta: dict = {}
        r = rnd.random()
        if r < 0.10:
            meta["superseded_by"] = f"id-{rnd.randrange(n)}"
        elif r < 0.15:
            meta["expires_at"] = "2030-01-01T00:00:00Z"
        if rnd.random() < 0.2:
            meta["scope"] = rnd.choice(["global", "project", "session"])
        if rnd.random() < 0.02:
            meta["extra"] = {"event_timestamp": "2025-06-15T09:00:00Z"}
        content = " ".join(rnd.choice(WORDS) for _ in range(150))
        rows.append((f"id-{i}", f"title {i}", rnd.choice(["decisions", "summaries", "context"]), f"context/{i}.md",
                     0.8, "2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z", None, "user", "[]", content,
                     json.dumps(meta), 1, len(content)))
        if rnd.random() < 0.3:
            stats.append((f"id-{i}", rnd.randrange(1, 20), "2025-05-01T00:00:00Z"))
    conn.executemany(
        "INSERT INTO memories (id, title, category, file_path, salience, created_at, updated_at, session_id, source, "
        "keywords, content, meta_json, file_mtime_ns, file_size) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    conn.executemany("INSERT INTO access_stats (memory_id, access_count, last_accessed) VALUES (?, ?, ?)", stats)
    conn.execute("COMMIT")
    conn.close()


def run(n: int, workdir: Path | None = None) -> list[dict[str, str]]:
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        path = Path(tmp) / "index.db"
        t = time.perf_counter()
        build_v1(path, n)
        built = time.perf_counter() - t
        conn = db.connect(path)
        t = time.perf_counter()
        applied = migrations.migrate(conn)
        took = time.perf_counter() - t
        size = path.stat().st_size / 1e6
        store = IndexStore(conn, Path(tmp))
        t = time.perf_counter()
        scored = access.score_unscored(store, MemoryConfig())
        scoring = time.perf_counter() - t
        conn.close()
    return [{"benchmark": f"migrate schema 1 -> {applied[-1]}", "memories": f"{n:,}", "seconds": f"{took:.2f}",
             "target": "<= 30 s", "note": f"index {size:.0f} MB, built in {built:.1f} s"},
            {"benchmark": "first importance at the next open", "memories": f"{scored:,}", "seconds": f"{scoring:.2f}",
             "target": "", "note": "once: later opens score only new memories"}]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--workdir", type=Path)
    args = ap.parse_args(argv)
    print_load()
    print_table(run(args.n, args.workdir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
