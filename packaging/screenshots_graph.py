"""Screenshots of the graph's panes (Entities, and the graph view of a memory) on a small campaign vault made
here with people, places and [[wikilinks]], offscreen: `python packaging/screenshots_graph.py`. Saves
docs/screenshots/entities.png and graph-view.png."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings  # noqa: E402
from screenshots import OUT, SIZE, save, select, settle, wait_until  # also sets the offscreen environment

from memory_curator.core.service import MemoryService  # noqa: E402
from memory_curator.gui.app import create_app  # noqa: E402
from memory_curator.gui.settings import AppSettings  # noqa: E402
from memory_curator.gui.windows.main_window import MainWindow  # noqa: E402

CAMPAIGN = [
    ("The tower rescue", "The party saved the old wizard Gandros from the collapsing tower near Eldoria.",
     ["npc_wizard"]),
    ("What Gandros owes us", "Gandros owes the party a favor for the [[The tower rescue|rescue]]. He promised a map "
     "of the Mirewood.", ["npc_wizard"]),
    ("Gandros at home", "Gandros lives in Eldoria with his cat Mirri. Lady Seraphine visits him on market days.", []),
    ("Market day in Eldoria", "Lady Seraphine bought herbs in Eldoria. Brother Aldric sold candles.", []),
    ("The Mirewood map", "The map of the Mirewood shows the road to the Sunken Temple. See [[What Gandros owes us]].",
     []),
    ("Brother Aldric's warning", "Brother Aldric warned us about the Sunken Temple and the Mirewood at night.", []),
    ("Seraphine's letter", "Lady Seraphine wrote to Gandros about the tower and the Sunken Temple.", []),
]


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="mc-graph-shots-"))
    try:
        vault = work / "vault"
        with MemoryService.open(vault, embedder="none") as svc:
            for title, text, actors in CAMPAIGN:
                svc.save(text, title=title, category="context", actors=actors)
            svc.graph.merge(["npc_wizard"], into="Gandros")
        app = create_app([sys.argv[0]])
        settings = AppSettings(QSettings(str(work / "settings.ini"), QSettings.Format.IniFormat))
        window = MainWindow(settings)
        window.resize(*SIZE)
        window.open_vault(vault, embedder="none")
        window.show()
        wait_until(lambda: window.list_model.rowCount() > 0)
        settle(window)

        pane = window.graph_panes.entities
        window.show_pane(pane)
        wait_until(lambda: pane.proxy.rowCount() > 0)
        pane.table.selectRow(0)
        wait_until(lambda: pane.memories.count() > 0)
        settle(window)
        save(window, "entities")

        select(window, "What Gandros owes us")
        graph = window.graph_panes.graph
        window.show_pane(graph)
        wait_until(lambda: len(graph.view.nodes) > 3)
        settle(window)
        save(window, "graph-view")
        window.close()
        del app
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
