"""The desktop app's memory list on a large vault: time to first rows, page fetches deep in the list, sorting,
and the main thread's longest stall while scrolling. Prints a table; asserts nothing.

    .venv/bin/python bench/gui_list_scroll.py [--count 100000] [--vault /tmp/mc-bench-100k] [--json]

``--json`` prints the rows as one JSON line instead (``bench/run.py`` runs this on its own vault that way).

The list's cost should not grow with the vault: run it at 100,000 and at 1,000,000 and compare (a vault from
``bench/run.py --scale 1m`` can be reused: hard-link its files and copy its index, see README).

The vault is written once (plain markdown files, then the index is built when the app opens it) and reused.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("OLLAMA_HOST", "http://127.0.0.1:9")

from PySide6.QtCore import QEventLoop, QSettings, QTimer  # noqa: E402

from memory_curator.core.service import MemoryService  # noqa: E402
from memory_curator.gui.app import create_app, freeze_startup_heap  # noqa: E402
from memory_curator.gui.models.memory_table import PAGE  # noqa: E402
from memory_curator.gui.settings import AppSettings  # noqa: E402
from memory_curator.gui.windows.main_window import MainWindow  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "gui"))
from heartbeat import Heartbeat  # noqa: E402

CATEGORIES = ("decisions", "summaries", "context", "notes")


def write_vault(root: Path, count: int) -> None:
    for c in CATEGORIES:
        (root / c).mkdir(parents=True, exist_ok=True)
    for i in range(count):
        cat = CATEGORIES[i % len(CATEGORIES)]
        (root / cat / f"2025-01-01_memory_{i:06d}.md").write_text(
            f"---\ntitle: Memory {i:06d}\nsalience: {(i % 97) / 100:.2f}\nkeywords:\n- k{i % 50}\n---\n\n"
            f"Memory number {i} about topic {i % 311} and project {i % 13}.\n", encoding="utf-8")


def _rss_mb(field: str) -> float:
    """A line of /proc/self/status in MB (Linux): VmRSS (resident now), VmHWM (its peak), RssAnon (the part
    that is the process's own memory) or RssFile (file pages mapped: the libraries and the index's mapped part,
    which the kernel can drop and read again; a page mapped by two connections counts twice). Elsewhere the
    peak, for every field."""
    try:
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith(field + ":")) / 1024
    except (OSError, StopIteration):
        import resource  # noqa: PLC0415 - not on Windows

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class PeakSampler:
    """The largest anonymous and file-backed parts seen, sampled every ``interval_ms`` on the main thread: the
    kernel keeps only the peak of their sum (VmHWM), and a peak of file pages is not one of the process's own."""

    def __init__(self, interval_ms: int = 200):
        self.anon = self.file = 0.0
        self._timer = QTimer()
        self._timer.timeout.connect(self.sample)
        self._timer.start(interval_ms)

    def sample(self) -> None:
        self.anon = max(self.anon, _rss_mb("RssAnon"))
        self.file = max(self.file, _rss_mb("RssFile"))

    def stop(self) -> None:
        self.sample()
        self._timer.stop()


