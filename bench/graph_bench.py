"""Graph benchmarks on a synthetic vault of people, places and wikilinks (default 100,000 memories).

Measures the graph leg of hybrid search for queries naming entities, a memory's links (the graph view and
backlinks), seed 002's graph query, the memories of an entity, the Entities list, and what extraction costs on
the way in: rows made from the same items with and without entity extraction, and a whole rebuild; with --relabel, labelling every
memory again and how long another writer waits for the vault's write lock meanwhile.

The graph leg, the links of a memory and the graph query are printed last with their p50 and p95 beside the
targets (p50 < 20 ms; seed 002 allows 150 ms for a graph query) and as a ratio to a numpy scan timed in the same
run, which is what carries between runs on a shared machine.

    python bench/graph_bench.py [--n 100000] [--queries 200] [--targets-only] [--relabel]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import percentile, print_load, print_table, row, time_each  # noqa: E402

from memory_curator.core.config import MemoryConfig  # noqa: E402
from memory_curator.core.graph import extract  # noqa: E402
from memory_curator.core.graph.labelling import BATCH  # noqa: E402
from memory_curator.core.index.filters import Filters  # noqa: E402
from memory_curator.core.index.store import memory_row  # noqa: E402
from memory_curator.core.model import MemoryItem  # noqa: E402
from memory_curator.core.service import MemoryService  # noqa: E402
from memory_curator.core.text.tokens import fts_row  # noqa: E402
from memory_curator.core.vault.codec import encode_memory  # noqa: E402
from memory_curator.core.vault.lock import VaultLock  # noqa: E402
from memory_curator.core.vault.store import STATE_DIR  # noqa: E402

CONFIG = MemoryConfig(ollama_host="http://127.0.0.1:9")
FIRST = ["Ada", "Bruno", "Carla", "Dmitri", "Elif", "Farah", "Goran", "Hanna", "Ines", "Jonas", "Kaisa", "Liam",
         "Mikko", "Noor", "Olli", "Priya", "Quinn", "Rosa", "Sami", "Tuuli"]
LAST = ["Virtanen", "Smith", "Tanaka", "Garcia", "Novak", "Laine", "Okafor", "Berg", "Rossi", "Kim", "Silva",
        "Moreau", "Jensen", "Khan", "Nieminen", "Weber", "Costa", "Ito", "Larsen", "Popescu"]
PLACES = [f"{a}{b}" for a in ("North", "South", "East", "West", "Old", "New", "High", "Low", "Red", "Blue")
          for b in ("haven", "ford", "wick", "field", "gate", "moor", "holm", "dale", "port", "stead")]
TARGET_MS = 20.0  # p50 of the graph leg and of a memory's links (issue 11)
SEED_MS = 150.0  # seed 002: "Graph query (Nexus): < 150ms for typical queries"
OTHER_EVERY_S = 0.25  # another face's writes during --relabel: a busy server, four saves a second
TARGET = f"p50 < {TARGET_MS:.0f} ms; seed 002: < {SEED_MS:.0f} ms"
WORDS = ("meeting budget release review design plan trip dinner call report draft launch backup issue fix "
         "deadline contract offer visit workshop").split()


def corpus(n: int, seed: int = 11) -> list[MemoryItem]:
    rng = np.random.default_rng(seed)
    people = [f"{f} {ln}" for f in FIRST for ln in LAST]  # 400 people, Zipf-popular
    weights = 1.0 / np.arange(1, len(people) + 1) ** 0.9
    weights /= weights.sum()
    start = datetime(2025, 1, 1, tzinfo=timezone.utc)
    items = []
    for i in range(n):
        a, b = rng.choice(len(people), 2, replace=False, p=weights)
        place = PLACES[int(rng.integers(len(PLACES)))]
        w = rng.choice(WORDS, 6)
        link = f" See [[Note {int(rng.integers(max(1, i)))}]]." if i and rng.random() < 0.3 else ""
        content = (f"We had a {w[0]} with {people[a]} and {people[b]} in {place}. The {w[1]} and the {w[2]} "
                   f"were discussed; {w[3]} {w[4]} {w[5]} follows next week.{link}")
        when = start + timedelta(minutes=i)
        items.append(MemoryItem(id=f"00000000-0000-4000-8000-{i:012d}", content=content, title=f"Note {i}",
                                category="context", created_at=when, updated_at=when,
                                keywords=(str(w[0]), str(w[1])), actors=(f"user_{i % 50}",)))
    return items


def write(root: Path, items: list[MemoryItem]) -> None:
    folder = root / "context"
    folder.mkdir(parents=True, exist_ok=True)
    for i, item in enumerate(items):
        (folder / f"2025-01-01_note-{i}.md").write_text(encode_memory(item), encoding="utf-8")


def against_targets(name: str, ms: list[float], scan_p50: float) -> str:
    """One line: p50 and p95 beside the targets, met or not, and the p50 as a multiple of the same run's scan."""
    p50, p95 = percentile(ms, 50), percentile(ms, 95)
    return (f"{name}: p50 {p50:.2f} ms, p95 {p95:.2f} ms; target p50 < {TARGET_MS:.0f} ms "
            f"{'met' if p50 < TARGET_MS else 'MISSED'}; seed 002 < {SEED_MS:.0f} ms "
            f"{'met' if p95 < SEED_MS else 'MISSED'} at p95; p50 = {p50 / scan_p50:.2f} x the scan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--targets-only", action="store_true",
                    help="only what has a target (graph leg, links, graph query) and the scan")
    ap.add_argument("--relabel", action="store_true",
                    help="also label every memory again (rewrites most files: minutes at 100,000)")
    args = ap.parse_args(argv)
    print_load()
    items = corpus(args.n)
    rows = []
    if not args.targets_only:
        extraction_cost(items)

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        write(root, items)
        t = time.perf_counter()
        svc = MemoryService.open(root, embedder="none", config=CONFIG)
        opened = time.perf_counter() - t
        print(f"index built from {args.n} files in {opened:.1f} s ({args.n / opened:.0f} memories/s, extraction included)")
        try:
            rng = np.random.default_rng(3)
            people = [f"{f} {ln}" for f in FIRST for ln in LAST]
            queries = [f"what did {people[int(rng.integers(len(people)))]} say about the "
                       f"{WORDS[int(rng.integers(len(WORDS)))]}" for _ in range(args.queries)]
            ids = [items[int(i)].id for i in rng.integers(0, args.n, args.queries)]
            targeted = {
                "graph leg (query names a person)": time_each(lambda q: svc.graph.search_leg(q, Filters(), 10),
                                                              queries),
                "links of a memory (graph view)": time_each(lambda m: svc.graph.links(m), ids),
                "graph query (seed 002)": time_each(lambda q: svc.graph.query(q, limit=10), queries),
            }
            rows += [row(name, ms, TARGET) for name, ms in targeted.items()]
            # The reference right after them, at the same load: measured after a long --relabel it was not.
            scan = scan_ms(args.n)
            rows.append(row(f"numpy float scan, {args.n} x 768", scan, "", "reference: the machine's speed now"))
            if not args.targets_only:
                rows += untargeted(svc, rng, queries, ids, people)
            if args.relabel:
                rows += relabel(svc, root)
        finally:
            svc.close()
    print_table(rows)
    print(f"\nAt {args.n:,} memories ({args.queries} queries, load {os.getloadavg()[0]:.1f}):")
    for name, ms in targeted.items():
        print("  " + against_targets(name, ms, percentile(scan, 50)))
    return 0


