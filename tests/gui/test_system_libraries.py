"""A missing system library (libxcb-cursor0 and the other XCB libraries Qt 6.5+ needs on X11) is found before
Qt aborts, and the start command prints the one command that installs it instead of Qt's "Could not load the
Qt platform plugin "xcb" ... Reinstalling the application may fix this problem".

The missing library is real: a copy of PySide6's own xcb plugin whose link to libxcb-cursor.so.0 is renamed to
a library no system has, put where Qt looks for platform plugins (QT_QPA_PLATFORM_PLUGIN_PATH)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_curator.gui.system_libraries import (
    debian_package,
    install_command,
    missing_libraries,
    needed_libraries,
    startup_problem,
    xcb_plugin,
)

ABSENT = "libmc-missing.so.0"  # as long as "libxcb-cursor.so.0", so the renamed string fits in place


def broken_plugin_dir(tmp_path: Path) -> Path:
    plugin, _libs = xcb_plugin({})
    data = plugin.read_bytes()
    assert data.count(b"libxcb-cursor.so.0\0") == 1
    folder = tmp_path / "platforms"
    folder.mkdir()
    (folder / "libqxcb.so").write_bytes(data.replace(b"libxcb-cursor.so.0\0", ABSENT.encode() + b"\0"))
    return folder


def test_the_xcb_plugin_is_read_for_the_libraries_it_links():
    plugin, _libs = xcb_plugin({})
    needed = needed_libraries(plugin)
    assert needed[0] == "libQt6XcbQpa.so.6"
    assert {"libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxkbcommon-x11.so.0"} <= set(needed)


def test_a_missing_library_is_named_with_the_command_that_installs_it(tmp_path):
    folder = broken_plugin_dir(tmp_path)
    plugin, libs = xcb_plugin({"QT_QPA_PLATFORM_PLUGIN_PATH": str(folder)})
    missing = missing_libraries(plugin, libs)
    assert ABSENT in missing and not [m for m in missing if m.startswith("libQt")]  # Qt's own travel with us

    env = {"QT_QPA_PLATFORM": "xcb", "QT_QPA_PLATFORM_PLUGIN_PATH": str(folder)}
    message = startup_problem(env)
    assert message is not None and ABSENT in message
    assert f"\n    {install_command(missing)}\n" in message
    for elsewhere in ({**env, "QT_QPA_PLATFORM": "offscreen"}, {**env, "QT_QPA_PLATFORM": "wayland;xcb"},
                      {"QT_QPA_PLATFORM_PLUGIN_PATH": str(folder), "XDG_SESSION_TYPE": "wayland",
                       "WAYLAND_DISPLAY": "wayland-0"}):
        assert startup_problem(elsewhere) is None  # Qt does not load the xcb plugin there


def test_the_start_command_prints_the_fix_instead_of_qts_abort(tmp_path):
    folder = broken_plugin_dir(tmp_path)
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "QT_QPA_PLATFORM_PLUGIN_PATH": str(folder), "DISPLAY": ":99",
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("WAYLAND_DISPLAY", None)
    done = subprocess.run([sys.executable, "-m", "memory_curator", "--vault", str(tmp_path / "vault")], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Could not load the Qt platform plugin" not in done.stderr
    plugin, libs = xcb_plugin({"QT_QPA_PLATFORM_PLUGIN_PATH": str(folder)})
    assert f"\n    {install_command(missing_libraries(plugin, libs))}\n" in done.stderr
    assert not (tmp_path / "vault").exists()  # nothing was started


def test_without_a_display_the_start_command_says_so_instead_of_qts_abort(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"), XDG_SESSION_TYPE="tty")
    done = subprocess.run([sys.executable, "-m", "memory_curator", "--vault", str(tmp_path / "vault")], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "there is no display here" in done.stderr and "Reinstalling" not in done.stderr
    assert "no display" not in (startup_problem({**env, "DISPLAY": ":0"}) or "")  # with one, Qt is left to start


@pytest.mark.parametrize(("soname", "package"), [
    ("libxcb-cursor.so.0", "libxcb-cursor0"), ("libxcb-icccm.so.4", "libxcb-icccm4"),
    ("libxcb-render-util.so.0", "libxcb-render-util0"), ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
    ("libX11-xcb.so.1", "libx11-xcb1"), ("libX11.so.6", "libx11-6"), ("libGL.so.1", "libgl1"),
    ("libdbus-1.so.3", "libdbus-1-3"), ("libglib-2.0.so.0", "libglib2.0-0"), ("libEGL.so.1", "libegl1"),
])
def test_debian_package_names(soname, package):
    assert debian_package(soname) == package


def test_the_install_script_and_the_app_name_the_same_packages(tmp_path):
    script = Path(__file__).resolve().parents[2] / "packaging" / "linux" / "install.sh"
    sonames = ["libxcb-cursor.so.0", "libxkbcommon-x11.so.0", "libX11-xcb.so.1", "libglib-2.0.so.0",
               "libstdc++.so.6", "libdbus-1.so.3"]
    # the script's deb_package function, called on its own
    shell = f'eval "$(sed -n "/^deb_package()/,/^}}/p" "{script}")"; for s in {" ".join(sonames)}; do deb_package "$s"; done'
    got = subprocess.run(["sh", "-c", shell], capture_output=True, text=True, check=True).stdout.split()
    assert got == [debian_package(s) for s in sonames]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_any_file_is_read_without_an_error(tmp_path_factory, tail):
    path = tmp_path_factory.mktemp("elf") / "lib.so"
    for head in (b"", b"\x7fELF\x02\x01\x01", b"\x7fELF\x01\x02\x01"):
        path.write_bytes(head + tail)
        assert isinstance(needed_libraries(path), list)
