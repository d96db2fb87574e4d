"""Screenshots of the real main window on a copy of the sample vault, offscreen: `make screenshots`.

Saves PNGs of the main states (browse, search results with why-this-result, editor with preview, import
progress, consolidation preview, dark palette) to docs/screenshots/. Uses the bundled offline model when it
is installed, so the semantic parts of the search are real.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OLLAMA_HOST", "http://127.0.0.1:9")  # screenshots never depend on a running Ollama

from PySide6.QtCore import QEventLoop, QSettings, QTimer  # noqa: E402
from PySide6.QtWidgets import QWidget  # noqa: E402
from reportlab.lib.pagesizes import A4  # noqa: E402
from reportlab.pdfgen import canvas  # noqa: E402

from memory_curator.core.embed import local  # noqa: E402
from memory_curator.gui import resources  # noqa: E402
from memory_curator.gui.app import create_app  # noqa: E402
from memory_curator.gui.models.memory_table import ListFilter  # noqa: E402
from memory_curator.gui.models.roles import ItemRole  # noqa: E402
from memory_curator.gui.palette import dark_palette  # noqa: E402
from memory_curator.gui.settings import AppSettings  # noqa: E402
from memory_curator.gui.windows.main_window import MainWindow  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
SIZE = (1400, 860)
FIRST_QUERY = "which database do we use"  # what a new user asks the sample vault first
WANTED = set(sys.argv[1:])  # names of the shots to save (`python packaging/screenshots.py first-search`); all if none


def wait_until(condition, timeout_ms: int = 60000) -> None:
    loop = QEventLoop()
    waited = 0
    while not condition():
        if waited > timeout_ms:
            raise TimeoutError("the window did not reach the expected state")
        QTimer.singleShot(20, loop.quit)
        loop.exec()
        waited += 20


def settle(window: MainWindow, ms: int = 300) -> None:
    wait_until(lambda: not window.engine.busy)
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def save(widget: QWidget, name: str) -> None:
    if WANTED and name not in WANTED:
        return
    path = OUT / f"{name}.png"
    widget.grab().save(str(path))
    print(f"saved {path.relative_to(OUT.parents[1])}")


def select(window: MainWindow, title: str, extend: bool = False) -> None:
    model = window.list_model
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data(ItemRole).title == title)
    sel = window.list_view.selectionModel()
    if extend:
        sel.select(model.index(row, 0), sel.SelectionFlag.Select | sel.SelectionFlag.Rows)
    else:
        window.list_view.setCurrentIndex(model.index(row, 0))


def browse_to(window: MainWindow, filt: ListFilter) -> None:
    window.browse.setCurrentIndex(window.browse_model.find(filt))
    settle(window)


def make_import_folder(root: Path) -> Path:
    folder = root / "meeting-notes"
    folder.mkdir()
    for i in range(120):
        (folder / f"standup_{i:03d}.md").write_text(
            f"# Stand-up {i}\n\nYesterday: release checklist item {i % 9}. Today: review the search ranking.\n",
            encoding="utf-8")
    c = canvas.Canvas(str(folder / "architecture-review.pdf"), pagesize=A4)
    for n, line in enumerate(["Architecture review", "The index is derived state; files are the truth.",
                              "Decision: keep one SQLite file per vault."]):
        c.drawString(72, 800 - 18 * n, line)
    c.save()
    (folder / "scan.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    return folder


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="mc-shots-"))
    try:
        vault = work / "vault"
        resources.copy_sample_vault(vault)
        app = create_app([sys.argv[0]])
        settings = AppSettings(QSettings(str(work / "settings.ini"), QSettings.Format.IniFormat))
        window = MainWindow(settings)
        window.resize(*SIZE)
        embedder = local.LocalEmbedder() if local.installed() else "none"
        window.open_vault(vault, embedder=embedder)
        window.show()
        wait_until(lambda: window.list_model.rowCount() > 0)
        settle(window)
        if embedder != "none":  # the sample vault ships without vectors: they are made in the background on open
            wait_until(lambda: window.status.pending.text() == "all embedded", 300000)
            settle(window, 500)

        # The first search, typed as a new user would: the relevant few, the best one open in the editor.
        bar = window.search_bar
        window.show_pane(window.editor)
        bar.edit.setFocus()
        bar.edit.setText(FIRST_QUERY)
        wait_until(lambda: getattr(window.search_flow.last_query, "text", None) == FIRST_QUERY)
        settle(window)
        save(window, "first-search")
        bar.edit.clear()
        settle(window)

        browse_to(window, ListFilter(category="decisions"))
        select(window, "Vector store: SQLite with sqlite-vec")
        settle(window)
        save(window, "browse")

        bar = window.search_bar
        bar.mode.setCurrentIndex(bar.mode.findData("hybrid"))
        bar.edit.setText("sqlite database for vectors")
        wait_until(lambda: window.results_model.rowCount() > 0)
        settle(window)
        window.results_view.setCurrentIndex(window.results_model.index(0, 0))
        window.show_pane(window.explanation)
        settle(window)
        save(window, "search-results")

        bar.edit.clear()
        browse_to(window, ListFilter())
        select(window, "Tietokannaksi PostgreSQL raportointiin")
        window.show_pane(window.editor)
        window.editor.source.appendPlainText("\n> Muistiinpano: varmuuskopiot ajetaan öisin.")
        settle(window)
        save(window, "editor-preview")
        window.editor.load(window.editor.item)  # leave nothing unsaved

        if WANTED and not WANTED & {"import-progress", "import-results", "consolidation-preview", "dark-japanese"}:
            window.close()
            return 0
        dialog = window.vault_actions.import_paths([make_import_folder(work)])
        dialog.resize(760, 420)
        wait_until(lambda: dialog.progress.maximum() > 1 and dialog.progress.value() > 10, 300000)
        save(dialog, "import-progress")
        wait_until(lambda: dialog.report is not None, 600000)
        settle(window)
        save(dialog, "import-results")
        dialog.close()

        browse_to(window, ListFilter(category="decisions"))
        select(window, "Vector store: SQLite with sqlite-vec")
        select(window, "Markdown files are the source of truth", extend=True)
        select(window, "Embeddings from Ollama nomic-embed-text", extend=True)
        consolidate = window.vault_actions.consolidate_selected()
        consolidate.resize(980, 600)
        wait_until(lambda: consolidate.accept_button.isEnabled())
        settle(window)
        save(consolidate, "consolidation-preview")
        consolidate.reject()

        app.setPalette(dark_palette())
        browse_to(window, ListFilter(category="summaries"))
        select(window, "セッション: 日本語検索の改善")
        window.show_pane(window.editor)
        settle(window)
        save(window, "dark-japanese")

        window.close()
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
