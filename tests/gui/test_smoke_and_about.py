"""The packaged app's self-check (MEMORY_CURATOR_SMOKE_TEST, run by packaging/smoke.py against a build) and the
About box: both on the real main window, offscreen."""

from __future__ import annotations

import os
import subprocess
import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from memory_curator import __version__
from memory_curator.gui.about import app_icon, build_about_box
from memory_curator.gui.app import create_app
from memory_curator.gui.smoke import SMOKE_ENV, SmokeCheck
from memory_curator.gui.windows.main_window import MainWindow


def test_smoke_check_searches_through_the_window_and_reports_the_count(harness, seeded, vault_dir, capsys):
    window = harness.open(vault_dir)
    codes: list[int] = []
    SmokeCheck(window, "sqlite", codes.append)
    harness.qtbot.waitUntil(lambda: bool(codes), timeout=20000)
    assert codes == [0]
    shown = window.results_model.shown_count
    assert shown >= 1
    out = capsys.readouterr().out
    assert "smoke: window shown" in out and f"smoke: keyword search 'sqlite': {shown} results" in out


def test_smoke_check_fails_when_no_vault_is_open(qtbot, gui_settings, capsys):
    window = MainWindow(gui_settings)
    qtbot.addWidget(window)
    codes: list[int] = []
    SmokeCheck(window, "sqlite", codes.append)
    qtbot.waitUntil(lambda: bool(codes), timeout=5000)
    assert codes == [1] and "no vault is open" in capsys.readouterr().out


def test_about_box_shows_the_one_version_and_the_app_has_its_icon(qtbot):
    app = create_app([])
    assert app.applicationVersion() == __version__
    assert not QApplication.windowIcon().isNull() and not app_icon().isNull()
    box = build_about_box()
    qtbot.addWidget(box)
    assert f"Memory Curator {__version__}" in box.text()
    assert not box.iconPixmap().isNull()


def test_the_about_box_icon_is_sharp_on_a_2x_screen(tmp_path):
    """At scale 2 the box shows the 256 px image at 128 logical pixels, not the 128 px one scaled up."""
    code = ("from memory_curator.gui.app import create_app\nfrom memory_curator.gui.about import build_about_box\n"
            "create_app([])\np = build_about_box().iconPixmap()\n"
            "print(p.devicePixelRatio(), p.width(), p.deviceIndependentSize().width())")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "QT_SCALE_FACTOR": "2", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["2.0", "256", "128.0"], done.stderr[-2000:]


def test_help_about_opens_the_about_box_with_the_version(harness, seeded, vault_dir):
    window = harness.open(vault_dir)
    menus = {action.text(): action.menu() for action in window.menuBar().actions()}
    assert window.about_action in menus["&Help"].actions()
    seen: list[str] = []

    def read_and_close() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        seen.append(box.text())
        box.accept()

    QTimer.singleShot(0, read_and_close)
    window.about_action.trigger()  # modal: returns once the box is closed
    assert seen and f"Memory Curator {__version__}" in seen[0]


def test_the_app_run_as_a_program_honours_the_smoke_variable(seeded, vault_dir, tmp_path):
    """The path a built program takes: `python -m memory_curator --vault V`, offscreen, in its own process."""
    env = {**os.environ, SMOKE_ENV: "sqlite", "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "OLLAMA_HOST": "http://127.0.0.1:9"}
    result = subprocess.run([sys.executable, "-m", "memory_curator", "--vault", str(vault_dir)], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "smoke: window shown" in result.stdout
    assert "smoke: keyword search 'sqlite': 2 results" in result.stdout


def test_the_smoke_check_of_a_first_run_asks_nothing(tmp_path):
    """The README's start command on a fresh machine: no --vault, an empty default vault. The first-run
    question (start from the sample vault?) would wait for an answer that an unattended check never gives."""
    env = {**os.environ, SMOKE_ENV: "sqlite", "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "OLLAMA_HOST": "http://127.0.0.1:9"}
    env.pop("MEMORY_CURATOR_VAULT", None)
    result = subprocess.run([sys.executable, "-m", "memory_curator"], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"window shown (Memory Curator — {tmp_path / 'data' / 'memory-curator' / 'vault'})" in result.stdout
    assert "smoke: keyword search 'sqlite': 0 results" in result.stdout
