"""Before Qt starts on an X11 desktop: are the system libraries its "xcb" platform plugin needs installed?

Qt 6.5 and later need libxcb-cursor0, which many Debian and Ubuntu desktops lack; without it (or another of
the plugin's XCB libraries) Qt prints "Could not load the Qt platform plugin "xcb" ... Reinstalling the
application may fix this problem" and aborts, which sends people the wrong way. So the app reads the libraries
the plugin is linked against (its ELF ``DT_NEEDED`` entries, and those of the Qt libraries beside it),
tries to load each, and when some are missing prints the one command that installs them, before Qt is asked
for a window.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import shutil
import struct
import sys
from pathlib import Path

SHT_DYNAMIC, DT_NULL, DT_NEEDED = 6, 0, 1

# Debian names a library package after the soname (libfoo.so.1 -> libfoo1, libfoo-2.so.0 -> libfoo-2-0);
# these do not follow the rule.
DEBIAN_EXCEPTIONS = {
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libgcc_s.so.1": "libgcc-s1",
    "libstdc++.so.6": "libstdc++6",
}


def needed_libraries(path: Path) -> list[str]:
    """The sonames an ELF shared object is linked against, in order (empty for a file that is not ELF, or
    one too damaged to read: then Qt's own message is all there is to say)."""
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _needed(data)
    except (ValueError, IndexError, struct.error):  # empty, truncated, or offsets pointing outside the file
        return []


def _needed(data: mmap.mmap) -> list[str]:
    if data[:4] != b"\x7fELF":
        return []
    is64, endian = data[4] == 2, "<" if data[5] == 1 else ">"
    if is64:
        (shoff,) = struct.unpack_from(endian + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(endian + "HH", data, 0x3A)
        header, entry, dyn = endian + "IIQQQQI", 16, endian + "qQ"
    else:
        (shoff,) = struct.unpack_from(endian + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(endian + "HH", data, 0x2E)
        header, entry, dyn = endian + "IIIIIII", 8, endian + "iI"
    sections = [struct.unpack_from(header, data, shoff + i * shentsize) for i in range(shnum)]
    out: list[str] = []
    for _name, kind, _flags, _addr, offset, size, link in sections:
        if kind != SHT_DYNAMIC:
            continue
        strings = sections[link][4]  # the section this one links to is its string table
        for pos in range(offset, offset + size, entry):
            tag, value = struct.unpack_from(dyn, data, pos)
            if tag == DT_NULL:
                break
            if tag == DT_NEEDED:
                start = strings + value
                out.append(data[start:data.find(b"\0", start)].decode("utf-8", "replace"))
    return out


def missing_libraries(plugin: Path, qt_libs: Path) -> list[str]:
    """The system libraries ``plugin`` needs, directly or through Qt's own libraries in ``qt_libs``, that the
    dynamic loader cannot find. Qt's libraries travel with the app and are never reported."""
    missing: list[str] = []
    seen: set[str] = set()

    def visit(binary: Path) -> None:
        for soname in needed_libraries(binary):
            if soname in seen:
                continue
            seen.add(soname)
            if (qt_libs / soname).is_file():
                visit(qt_libs / soname)
            elif not soname.startswith("libQt"):
                try:
                    ctypes.CDLL(soname)
                except OSError as exc:
                    # The loader names the first library it could not find: this one or one it needs.
                    absent = str(exc).split(":", 1)[0].strip() or soname
                    if absent not in missing:
                        missing.append(absent)

    visit(plugin)
    return missing


def debian_package(soname: str) -> str:
    if soname in DEBIAN_EXCEPTIONS:
        return DEBIAN_EXCEPTIONS[soname]
    name, _, version = soname.partition(".so")
    version = version.lstrip(".").split(".")[0]
    return f"{name}{'-' if name[-1:].isdigit() else ''}{version}".lower()


def install_command(sonames: list[str]) -> str:
    """The one command that installs ``sonames`` with this system's package manager."""
    if shutil.which("apt-get"):
        packages = dict.fromkeys(debian_package(s) for s in sonames)  # in order, once each
        return "sudo apt install " + " ".join(packages)
    bits = "()(64bit)" if sys.maxsize > 2**32 else ""
    provides = " ".join(f"'{s}{bits}'" for s in sonames)  # RPM systems install by the soname a package provides
    for tool in ("dnf", "zypper"):
        if shutil.which(tool):
            return f"sudo {tool} install {provides}"
    return "install the packages that provide " + ", ".join(sonames)


def xcb_is_chosen(env: os._Environ | dict) -> bool:
    """Will Qt try the xcb plugin first? It does on Linux unless told otherwise or in a Wayland session."""
    if not sys.platform.startswith("linux"):
        return False
    chosen = env.get("QT_QPA_PLATFORM", "").strip()
    if chosen:
        return chosen.split(";")[0].split(":")[0] == "xcb"
    return not (env.get("XDG_SESSION_TYPE") == "wayland" and env.get("WAYLAND_DISPLAY"))


def xcb_plugin(env: os._Environ | dict) -> tuple[Path, Path]:
    """(the xcb plugin Qt will load, Qt's library folder), as Qt finds them."""
    from PySide6.QtCore import QLibraryInfo  # noqa: PLC0415 - QtCore loads no platform plugin

    platforms = env.get("QT_QPA_PLATFORM_PLUGIN_PATH") or str(
        Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms")
    return Path(platforms) / "libqxcb.so", Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.LibrariesPath))


def startup_problem(env: os._Environ | dict | None = None) -> str | None:
    """What to tell the user instead of Qt's abort (missing libraries, or no display at all), or None when
    Qt can start."""
    env = os.environ if env is None else env
    if not xcb_is_chosen(env):
        return None
    plugin, qt_libs = xcb_plugin(env)
    if not plugin.is_file():
        return None  # Qt says which plugins it has; nothing here to add
    missing = missing_libraries(plugin, qt_libs)
    if not missing:
        if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):  # Qt would say "Reinstalling ..." too
            return ("Memory Curator cannot open its window: there is no display here (DISPLAY is not set, as in "
                    "an SSH session). Start it from a desktop session, or use the command line: "
                    "memory-curator --help.")
        return None
    return (f"Memory Curator cannot open its window: Qt's X11 (xcb) platform plugin needs system libraries that "
            f"are not installed ({', '.join(missing)}). Install them with:\n\n"
            f"    {install_command(missing)}\n\n"
            "then start Memory Curator again. (The command line works without them: memory-curator --help.)")
