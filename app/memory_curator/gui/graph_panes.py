"""Wires the graph's panes into the main window: Entities and Graph as side panes, clickable [[wikilinks]] in
the editor's preview, and a memory opened from any of them. Kept apart from main_window.py, which only calls
``attach``."""

from __future__ import annotations

from PySide6.QtCore import QObject, QUrl
from PySide6.QtWidgets import QMessageBox

from memory_curator.gui.widgets.entities_pane import EntitiesPane
from memory_curator.gui.widgets.memory_graph_pane import MemoryGraphPane

WIKILINK_SCHEME = "wikilink"


class GraphPanes(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.entities = EntitiesPane(lambda: window.engine)
        self.graph = MemoryGraphPane(lambda: window.engine)
        window.add_pane("Entities", self.entities)
        window.add_pane("Graph", self.graph)
        for pane in (self.entities, self.graph):
            pane.memory_activated.connect(self.open_memory)
            pane.error.connect(self._error)
        window.editor.loaded.connect(self.graph.show_memory)
        window.editor.preview.anchorClicked.connect(self._anchor)
        window.side.currentChanged.connect(self._pane_shown)

    def _pane_shown(self, _index: int) -> None:
        if self.window.side.currentWidget() is self.entities:
            self.entities.refresh()

    def refresh(self) -> None:
        """After the vault changed: the open panes show what is there now."""
        if self.window.side.currentWidget() is self.entities:
            self.entities.refresh()
        self.graph.show_memory(self.window.editor.item)

    def open_memory(self, memory_id: str) -> None:
        engine = self.window.engine
        if engine is None or memory_id == self.window.editor.loaded_id() or not self.window.confirm_discard():
            return
        req = engine.call("get", memory_id, record_access=False, read=True)
        req.done.connect(self._opened)

    def _opened(self, item) -> None:
        if item is None:
            self._error("That memory is no longer in the vault.")
            return
        self.window.editor.load(item)
        self.window.show_pane(self.window.editor)

    def _anchor(self, url: QUrl) -> None:
        if url.scheme() != WIKILINK_SCHEME or self.window.engine is None:
            return
        target = url.path() or url.toString()[len(WIKILINK_SCHEME) + 1 :]
        req = self.window.engine.run(lambda svc: svc.graph.resolve(target), read=True)
        req.done.connect(lambda item: self._opened_link(item, target))

    def _opened_link(self, item, target: str) -> None:
        if item is None:
            self._error(f"No memory is called “{target}” yet: the link names an entity (see Entities).")
            return
        self.open_memory(item.id)

    def _error(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 8000)
        if not self.window.isVisible():
            return
        if "fix or remove" in text:
            QMessageBox.warning(self.window, "Entities", text)


def attach(window) -> GraphPanes:
    return GraphPanes(window)
