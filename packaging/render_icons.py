"""Render resources/icons/memory-curator.svg to the PNG sizes desktops ask for (a hicolor icon theme tree),
and pack those PNGs into the Windows .ico and the macOS .icns the builds there use.

    .venv/bin/python packaging/render_icons.py

Uses Qt's own SVG renderer (in PySide6-Essentials), so no other tool is needed. The output is committed;
re-run this after editing the SVG.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

from memory_curator.appinfo import ICON_SIZES, icon_png, icon_svg  # noqa: E402

ICO_SIZES = (16, 32, 48, 64, 256)  # what Windows picks from for title bars, taskbar and Explorer
# ICNS element types that hold PNG data, by pixel size (Apple's icns format).
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}


def render(renderer: QSvgRenderer, size: int, out: Path) -> None:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(out), "PNG"):
        raise SystemExit(f"Could not write {out}")


def write_ico(pngs: dict[int, bytes], out: Path) -> None:
    """An .ico whose images are PNGs (allowed since Windows Vista): a header, one entry per size, the data."""
    sizes = [s for s in ICO_SIZES if s in pngs]
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, blobs = b"", b""
    for size in sizes:
        data = pngs[size]
        dim = 0 if size >= 256 else size  # 0 means 256 in an ICONDIRENTRY
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(data), offset + len(blobs))
        blobs += data
    out.write_bytes(header + entries + blobs)


def write_icns(pngs: dict[int, bytes], out: Path) -> None:
    elements = b"".join(kind + struct.pack(">I", 8 + len(pngs[size])) + pngs[size]
                        for size, kind in ICNS_TYPES.items() if size in pngs)
    out.write_bytes(b"icns" + struct.pack(">I", 8 + len(elements)) + elements)


def main() -> int:
    _app = QGuiApplication(sys.argv)  # QImage/QPainter need a GUI application for fonts and pixmaps
    renderer = QSvgRenderer(str(icon_svg()))
    if not renderer.isValid():
        raise SystemExit(f"{icon_svg()} is not a valid SVG")
    for size in ICON_SIZES:
        render(renderer, size, icon_png(size))
        print(icon_png(size))
    pngs = {size: icon_png(size).read_bytes() for size in ICON_SIZES}
    for writer, suffix in ((write_ico, ".ico"), (write_icns, ".icns")):
        out = icon_svg().with_suffix(suffix)
        writer(pngs, out)
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
