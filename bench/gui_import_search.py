"""The desktop app while it imports: how long the main thread stalls during a 1,000-file import, and how soon a
search typed meanwhile answers. Prints a table; asserts nothing (tests/gui/test_responsiveness.py asserts
that the answer comes before the import ends).

    .venv/bin/python bench/gui_import_search.py [--files 1000] [--searches 8] [--embedder none|local]

The window is the real one, offscreen, on a copy of the sample vault. A 5 ms timer on the main thread records
its longest gap (the "stall": how long a click or a key would have waited). Searches are sent with Enter every
half second while the import runs, in keyword mode unless --mode says otherwise.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("OLLAMA_HOST", "http://127.0.0.1:9")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from PySide6.QtCore import QEventLoop, QSettings, QTimer  # noqa: E402

from memory_curator.gui import resources  # noqa: E402
from memory_curator.gui.app import create_app  # noqa: E402
from memory_curator.gui.settings import AppSettings  # noqa: E402
from memory_curator.gui.windows.main_window import MainWindow  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "gui"))
from gui_list_scroll import wait_until  # noqa: E402 - bench/ is the script's folder
from heartbeat import Heartbeat  # noqa: E402

QUERIES = ("release train", "flaky test", "meeting notes", "which database do we use", "deploy on tuesday")


def pause(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def write_notes(folder: Path, count: int) -> None:
    folder.mkdir()
    for i in range(count):
        (folder / f"note_{i:04d}.md").write_text(
            f"# Note {i}\n\nMeeting {i}: we discussed the release train and the flaky test number {i % 17}.\n",
            encoding="utf-8")


def search_once(window: MainWindow, beat: Heartbeat, query: str, importing=lambda: False) -> tuple[float, float, bool]:
    """(ms from Enter to the results on screen, longest stall meanwhile in ms, import still running then)."""
    answered: list[bool] = []

    def record(_n: int) -> None:
        answered.append(importing())

    window.search_finished.connect(record)
    bar = window.search_bar
    beat.longest_ms = 0.0
    start = time.perf_counter()
    bar.edit.setText(query)
    bar.edit.returnPressed.emit()  # Enter: at once, without the type-ahead's debounce
    wait_until(lambda: bool(answered), 120)
    took = (time.perf_counter() - start) * 1000
    window.search_finished.disconnect(record)
    return took, beat.longest_ms, answered[0]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--searches", type=int, default=8)
    parser.add_argument("--mode", choices=("keyword", "hybrid", "semantic"), default="keyword")
    parser.add_argument("--embedder", choices=("none", "local"), default="none")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mc-bench-import-"))
    vault = work / "vault"
    resources.copy_sample_vault(vault)
    write_notes(work / "notes", args.files)

    create_app([sys.argv[0]])
    window = MainWindow(AppSettings(QSettings(str(work / "settings.ini"), QSettings.Format.IniFormat)))
    window.resize(1280, 800)
    embedder = "none"
    if args.embedder == "local":
        from memory_curator.core.embed import local  # noqa: PLC0415 - torch loads only when asked for

        embedder = local.LocalEmbedder()
    window.open_vault(vault, embedder=embedder)
    window.show()
    wait_until(lambda: window.list_model.rowCount() > 0 and not window.engine.busy)
    bar = window.search_bar
    bar.mode.setCurrentIndex(bar.mode.findData(args.mode))

    idle = Heartbeat()
    idle.start()
    pause(3000)
    idle.stop()
    idle_searches = [search_once(window, idle, QUERIES[i % len(QUERIES)]) for i in range(3)]

    beat = Heartbeat()  # reset for each phase
    overall = Heartbeat()  # over the whole import and its searches
    beat.start()
    overall.start()
    start = time.perf_counter()
    dialog = window.vault_actions.import_paths([work / "notes"])
    wait_until(lambda: dialog.progress.maximum() > 1, 60)
    pause(300)
    import_only_stall = beat.longest_ms
    during: list[tuple[float, float, bool]] = []
    while dialog.running and len(during) < args.searches:
        during.append(search_once(window, beat, QUERIES[len(during) % len(QUERIES)], lambda: dialog.running))
        beat.longest_ms = 0.0
        pause(500)
        import_only_stall = max(import_only_stall, beat.longest_ms)
    wait_until(lambda: dialog.report is not None, 1800)
    import_s = time.perf_counter() - start
    import_only_stall = max(import_only_stall, beat.longest_ms)
    beat.stop()
    overall.stop()
    report = dialog.report
    dialog.close()
    window.close()

    rows = [
        ("files imported", f"{report.count('imported')} of {args.files} in {import_s:.1f} s "
                           f"({args.files / import_s:.0f} files/s, embedder {args.embedder})"),
        ("main thread longest stall, idle 3 s (noise floor)", f"{idle.longest_ms:.0f} ms"),
        (f"{args.mode} search on the idle app, Enter to results", _spread([t for t, _s, _r in idle_searches])),
        ("main thread longest stall during the import (between searches)", f"{import_only_stall:.0f} ms"),
        (f"{args.mode} searches during the import", f"{len(during)}, answered while importing: "
                                                    f"{sum(1 for *_x, r in during if r)}"),
        ("  Enter to results, median / worst", _spread([t for t, _s, _r in during])),
        ("  main thread longest stall while searching", f"{max((s for _t, s, _r in during), default=0):.0f} ms"),
        ("main thread longest stall, import + search (bar: 50 ms)", f"{overall.longest_ms:.0f} ms"),
        ("  of which the main thread was working (the rest it waited for the GIL or a core)",
         f"{overall.longest_busy_ms:.0f} ms"),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"\nThe window during a {args.files}-file import and {args.mode} searches (load {os.getloadavg()[0]:.1f})")
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")
    return 0


def _spread(ms: list[float]) -> str:
    if not ms:
        return "none (the import ended first)"
    return f"{statistics.median(ms):.0f} / {max(ms):.0f} ms"


if __name__ == "__main__":
    sys.exit(main())
