"""The main window: browse pane, memory list or search results, and side panes (editor, why, health).

Views only: every engine call goes through the Engine (worker thread); results come back as signals.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from memory_curator.core.embed.base import Embedder
from memory_curator.core.errors import ValidationError
from memory_curator.core.model import MemoryItem, SearchResult
from memory_curator.gui import commands, graph_panes
from memory_curator.gui.about import show_about
from memory_curator.gui.models.browse import BrowseModel, browse_counts
from memory_curator.gui.models.memory_table import ListFilter, MemoryTableModel
from memory_curator.gui.models.results import HtmlRole, SearchResultsModel
from memory_curator.gui.models.roles import FilterRole, IdRole, ItemRole
from memory_curator.gui.settings import AppSettings
from memory_curator.gui.widgets.editor import MemoryEditor
from memory_curator.gui.widgets.explanation import ExplanationPanel
from memory_curator.gui.widgets.health import HealthPane
from memory_curator.gui.widgets.inbox import InboxPane
from memory_curator.gui.widgets.rich_text_delegate import RichTextDelegate
from memory_curator.gui.widgets.salience import SalienceControl
from memory_curator.gui.widgets.search_bar import SearchBar, SearchQuery
from memory_curator.gui.widgets.status import EngineStatusBar
from memory_curator.gui.widgets.tables import make_table, stretch
from memory_curator.gui.windows.drop import local_paths
from memory_curator.gui.windows.history_dialog import open_history
from memory_curator.gui.windows.vault_actions import VaultActions
from memory_curator.gui.worker import Engine, Request

SEARCH_LIMIT = 50


class MainWindow(QMainWindow):
    vault_opened = Signal(object)  # Path
    changed = Signal(str)  # after an engine change finished: "edit" | "create" | "delete" | "salience"
    search_finished = Signal(int)  # number of results shown

    def __init__(self, settings: AppSettings, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.engine: Engine | None = None
        self.undo_stack = QUndoStack(self)
        self._current_filter = ListFilter()
        self._switching = False
        self._pending_save: dict | None = None  # the editor values being saved, to know when it is clean
        self._requested_embedder: str | Embedder = settings.embedder
        self._switch_model_after_open: tuple[str, str | None] | None = None  # chosen when the models differed
        self.setWindowTitle("Memory Curator")
        self.setAcceptDrops(True)
        self.resize(1280, 800)

        # Left: browse tree
        self.browse_model = BrowseModel(self)
        self.browse = QTreeView(headerHidden=True)
        self.browse.setObjectName("browseTree")
        self.browse.setModel(self.browse_model)
        self._expanded_groups = {"Categories"}  # sessions and keywords can run to hundreds: folded at first
        self.browse.selectionModel().currentChanged.connect(self._browse_selected)

        # Center: search bar, list or results, selection bar
        self.search_bar = SearchBar()
        self.list_model = MemoryTableModel(None, self)
        self.list_view = make_table(0, "memoryList")
        self.list_view.setModel(self.list_model)
        stretch(self.list_view, {1: 90, 2: 62, 3: 128, 4: 72, 5: 74})
        self.list_view.horizontalHeader().setSortIndicator(3, Qt.SortOrder.DescendingOrder)
        self.list_view.setSortingEnabled(True)
        self.results_model = SearchResultsModel(self)
        self.results_view = make_table(4, "searchResults")
        self.results_view.setModel(self.results_model)
        self.results_view.setItemDelegateForColumn(4, RichTextDelegate(HtmlRole, self.results_view))
        stretch(self.results_view, {0: 56, 1: 200, 2: 86, 3: 62})
        self.center_stack = QStackedWidget()
        self.center_stack.addWidget(self.list_view)
        self.center_stack.addWidget(self.results_view)
        self.list_label = QLabel()
        self.selection_salience = SalienceControl()
        self.selection_label = QLabel("Salience of selection")
        self.delete_button = QPushButton("Move to trash")
        self.restore_button = QPushButton("Restore")
        sel_bar = QHBoxLayout()
        sel_bar.addWidget(self.list_label, 1)
        sel_bar.addWidget(self.selection_label)
        sel_bar.addWidget(self.selection_salience, 1)
        sel_bar.addWidget(self.restore_button)
        sel_bar.addWidget(self.delete_button)
        center = QWidget()
        center_lay = QVBoxLayout(center)
        center_lay.setContentsMargins(4, 4, 4, 4)
        center_lay.addWidget(self.search_bar)
        center_lay.addWidget(self.center_stack, 1)
        center_lay.addLayout(sel_bar)

        # Right: panes (editor, why this result, vault health; others register with add_pane)
        self.side = QTabWidget()
        self.side.setObjectName("sidePanes")
        self.editor = MemoryEditor()
        self.explanation = ExplanationPanel()
        self.health = HealthPane()
        self.add_pane("Editor", self.editor)
        self.add_pane("Why this result", self.explanation)
        self.add_pane("Vault health", self.health)
        self.inbox = InboxPane()
        self.add_pane("Inbox", self.inbox)
        self.graph_panes = graph_panes.attach(self)  # Entities and Graph panes, clickable [[wikilinks]]

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.browse)
        split.addWidget(center)
        split.addWidget(self.side)
        split.setSizes([220, 620, 520])
        split.setStretchFactor(1, 1)
        self.setCentralWidget(split)
        self.status = EngineStatusBar()
        self.setStatusBar(self.status)

        self.vault_actions = VaultActions(self)
        self._build_menus()
        self._connect()
        self._update_selection_bar()
        geometry = settings.geometry()
        if geometry:
            self.restoreGeometry(geometry)

    # -- panes ----------------------------------------------------------------------------------------

    def add_pane(self, title: str, widget: QWidget) -> int:
        """Add a side pane (a tab beside the editor). Returns its index."""
        return self.side.addTab(widget, title)

    def show_pane(self, widget: QWidget) -> None:
        self.side.setCurrentWidget(widget)

    # -- vault ----------------------------------------------------------------------------------------

    def open_vault(self, path: Path, embedder: str | Embedder | None = None) -> None:
        """Close the current vault (if any) and open ``path`` on a new engine thread."""
        if self.engine is not None:
            if not self.confirm_discard():
                return
            self.engine.shutdown()
            self.engine.deleteLater()
        self.undo_stack.clear()
        self.editor.load(None)
        self._requested_embedder = embedder or self.settings.embedder
        self.engine = Engine(Path(path), self.settings.memory_config(), self._requested_embedder, self)
        self.list_model.set_engine(self.engine)
        self.results_model.set_results("", [])
        self.engine.opened.connect(lambda _svc: self._on_opened(Path(path)))
        self.engine.open_failed.connect(self._on_open_failed)
        self.engine.changed_elsewhere.connect(self.refresh_after_outside_change)
        self.setWindowTitle(f"Memory Curator — {path}")

    def _on_opened(self, path: Path) -> None:
        self.settings.vault = path
        self.vault_actions.update_recent()
        self._current_filter = ListFilter()
        self.list_model.reload(self._current_filter)
        self.refresh_browse()
        self.refresh_status()
        self.inbox.set_engine(self.engine)
        self.run_long("sync", "Reading changes made while the app was closed…")  # then refreshes everything
        if self._switch_model_after_open is not None:
            provider, model = self._switch_model_after_open
            self._switch_model_after_open = None
            self.run_long("change_embedder", f"Embedding every memory with {model or provider}…",
                          provider=provider, model=model)
        self.vault_opened.emit(path)

    def _on_open_failed(self, exc: object) -> None:
        self.status.embedder.setText("No vault open")
        if isinstance(exc, ValidationError) and exc.field == "embedder" and self.engine is not None:
            self._offer_model_switch(self.engine.vault, exc)
            return
        QMessageBox.critical(self, "Cannot open the vault", f"{exc}\n\nChoose another folder with File › Open vault.")

    def _offer_model_switch(self, path: Path, exc: ValidationError) -> None:
        """The vault's vectors come from another model than the one chosen in Settings: switching is an
        explicit step (every memory is embedded again), so ask; either way the vault opens."""
        requested = self._requested_embedder
        if isinstance(requested, str):
            provider = requested
            model = self.settings.memory_config().ollama_model if provider == "ollama" else None
        else:
            provider, model = requested.provider, requested.model
        box = QMessageBox(QMessageBox.Icon.Question, "Another embedding model",
                          f"{exc}\n\nSwitch this vault to {model or provider}? Every memory is embedded again in "
                          "the background; until then search works by keyword.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.button(QMessageBox.StandardButton.Yes).setText(f"Switch to {model or provider}")
        box.button(QMessageBox.StandardButton.No).setText("Keep the vault's model")
        switch = box.exec() == QMessageBox.StandardButton.Yes
        self._switch_model_after_open = (provider, model) if switch else None
        self.open_vault(path, embedder="auto")  # the vault's own model (or keyword search while it is away)

    # -- refreshing -----------------------------------------------------------------------------------

    def refresh_browse(self) -> None:
        req = self.engine.run(browse_counts, key="browse", read=True)
        req.done.connect(self._on_browse_counts)

    def _on_browse_counts(self, counts) -> None:
        self._switching = True
        try:
            model = self.browse_model
            self._expanded_groups = {model.index(r, 0).data().split(" (")[0] for r in range(model.rowCount())
                                     if self.browse.isExpanded(model.index(r, 0))} or self._expanded_groups
            model.populate(counts)
            for r in range(model.rowCount()):
                if model.index(r, 0).data() in self._expanded_groups:
                    self.browse.expand(model.index(r, 0))
            index = self.browse_model.find(self._current_filter)
            if index is not None:
                self.browse.setCurrentIndex(index)
        finally:
            self._switching = False
        self.search_bar.set_choices(sorted(counts.categories), sorted(counts.sessions))
        self.editor.category.blockSignals(True)
        current = self.editor.category.currentText()
        self.editor.category.clear()
        self.editor.category.addItems(sorted(counts.categories))
        self.editor.category.setCurrentText(current)
        self.editor.category.blockSignals(False)

    def refresh_status(self) -> None:
        req = self.engine.run(lambda svc: (svc.embedder_status(), svc.stats().unembedded_count), key="status",
                              read=True)
        req.done.connect(lambda v: (self.status.show_embedder(*v), self.health.set_embedder(v[0])))

    def refresh_health(self) -> None:
        req = self.engine.call("health", key="health", read=True)
        req.done.connect(self.health.show_health)

    def refresh_after_outside_change(self, *_args) -> None:
        """Another process (CLI, a server) or program (editor, git pull) changed the vault, or the inbox did."""
        self.list_model.reload()
        self.refresh_browse()
        self.refresh_status()
        self.inbox.refresh()

    def track(self, request: Request, kind: str) -> None:
        """Called by undo commands: refresh what the change affects once it is done."""
        request.done.connect(lambda value: self._after_change(kind, value))
        request.failed.connect(self.show_error)

    def _after_change(self, kind: str, value: object) -> None:
        items = value if isinstance(value, list) else [value]
        changed = [it for it in items if isinstance(it, MemoryItem)]
        if kind in ("edit", "salience"):
            for item in changed:
                self.list_model.replace_item(item)
                self.results_model.replace_item(item)
                if self.editor.loaded_id() == item.id and (
                        not self.editor.dirty or self.editor.values() == self._pending_save):
                    self.editor.load(item)
            self._update_selection_bar()
        else:
            self.list_model.reload()
            if self.editor.loaded_id() is not None and kind == "delete" and not self.editor.dirty:
                self.editor.load(None)
        if kind == "create" and changed and self.editor.loaded_id() is None:
            self.editor.load(changed[0])
        self.refresh_browse()
        self.refresh_status()
        self.changed.emit(kind)

    def show_error(self, exc: object) -> None:
        self.status.showMessage(str(exc), 10000)
        QMessageBox.warning(self, "Memory Curator", str(exc))

    # -- browsing and searching -----------------------------------------------------------------------

    def _browse_selected(self, current, _previous) -> None:
        if self._switching or not current.isValid():
            return
        filt = current.data(FilterRole)
        if filt is None:
            return
        self._current_filter = filt
        self.search_bar.edit.blockSignals(True)
        self.search_bar.edit.clear()
        self.search_bar.edit.blockSignals(False)
        self.center_stack.setCurrentWidget(self.list_view)
        self.list_model.reload(filt)
        self._update_selection_bar()

    def _on_list_loaded(self, total: int) -> None:
        if self.current_view() is self.list_view:  # a refresh behind the search results keeps their label
            self.list_label.setText(f"{self._current_filter.label()}: {total}")
        self._update_selection_bar()

    def run_search(self, q: SearchQuery) -> None:
        if not q.text:
            self.center_stack.setCurrentWidget(self.list_view)
            self.list_label.setText(f"{self._current_filter.label()}: {self.list_model._total}")
            return
        req = self.engine.run(
            lambda svc: (svc.search(q.text, limit=SEARCH_LIMIT, mode=q.mode, category=q.category,
                                    session_id=q.session_id, min_salience=q.min_salience), svc.last_warnings),
            key="search", read=True,
        )
        req.done.connect(lambda value: self._on_results(q, *value))
        req.failed.connect(lambda exc: self.status.showMessage(str(exc), 8000))

    def _on_results(self, q: SearchQuery, results: list[SearchResult], warnings: tuple[str, ...]) -> None:
        self.results_model.set_results(q.text, results, warnings)
        self.center_stack.setCurrentWidget(self.results_view)
        self.list_label.setText(f"{len(results)} result(s) for “{q.text}” ({q.mode})")
        if warnings:
            self.status.showMessage(" ".join(warnings), 10000)
        self.explanation.clear_result()
        self._update_selection_bar()
        self.search_finished.emit(len(results))

    # -- selection ------------------------------------------------------------------------------------

    def current_view(self):
        return self.center_stack.currentWidget()

    def selected_items(self) -> list[MemoryItem]:
        view = self.current_view()
        rows = sorted({i.row() for i in view.selectionModel().selectedRows()})
        values = [view.model().index(r, 0).data(ItemRole) for r in rows]
        return [v.memory if isinstance(v, SearchResult) else v for v in values if v is not None]

    def _current_changed(self, current, _previous) -> None:
        if self._switching or not current.isValid():
            return
        value = current.siblingAtColumn(0).data(ItemRole)
        if isinstance(value, SearchResult):
            self.explanation.show_result(value)
            value = value.memory
        if value is None or value.id == self.editor.loaded_id():
            return
        if not self.confirm_discard():
            self._reselect_editor_row()
            return
        self.editor.load(value)

    def _reselect_editor_row(self) -> None:
        """The user chose to stay on unsaved changes: point the list back at the memory being edited."""
        view = self.current_view()
        model = view.model()
        loaded = self.editor.loaded_id()
        row = next((r for r in range(model.rowCount()) if loaded and model.index(r, 0).data(IdRole) == loaded), -1)
        self._switching = True
        try:
            if row >= 0:
                view.setCurrentIndex(model.index(row, 0))
            else:
                view.selectionModel().clearSelection()
        finally:
            self._switching = False

    def _update_selection_bar(self, *_args) -> None:
        items = self.selected_items()
        trash = self._current_filter.trash and self.current_view() is self.list_view
        self.selection_salience.setEnabled(bool(items) and not trash)
        self.delete_button.setEnabled(bool(items) and not trash)
        self.restore_button.setVisible(trash)
        self.restore_button.setEnabled(bool(items))
        self.selection_label.setText(f"Salience of {len(items)} selected" if items else "Salience")
        if items:
            self.selection_salience.set_value(items[0].salience)

    # -- edits (undoable) -----------------------------------------------------------------------------

    def save_editor(self, item: MemoryItem | None, values: dict) -> None:
        if self.engine is None:
            return
        self._pending_save = dict(values)
        if item is None:
            self.undo_stack.push(commands.CreateMemory(self, values))
            return
        before = {"title": item.title, "category": item.category, "keywords": list(item.keywords),
                  "session_id": item.session_id or "", "salience": item.salience, "content": item.content}
        changed = {k: v for k, v in values.items() if v != before.get(k)}
        if not changed:
            self.editor.load(item)
            return
        self.undo_stack.push(commands.EditMemory(self, item.id, {k: before[k] for k in changed}, changed))

    def set_selection_salience(self, value: float) -> None:
        items = [it for it in self.selected_items() if abs(it.salience - value) > 1e-9]
        if items:
            self.undo_stack.push(commands.SetSalience(self, {it.id: it.salience for it in items}, value))

    def delete_selected(self) -> None:
        items = self.selected_items()
        if not items or self._current_filter.trash and self.current_view() is self.list_view:
            return
        if self.editor.loaded_id() in {it.id for it in items}:
            self.editor.load(None)
        label = f"“{items[0].title}”" if len(items) == 1 else f"{len(items)} memories"
        self.undo_stack.push(commands.DeleteMemories(self, [it.id for it in items], label))

    def restore_selected(self) -> None:
        ids = [it.id for it in self.selected_items()]
        if ids:
            self.track(self.engine.run(lambda svc: svc.restore_many(ids)), "create")

    def new_memory(self) -> None:
        if not self.confirm_discard():
            return
        self.editor.load(None, category=self._current_filter.category)
        self.show_pane(self.editor)
        self.editor.title.setFocus()

    def confirm_discard(self) -> bool:
        """Unsaved changes are never lost silently: save, discard, or stay."""
        if not self.editor.dirty:
            return True
        box = QMessageBox(QMessageBox.Icon.Question, "Unsaved changes",
                          f"“{self.editor.title.text() or 'New memory'}” has unsaved changes.",
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("unsavedChangesBox")
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        if answer == QMessageBox.StandardButton.Save:
            self.editor.request_save()
            self.editor.load(self.editor.item)  # the save is queued; its result refreshes the list
            return True
        if answer == QMessageBox.StandardButton.Discard:
            self.editor.load(self.editor.item)
            return True
        return False

    # -- long operations ------------------------------------------------------------------------------

    def run_long(self, method: str, label: str, kind: str = "edit", **kwargs) -> Request:
        """A long engine call with progress and Cancel in the status bar."""
        req = self.engine.call(method, long=True, **kwargs)
        self.status.showMessage(label)
        req.progress.connect(self.status.show_progress)
        self.status.cancel_requested.connect(req.cancel)

        def finished(*_args) -> None:
            self.status.hide_progress()
            self.status.cancel_requested.disconnect(req.cancel)
            self.refresh_health()
            self.refresh_status()
            self.refresh_browse()
            self.list_model.reload()

        req.done.connect(lambda _v: (finished(), self.status.showMessage(f"{label.rstrip('…')}: done.", 5000)))
        req.failed.connect(lambda exc: (finished(), self.status.showMessage(str(exc), 10000)))
        return req

    def repair(self, action: str) -> None:
        method = {"sync": "sync", "embed": "reindex_missing", "rebuild": "rebuild_index"}[action]
        self.run_long(method, {"sync": "Re-reading files…", "embed": "Embedding…", "rebuild": "Rebuilding index…"}[action])

    # -- wiring ---------------------------------------------------------------------------------------

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.vault_actions.populate_file_menu(file_menu)
        edit = bar.addMenu("&Edit")
        self.undo_action = self.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcuts(QKeySequence.StandardKey.Undo)
        self.redo_action = self.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        edit.addAction(self.undo_action)
        edit.addAction(self.redo_action)
        edit.addSeparator()
        self.find_action = self._action(edit, "&Find", "Ctrl+F", self.search_bar.focus)
        self.new_action = self._action(edit, "&New memory", "Ctrl+N", self.new_memory)
        self.save_action = self._action(edit, "&Save memory", "Ctrl+S", self.editor.request_save)
        self.delete_action = self._action(edit, "Move to &trash", QKeySequence.StandardKey.Delete, self.delete_selected)
        memory = bar.addMenu("&Memory")
        self.vault_actions.populate_memory_menu(memory)
        view = bar.addMenu("&View")
        self._action(view, "Vault &health", None, lambda: (self.refresh_health(), self.show_pane(self.health)))
        self._action(view, "&Why this result", None, lambda: self.show_pane(self.explanation))
        self._action(view, "&Inbox", None, lambda: (self.inbox.refresh(), self.show_pane(self.inbox)))
        self.history_action = self._action(memory, "&History…", "Ctrl+Shift+H", lambda: open_history(self))
        help_menu = bar.addMenu("&Help")
        self.about_action = self._action(help_menu, "&About Memory Curator", None, lambda: show_about(self))

    def _action(self, menu, text: str, shortcut, slot) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        self.addAction(action)
        return action

    def _connect(self) -> None:
        self.search_bar.search_requested.connect(self.run_search)
        self.list_model.loaded.connect(self._on_list_loaded)
        self.list_model.failed.connect(lambda msg: self.status.showMessage(msg, 10000))
        for view in (self.list_view, self.results_view):
            view.selectionModel().currentChanged.connect(self._current_changed)
            view.selectionModel().selectionChanged.connect(self._update_selection_bar)
        self.list_model.modelReset.connect(self._update_selection_bar)
        self.results_model.modelReset.connect(self._update_selection_bar)
        self.editor.save_requested.connect(self.save_editor)
        self.selection_salience.committed.connect(self.set_selection_salience)
        self.delete_button.clicked.connect(self.delete_selected)
        self.restore_button.clicked.connect(self.restore_selected)
        self.health.repair_requested.connect(self.repair)
        self.health.refresh_requested.connect(self.refresh_health)
        self.status.embed_requested.connect(lambda: self.repair("embed"))
        self.inbox.reviewed.connect(lambda _kind: (self.list_model.reload(), self.refresh_browse()))
        self.inbox.failed.connect(lambda msg: self.status.showMessage(msg, 10000))
        self.inbox.count_changed.connect(
            lambda n: self.side.setTabText(self.side.indexOf(self.inbox), f"Inbox ({n})" if n else "Inbox"))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if local_paths(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        paths = local_paths(event.mimeData())
        if paths and self.engine is not None:
            event.acceptProposedAction()
            self.vault_actions.import_paths(paths)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        if not self.confirm_discard():
            event.ignore()
            return
        self.settings.set_geometry(self.saveGeometry().data())
        if self.engine is not None:
            self.engine.shutdown()
        event.accept()
