"""A screenshot of the conflict view on a real git conflict: a vault cloned to a second machine, the same
memory edited on both, `git pull`. Offscreen: `python packaging/screenshots_conflicts.py` saves
docs/screenshots/conflict-view.png."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QSettings  # noqa: E402
from screenshots import OUT, SIZE, save, settle, wait_until  # also sets the offscreen environment

from memory_curator.core.service import MemoryService  # noqa: E402
from memory_curator.gui.app import create_app  # noqa: E402
from memory_curator.gui.settings import AppSettings  # noqa: E402
from memory_curator.gui.windows.conflict_dialog import ConflictDialog  # noqa: E402
from memory_curator.gui.windows.main_window import MainWindow  # noqa: E402

TEXT = """We deploy the web app every Tuesday at 10:00, after the test suite passes on main.

Hotfixes may go out any day; the person on call decides.

Never deploy on Fridays after noon: nobody is around to watch the dashboards."""


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=Me", "-c", "user.email=me@example.com", "-c", "pull.rebase=false",
                    *args], cwd=root, capture_output=True, check=False)


def edit(vault: Path, memory_id: str, **changes) -> None:
    with MemoryService.open(vault, embedder="none") as svc:
        svc.update(memory_id, **changes)
    time.sleep(1.1)  # the other machine's edit comes in another second


def conflicted_vault(work: Path) -> Path:
    laptop, desktop, remote = work / "laptop", work / "desktop", work / "remote.git"
    git(work, "init", "-q", "--bare", "-b", "main", str(remote))
    laptop.mkdir()
    git(laptop, "init", "-q", "-b", "main")
    with MemoryService.open(laptop, embedder="none") as svc:
        svc.save("Everything is in the README.", title="How we document", category="decisions")
        mid = svc.save(TEXT, title="Deploy schedule", category="decisions", keywords=["deploy", "release"]).id
    time.sleep(1.1)
    git(laptop, "remote", "add", "origin", str(remote))
    git(laptop, "push", "-q", "-u", "origin", "main")
    git(work, "clone", "-q", str(remote), str(desktop))
    edit(desktop, mid, content=TEXT.replace("Tuesday at 10:00", "Wednesday at 09:30"),
         keywords=["deploy", "release", "ci"])
    git(desktop, "push", "-q", "origin", "main")
    edit(laptop, mid, content=TEXT.replace("Tuesday at 10:00", "Tuesday at 14:00").replace(
        "the person on call decides.", "the person on call decides and writes it in #ops."), title="Deploy days")
    git(laptop, "pull", "-q", "origin", "main")
    return laptop


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="mc-conflict-shots-"))
    try:
        vault = conflicted_vault(work)
        app = create_app([sys.argv[0]])
        settings = AppSettings(QSettings(str(work / "settings.ini"), QSettings.Format.IniFormat))
        window = MainWindow(settings)
        window.resize(*SIZE)
        window.open_vault(vault, embedder="none")
        window.show()
        wait_until(lambda: window.status.conflicts_button.isVisible())
        settle(window)
        window.status.conflicts_button.click()
        dialog = window.findChild(ConflictDialog)
        wait_until(lambda: dialog.sides is not None)
        dialog.resize(1180, 700)
        settle(window)
        save(dialog, "conflict-view")
        window.close()
        del app
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
