"""Render resources/icons/memory-curator.svg to the PNG sizes desktops ask for (a hicolor icon theme tree).

    .venv/bin/python packaging/render_icons.py

Uses Qt's own SVG renderer (in PySide6-Essentials), so no other tool is needed. The PNGs are committed;
re-run this after editing the SVG.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

from memory_curator.appinfo import ICON_SIZES, icon_png, icon_svg  # noqa: E402


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


def main() -> int:
    _app = QGuiApplication(sys.argv)  # QImage/QPainter need a GUI application for fonts and pixmaps
    renderer = QSvgRenderer(str(icon_svg()))
    if not renderer.isValid():
        raise SystemExit(f"{icon_svg()} is not a valid SVG")
    for size in ICON_SIZES:
        render(renderer, size, icon_png(size))
        print(icon_png(size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