def pause(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def wait_until(condition, timeout_s: float = 600) -> float:
    start = time.perf_counter()
    loop = QEventLoop()
    while not condition():
        if time.perf_counter() - start > timeout_s:
            raise TimeoutError
        QTimer.singleShot(5, loop.quit)
        loop.exec()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--vault", type=Path, default=None)
    parser.add_argument("--json", action="store_true", help="print the rows as one JSON line")
    args = parser.parse_args()
    vault = args.vault or Path(f"/tmp/mc-bench-{args.count}")
    rows: list[tuple[str, str]] = []
    if not vault.exists():
        t = time.perf_counter()
        write_vault(vault, args.count)
        rows.append(("write markdown files", f"{time.perf_counter() - t:.1f} s"))
        t = time.perf_counter()
        MemoryService.open(vault, embedder="none").close()  # builds the index from the files
        rows.append(("build the index", f"{time.perf_counter() - t:.1f} s"))

    app = create_app([sys.argv[0]])
    window = MainWindow(AppSettings(QSettings(str(vault) + ".ini", QSettings.Format.IniFormat)))
    window.resize(1280, 800)
    t = time.perf_counter()
    peaks = PeakSampler()
    freeze_startup_heap()  # as the app's start does
    window.open_vault(vault, embedder="none")
    window.show()
    model, view = window.list_model, window.list_view
    wait_until(lambda: model.rowCount() > 0)
    rows.append(("open vault to first rows", f"{(time.perf_counter() - t) * 1000:.0f} ms"))
    wait_until(lambda: not window.engine.busy)  # the sync that follows opening, and its refresh
    rows.append(("open vault to synced with the files", f"{(time.perf_counter() - t) * 1000:.0f} ms"))
    rows.append(("memories in the vault", f"{model._total}"))

    idle = Heartbeat(interval_ms=5)  # the noise floor: the same timer with the engine idle
    idle.start()
    pause(5000)
    idle.stop()
    rows.append(("main thread longest stall, idle 5 s (noise floor)",
                 f"{idle.longest_ms:.0f} ms, of which working {idle.longest_busy_ms:.0f} ms"))

    beat = Heartbeat(interval_ms=5)
    beat.start()
    fetch_times = []
    pages = 25
    t = time.perf_counter()
    for _ in range(pages):
        before = model.rowCount()
        start = time.perf_counter()
        view.scrollToBottom()
        wait_until(lambda b=before: model.rowCount() > b or (not model._loading and not model.canFetchMore()))
        fetch_times.append((time.perf_counter() - start) * 1000)
        for _ in range(10):  # scroll within the page like a user does
            view.verticalScrollBar().setValue(view.verticalScrollBar().value() - 200)
            app.processEvents()
    beat.stop()
    fetch_times.sort()
    rows.append((f"page fetch ({PAGE} rows), median / worst of {pages}",
                 f"{fetch_times[len(fetch_times) // 2]:.0f} / {fetch_times[-1]:.0f} ms"))
    # The rest of a stall is the main thread waiting for a core or the GIL: on loaded cores that is most of it.
    rows.append(("main thread longest stall while scrolling",
                 f"{beat.longest_ms:.0f} ms, of which working {beat.longest_busy_ms:.0f} ms (target < 50 ms)"))

    deep = window.engine.call("list_memories", limit=PAGE, offset=max(0, model._total - PAGE), read=True)
    got: list = []
    deep.done.connect(got.append)
    rows.append((f"page at offset {max(0, model._total - PAGE)}", f"{wait_until(lambda: bool(got)) * 1000:.0f} ms"))
    # What the list asks for when it gets there: the page after the last row it holds, from that row's key.
    anchor: list = []
    window.engine.call("list_memories", limit=1, offset=max(0, model._total - PAGE - 1), read=True).done.connect(
        anchor.extend)
    wait_until(lambda: bool(anchor))
    keyed = window.engine.call("list_memories", limit=PAGE, after=anchor[0], read=True)
    got.clear()
    keyed.done.connect(got.append)
    rows.append((f"page after row {max(0, model._total - PAGE - 1)} (by its key)",
                 f"{wait_until(lambda: bool(got)) * 1000:.0f} ms (target < 50 ms)"))

    for column, name in ((0, "title"), (2, "salience")):
        loaded: list = []
        model.loaded.connect(loaded.append)
        start = time.perf_counter()
        view.sortByColumn(column, view.horizontalHeader().sortIndicatorOrder())
        wait_until(lambda got_rows=loaded: bool(got_rows))
        rows.append((f"sort by {name} (first page)", f"{(time.perf_counter() - start) * 1000:.0f} ms"))
        model.loaded.disconnect(loaded.append)

    # Judged with the vector codes in memory (~0.8 GB at 1,000,000 chunks), which the reader loads in the
    # background after opening: a run that got here sooner would report less.
    start = time.perf_counter()
    while True:
        answer: list = []
        window.engine.run(lambda svc: svc.store.vectors.loading(), read=True).done.connect(answer.append)
        wait_until(lambda got=answer: bool(got))
        if not answer[0]:
            break
        pause(500)
    rows.append(("waited for the vector codes to load (after the steps above)",
                 f"{(time.perf_counter() - start) * 1000:.0f} ms"))
    peaks.stop()
    rows.append(("app memory now / peak (RSS)", f"{_rss_mb('VmRSS'):,.0f} / {_rss_mb('VmHWM'):,.0f} MB (target < 2 GB)"))
    rows.append(("  of it anonymous (its own), now / largest sampled",
                 f"{_rss_mb('RssAnon'):,.0f} / {peaks.anon:,.0f} MB"))
    rows.append(("  of it file pages (the kernel can drop), now / largest",
                 f"{_rss_mb('RssFile'):,.0f} / {peaks.file:,.0f} MB"))
    window.close()
    if args.json:
        print(json.dumps(rows))
        return 0
    width = max(len(k) for k, _ in rows)
    print(f"\nMemory list on a {args.count}-memory vault ({vault})")
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