def scan_ms(n: int) -> list[float]:
    """A numpy float scan of n x 768 for the top 10, 50 times: the machine's speed at this moment."""
    vectors = np.random.default_rng(5).standard_normal((n, 768)).astype(np.float32)
    return time_each(lambda v: np.argpartition(-(vectors @ v), 10)[:10], vectors[:50])


def extraction_cost(items: list[MemoryItem]) -> None:
    """Index rows made from the same items with and without entity extraction."""
    sample = items[: min(len(items), 20_000)]
    t = time.perf_counter()
    for it in sample:
        fts_row(it.title, it.content, " ".join(it.keywords))
    base = time.perf_counter() - t
    t = time.perf_counter()
    for it in sample:
        memory_row(it, "context/x.md", 0, 0)
    full = time.perf_counter() - t
    t = time.perf_counter()
    for it in sample:
        extract.mentions(it)
        extract.edges(it)
    only = time.perf_counter() - t
    print(f"rows for {len(sample)} memories: {len(sample) / full:.0f}/s with extraction, "
          f"{len(sample) / (full - only):.0f}/s without (extraction {only / len(sample) * 1e6:.0f} us/memory; "
          f"full-text preparation alone {base / len(sample) * 1e6:.0f} us/memory)")


def untargeted(svc: MemoryService, rng: np.random.Generator, queries: list[str],
               ids: list[str], people: list[str]) -> list[dict[str, str]]:
    rows = [row("hybrid search, keyword only",
                time_each(lambda q: svc.search(q, limit=10, mode="hybrid", record_access=False), queries))]
    svc.config = replace(CONFIG, graph_weight=0.5)  # the leg's weight is read from the config
    rows.append(row("hybrid search, keyword + graph", time_each(
        lambda q: svc.search(q, limit=10, mode="hybrid", record_access=False), queries), "< 400 ms"))
    svc.config = CONFIG
    rows.append(row("backlinks of a memory", time_each(svc.graph.backlinks, ids)))
    names = [people[int(i)] for i in rng.integers(0, len(people), 50)]
    rows.append(row("memories of an entity (100)", time_each(lambda e: svc.graph.memories_of(e, 100), names)))
    rows.append(row("Entities list, first page (500)", time_each(
        lambda _: (setattr(svc.graph, "_counts", None), svc.graph.entities(limit=500)), range(5)),
        "", "counted afresh each time"))
    rows.append(row("Entities list, a later page (500)",
                    time_each(lambda off: svc.graph.entities(limit=500, offset=off), range(500, 5500, 1000))))
    rows.append(row("Entities list (all, with counts)", time_each(lambda _: svc.graph.entities(), range(3))))
    return rows


