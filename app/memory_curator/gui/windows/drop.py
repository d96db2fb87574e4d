"""Files and folders dropped on the window: the local paths among the dropped URLs."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData


def local_paths(mime: QMimeData) -> list[Path]:
    if not mime.hasUrls():
        return []
    return [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]
