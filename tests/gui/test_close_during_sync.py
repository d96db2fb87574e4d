"""Closing the window while the writer is in a poll's sync (~20 s at 1,000,000 files) cancels that sync and
waits for it: before, shutdown gave up after 5 s and Qt aborted the process ('QThread: Destroyed while thread
memory-curator-engine is still running'). The sync is held where it reports progress, so the close always comes
while it runs; a cancelled sync keeps the batches it committed, and the next sync does the rest."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from memory_curator.core import indexing
from memory_curator.core.service import MemoryService

# Runs in a process of its own: an abort at exit would end the test run otherwise.
WINDOW = textwrap.dedent('''
    import sys, threading, time
    from pathlib import Path
    from PySide6.QtCore import QSettings, Qt, QTimer
    from memory_curator.gui.app import create_app
    from memory_curator.gui.settings import AppSettings
    from memory_curator.gui.windows.main_window import MainWindow

    vault, ini, by_hand = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    app = create_app([])
    window = MainWindow(AppSettings(QSettings(ini, QSettings.Format.IniFormat)))
    held = threading.Event()
    state = {"opened": False, "written": False, "closed": False}

    def hold(done, total):
        """On the writer thread, in the poll's sync: wait until the window's close cancels it (60 s at most)."""
        print(f"poll sync at {done} of {total}", flush=True)
        held.set()
        token = window.engine._writer.executor.poll_cancel
        deadline = time.monotonic() + 60
        while not token.cancelled and time.monotonic() < deadline:
            time.sleep(0.01)

    def step():
        if not state["written"] and state["opened"] and not window.engine.busy:  # the opening sync is done
            window.engine._writer.executor.poll_progressed.connect(hold, Qt.ConnectionType.DirectConnection)
            folder = vault / ".staging"  # hidden from the engine until renamed: the poll sees all files at once
            folder.mkdir()
            for i in range(by_hand):  # another program writes files: the next poll syncs
                (folder / f"note-{i:05}.md").write_text(f"---\\ntitle: By hand {i}\\n---\\nwritten by hand {i}\\n")
            folder.rename(vault / "by-hand")
            state["written"] = True
        if held.is_set() and not state["closed"]:
            state["closed"] = True
            window.close()
            print("closed", flush=True)
            app.quit()

    window.vault_opened.connect(lambda _path: state.update(opened=True))
    window.open_vault(vault, embedder="none")
    window.show()
    timer = QTimer()
    timer.timeout.connect(step)
    timer.start(20)
    QTimer.singleShot(120_000, lambda: app.exit(3))
    sys.exit(app.exec())
''')


def test_closing_during_a_polls_sync_cancels_it_and_exits_cleanly(vault_dir, config, tmp_path):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        svc.save("Saved through the engine before the window opens", title="Before")
    by_hand = indexing.WRITE_BATCH + 50  # one batch committed when the sync is held, 50 files left
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path), "OLLAMA_HOST": "http://127.0.0.1:9",
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-c", WINDOW, str(vault_dir), str(tmp_path / "settings.ini"),
                           str(by_hand)], env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"poll sync at {indexing.WRITE_BATCH} of {by_hand}" in done.stdout and "closed" in done.stdout
    assert "QThread" not in done.stderr
    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False) as svc:
        assert svc.count() == 1 + indexing.WRITE_BATCH  # the batch committed before the cancel stayed
        assert svc.sync().added == 50  # the next sync does the rest
        assert svc.count() == 1 + by_hand
        report = svc.health()
        assert report.unreadable == [] and report.missing_files == []
