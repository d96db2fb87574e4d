"""Who the app is to the desktop (id, name, icon) and where its resources are, in a source tree or a build.

The version lives in ``memory_curator.__version__`` alone; the About dialog, ``--version`` and the build read it.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Reverse-DNS id shared by the .desktop file, the AppStream metainfo and the hicolor icon names.
APP_ID = "io.github.memorycurator.MemoryCurator"
DISPLAY_NAME = "Memory Curator"
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)


def resources_dir() -> Path:
    """``resources/``: beside the code in a PyInstaller build, inside the package when installed from a wheel
    (setup.py copies it there), at the top of the source tree otherwise."""
    bundle = getattr(sys, "_MEIPASS", None)  # set by PyInstaller's bootloader in a frozen build
    if bundle:
        return Path(bundle) / "resources"
    packaged = Path(__file__).resolve().parent / "resources"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "resources"


def icon_svg() -> Path:
    return resources_dir() / "icons" / "memory-curator.svg"


def icon_png(size: int) -> Path:
    """The rendered icon of ``size`` pixels, laid out as a freedesktop hicolor theme."""
    return resources_dir() / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