def relabel(svc: MemoryService, root: Path) -> list[dict[str, str]]:
    """Memory › Label every memory again: a first run (the bench's files were written without labels), then one
    after the label set changed (most files rewritten), while another writer takes the vault's write lock every
    OTHER_EVERY_S: how long it waits is what a save from another face waits."""
    labels = svc.graph.labels
    t = time.perf_counter()
    same = labels.classify()
    unchanged = time.perf_counter() - t
    labels.set_label_set({"meeting": ["meeting", "workshop", "call"], "travel": ["trip", "visit"],
                          "work": ["budget", "contract", "report", "deadline"]})
    waits: list[float] = []
    stop = threading.Event()

    def other_face() -> None:
        lock = VaultLock(root / STATE_DIR)
        while not stop.is_set():
            t0 = time.perf_counter()
            with lock.hold():
                waits.append((time.perf_counter() - t0) * 1000)
            stop.wait(OTHER_EVERY_S)

    writer = threading.Thread(target=other_face)
    writer.start()
    t = time.perf_counter()
    try:
        run = labels.classify()
    finally:
        stop.set()
        writer.join()
    changed = time.perf_counter() - t
    print(f"label every memory again: first run {unchanged:.1f} s ({same.changed} changed, "
          f"{same.total / unchanged:.0f} memories/s); after a new label set {changed:.1f} s ({run.changed} files rewritten, "
          f"{run.total / changed:.0f} memories/s)")
    return [row(f"write lock wait of another face during a relabel (batch {BATCH})", waits, "",
                f"max {max(waits, default=0):.0f} ms; a write every {OTHER_EVERY_S * 1000:.0f} ms")]


if __name__ == "__main__":
    raise SystemExit(main())
