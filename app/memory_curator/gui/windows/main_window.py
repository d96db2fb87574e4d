"""The main window: browse pane, memory list or search results, and side panes (editor, why, health).

Views only: every engine call goes through the Engine (worker thread); results come back as signals. The
window lays out the widgets and opens vaults; what a selection means is ``editing``, searching is
``search_flow``, back/forward and recalls are ``navigation``, the menus are ``menus``.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QShowEvent, QUndoStack
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from memory_curator.core.embed.base import Embedder
from memory_curator.core.errors import Cancelled, ValidationError
from memory_curator.core.model import MemoryItem
from memory_curator.gui import graph_panes
from memory_curator.gui.models.browse import BrowseModel, browse_counts
from memory_curator.gui.models.memory_table import ListFilter, MemoryTableModel
from memory_curator.gui.models.results import HtmlRole, SearchResultsModel
from memory_curator.gui.models.roles import FilterRole
from memory_curator.gui.settings import AppSettings
from memory_curator.gui.widgets.command_palette import CommandPalette
from memory_curator.gui.widgets.editor import MemoryEditor
from memory_curator.gui.widgets.elided_label import ElidedLabel
from memory_curator.gui.widgets.explanation import ExplanationPanel
from memory_curator.gui.widgets.health import HealthPane
from memory_curator.gui.widgets.inbox import InboxPane
from memory_curator.gui.widgets.opening import OpeningDialog
from memory_curator.gui.widgets.rich_text_delegate import RichTextDelegate
from memory_curator.gui.widgets.salience import SalienceControl
from memory_curator.gui.widgets.search_bar import SearchBar
from memory_curator.gui.widgets.status import EngineStatusBar
from memory_curator.gui.widgets.tables import make_table, stretch
from memory_curator.gui.widgets.tour import Step, Tour
from memory_curator.gui.widgets.undo_keys import pass_undo_to_window
from memory_curator.gui.windows import view_state
from memory_curator.gui.windows.drop import local_paths
from memory_curator.gui.windows.editing import EditFlow
from memory_curator.gui.windows.health_watch import HealthWatch
from memory_curator.gui.windows.menus import build_menus
from memory_curator.gui.windows.model_switch import ModelSwitch
from memory_curator.gui.windows.navigation import Navigation
from memory_curator.gui.windows.search_flow import SearchFlow
from memory_curator.gui.windows.vault_actions import VaultActions
from memory_curator.gui.worker import Engine, Request


class MainWindow(QMainWindow):
    vault_opened = Signal(object)  # Path
    changed = Signal(str)  # after an engine change finished: "edit" | "create" | "delete" | "salience"
    search_finished = Signal(int)  # number of relevant results shown

    def __init__(self, settings: AppSettings, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.engine: Engine | None = None
        self.opening_dialog: OpeningDialog | None = None  # the current vault's (gui/widgets/opening.py)
        self.undo_stack = QUndoStack(self)
        self.current_filter = ListFilter()
        self.switching = False  # the window itself moves a selection: not the user's choice
        self._shown_once = False
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
        self.browse.setAccessibleName("Browse: categories, sessions, keywords and trash")
        self.browse.setModel(self.browse_model)
        self._expanded_groups = {"Categories", "Labels"}  # sessions and keywords can run to hundreds: folded at first

        # Center: search bar, list or results, selection bar
        self.search_bar = SearchBar()
        self.list_model = MemoryTableModel(None, self)
        self.list_view = make_table(0, "memoryList")
        self.list_view.setAccessibleName("Memories")
        self.list_view.setModel(self.list_model)
        stretch(self.list_view, {1: 84, 2: 58, 3: 92, 4: 66, 5: 70})
        self.list_view.horizontalHeader().setSortIndicator(3, Qt.SortOrder.DescendingOrder)
        self.list_view.setSortingEnabled(True)
        self.results_model = SearchResultsModel(self)
        self.results_view = make_table(4, "searchResults")
        self.results_view.setAccessibleName("Search results")
        self.results_view.setModel(self.results_model)
        self.results_view.setItemDelegateForColumn(4, RichTextDelegate(HtmlRole, self.results_view))
        stretch(self.results_view, {0: 56, 1: 220, 2: 84, 3: 58})
        self.center_stack = QStackedWidget()
        self.center_stack.addWidget(self.list_view)
        self.center_stack.addWidget(self.results_view)
        self.list_label = ElidedLabel()
        self.selection_salience = SalienceControl()
        # The label holds the query, of any length: sized by its text it squeezed the selection's slider to a
        # 15 px stub and held the centre pane wide. It takes what is left; the slider keeps room to be dragged.
        self.list_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.selection_salience.slider.setMinimumWidth(80)
        self.selection_label = QLabel("Salience of selection")
        self.delete_button = QPushButton("Move to trash")
        self.restore_button = QPushButton("Restore")
        sel_bar = QHBoxLayout()
        sel_bar.addWidget(self.list_label, 1)
        sel_bar.addWidget(self.selection_label)
        sel_bar.addWidget(self.selection_salience)
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

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.addWidget(self.browse)
        self.splitter.addWidget(center)
        self.splitter.addWidget(self.side)
        self.splitter.setSizes([200, 640, 440])
        self.splitter.setStretchFactor(1, 1)
        self.setCentralWidget(self.splitter)
        self.status = EngineStatusBar()
        self.setStatusBar(self.status)

        self.edit_flow = EditFlow(self)
        self.navigation = Navigation(self)
        self.search_flow = SearchFlow(self)
        self.vault_actions = VaultActions(self)
        self.model_switch = ModelSwitch(self)
        self.health_watch = HealthWatch(self)
        build_menus(self)
        pass_undo_to_window(self)
        self._connect()
        self.edit_flow.update_selection_bar()
        view_state.restore(self)

    # -- panes ----------------------------------------------------------------------------------------

    def add_pane(self, title: str, widget: QWidget) -> int:
        """Add a side pane (a tab beside the editor). Returns its index."""
        widget.setAccessibleName(widget.accessibleName() or title)
        return self.side.addTab(widget, title)

    def show_pane(self, widget: QWidget) -> None:
        self.side.setCurrentWidget(widget)

    def show_tour(self, force: bool = False) -> Tour | None:
        """The first-run tour, unless it was finished or skipped before (``force``: Help › Show the tour)."""
        if self.settings.tour_done and not force:
            return None
        steps = [
            Step(self.search_bar, "Search",
                 "Type what you are looking for: words or a question. Results appear as you type, the best one "
                 "opens on the right. Up/Down move through them, Enter edits, Escape comes back here."),
            Step(self.side, "Edit",
                 "The editor shows the memory as markdown beside a preview; Ctrl+S saves, Ctrl+Z undoes. "
                 "Why this result shows how a hit was ranked."),
            Step(self.list_view, "Import",
                 "Drop PDFs, markdown or text files or whole folders on the window (or File › Import) to turn "
                 "them into memories. Ctrl+K finds any command."),
        ]
        tour = Tour(steps, self)
        tour.finished.connect(lambda: setattr(self.settings, "tour_done", True))
        tour.show()
        self.tour = tour
        return tour

    def open_palette(self) -> CommandPalette:
        palette = CommandPalette(self.menuBar(), self)
        palette.show()
        palette.edit.setFocus()
        return palette

    # -- vault ----------------------------------------------------------------------------------------

    def open_vault(self, path: Path, embedder: str | Embedder | None = None) -> None:
        """Close the current vault (if any) and open ``path`` on a new engine thread."""
        if self.engine is not None:
            if not self.confirm_discard():
                return
            self.engine.shutdown()
            self.engine.deleteLater()
        self.undo_stack.clear()
        self.navigation.reset()
        self.editor.load(None)
        self._requested_embedder = embedder or self.settings.embedder
        self.engine = Engine(Path(path), self.settings.memory_config(), self._requested_embedder, self)
        self.list_model.set_engine(self.engine)
        self.results_model.set_results("", [])
        self.status.watch_opening(self.engine.opening)
        if self.opening_dialog is not None:
            self.opening_dialog.deleteLater()
        self.opening_dialog = OpeningDialog(self.engine.opening, self)
        self.engine.opened.connect(lambda _svc: self._on_opened(Path(path)))
        self.engine.open_failed.connect(self._on_open_failed)
        self.engine.changed_elsewhere.connect(self.refresh_after_outside_change)
        self.engine.syncing.connect(lambda done, total: self.status.showMessage(
            f"Reading files other programs changed: {done:,} of {total:,}", 3000))
        self.setWindowTitle(f"Memory Curator — {path}")

    def _on_opened(self, path: Path) -> None:
        self.settings.vault = path
        self.vault_actions.update_recent()
        self.current_filter = ListFilter()
        self.list_model.reload(self.current_filter)
        self.refresh_browse()
        self.refresh_status()
        self.status.watch_embedding(lambda: self.engine.embedding if self.engine is not None else None)
        self.status.watch_upkeep(lambda: self.engine.upkeep_units if self.engine is not None else [])
        self.inbox.set_engine(self.engine)
        # Then refreshes everything, health included; it speaks only when it found something (a brand-new vault
        # has nothing to read).
        opening = self.run_long("sync", "", done_message=_outside_changes)
        # It also fills a new index (a vault cloned with git has none): the inbox read it empty at the open.
        opening.done.connect(lambda report: self.inbox.refresh() if getattr(report, "changed", 0) else None)
        if self._switch_model_after_open is not None:
            provider, model = self._switch_model_after_open
            self._switch_model_after_open = None
            self.run_long("change_embedder", f"Embedding every memory with {model or provider}…",
                          provider=provider, model=model)
        self.vault_opened.emit(path)

    def _on_open_failed(self, exc: object) -> None:
        self.status.embedder.setText("No vault open")
        if isinstance(exc, Cancelled):  # its message says what was kept (core/index/migrations.Report)
            self.status.showMessage(f"{exc} Open it with File › Open vault.")
            return
        if isinstance(exc, ValidationError) and exc.field == "embedder" and self.engine is not None:
            self.model_switch.refused(self.engine.vault, exc)
            return
        QMessageBox.critical(self, "Cannot open the vault", f"{exc}\n\nChoose another folder with File › Open vault.")

    # -- refreshing -----------------------------------------------------------------------------------

    def refresh_browse(self) -> None:
        req = self.engine.run(browse_counts, key="browse", read=True)
        req.done.connect(self._on_browse_counts)

    def _on_browse_counts(self, counts) -> None:
        self.switching = True
        try:
            model = self.browse_model
            self._expanded_groups = {model.index(r, 0).data().split(" (")[0] for r in range(model.rowCount())
                                     if self.browse.isExpanded(model.index(r, 0))} or self._expanded_groups
            model.populate(counts)
            for r in range(model.rowCount()):
                if model.index(r, 0).data() in self._expanded_groups:
                    self.browse.expand(model.index(r, 0))
            index = self.browse_model.find(self.current_filter)
            if index is not None:
                self.browse.setCurrentIndex(index)
        finally:
            self.switching = False
        self.search_bar.set_choices(sorted(counts.categories), sorted(counts.sessions), sorted(counts.labels))
        self.editor.set_categories(sorted(counts.categories))

    def refresh_status(self) -> None:
        req = self.engine.run(lambda svc: (svc.embedder_status(), svc.counts.unembedded()), key="status",
                              read=True)
        req.done.connect(lambda v: (self.status.show_embedder(*v), self.health.set_embedder(v[0])))
        self.engine.run(lambda svc: len(svc.conflicts.list()), key="conflict-count").done.connect(self.status.show_conflicts)

    def refresh_health(self) -> None:
        self.health_watch.check_now()

    def refresh_after_outside_change(self, *_args) -> None:
        """Another process (CLI, a server) or program (editor, git pull) changed the vault, or the inbox did."""
        self.list_model.reload()
        self.refresh_browse()
        self.refresh_status()
        self.inbox.refresh()
        self.health_watch.check()

    def track(self, request: Request, kind: str) -> None:
        """Called by undo commands: refresh what the change affects once it is done."""
        request.done.connect(lambda value: self.after_change(kind, value))
        request.failed.connect(self.show_error)

    def after_change(self, kind: str, value: object) -> None:
        items = value if isinstance(value, list) else [value]
        changed = [it for it in items if isinstance(it, MemoryItem)]
        if kind in ("edit", "salience"):
            for item in changed:
                self.list_model.replace_item(item)
                self.results_model.replace_item(item)
                if self.editor.loaded_id() == item.id and (
                        not self.editor.dirty or self.editor.values() == self._pending_save):
                    self.editor.load(item)
            self.edit_flow.update_selection_bar()
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

    # -- browsing -------------------------------------------------------------------------------------

    def _browse_selected(self, current, _previous=None) -> None:
        if self.switching or not current.isValid():
            return
        filt = current.data(FilterRole)
        if filt is None:
            return
        self.current_filter = filt
        self.search_bar.edit.blockSignals(True)
        self.search_bar.edit.clear()
        self.search_bar.edit.blockSignals(False)
        self.search_flow.last_query = None
        self.edit_flow.show_view(self.list_view)
        self.list_model.reload(filt)
        self.edit_flow.update_selection_bar()

    def _browse_clicked(self, index) -> None:
        """A click on the node already selected (say "All memories" under search results) goes back to it."""
        if index == self.browse.currentIndex() and self.current_view() is not self.list_view:
            self._browse_selected(index)

    def _on_list_loaded(self, total: int) -> None:
        if self.current_view() is self.list_view:  # a refresh behind the search results keeps their label
            self.list_label.setText(f"{self.current_filter.label()}: {total}")
        self.edit_flow.update_selection_bar()

    # -- what the selection acts on (see editing.py) --------------------------------------------------

    def current_view(self):
        return self.edit_flow.current_view()

    def selected_items(self) -> list[MemoryItem]:
        return self.edit_flow.selected_items()

    def confirm_discard(self) -> bool:
        return self.edit_flow.confirm_discard()

    def restore_selected(self) -> None:
        self.edit_flow.restore_selected()

    # -- long operations ------------------------------------------------------------------------------

    def run_long(self, method: str, label: str, kind: str = "edit", done_message=None, **kwargs) -> Request:
        """A long engine call with progress and Cancel in the status bar. ``done_message(result)``: what to
        say when it is done ("" says nothing), instead of "<label>: done."."""
        req = self.engine.call(method, long=True, **kwargs)
        if label:
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

        def done(value) -> None:
            finished()
            text = done_message(value) if done_message is not None else f"{label.rstrip('…')}: done."
            if text:
                self.status.showMessage(text, 5000)
            else:
                self.status.clearMessage()

        req.done.connect(done)
        req.failed.connect(lambda exc: (finished(), self.status.showMessage(str(exc), 10000)))
        return req

    def repair(self, action: str) -> None:
        if action == "embed":  # the background unit embeds (status bar: progress, Pause/Resume)
            self.status.embed_now()
            return
        method = {"sync": "sync", "embed": "reindex_missing", "rebuild": "rebuild_index"}[action]
        self.run_long(method, {"sync": "Re-reading files…", "embed": "Embedding…", "rebuild": "Rebuilding index…"}[action])

    # -- wiring ---------------------------------------------------------------------------------------

    def _connect(self) -> None:
        edit = self.edit_flow
        self.browse.selectionModel().currentChanged.connect(self._browse_selected)
        self.browse.clicked.connect(self._browse_clicked)
        self.list_model.loaded.connect(self._on_list_loaded)
        self.list_model.failed.connect(lambda msg: self.status.showMessage(msg, 10000))
        for view in (self.list_view, self.results_view):
            view.selectionModel().currentChanged.connect(edit.current_changed)
            view.selectionModel().selectionChanged.connect(edit.update_selection_bar)
        self.list_model.modelReset.connect(edit.update_selection_bar)
        self.results_model.modelReset.connect(edit.update_selection_bar)
        self.editor.save_requested.connect(edit.save_editor)
        self.editor.restore_requested.connect(lambda mid: edit.restore([mid]))
        self.selection_salience.committed.connect(edit.set_selection_salience)
        self.delete_button.clicked.connect(edit.delete_selected)
        self.restore_button.clicked.connect(edit.restore_selected)
        self.health.repair_requested.connect(self.repair)
        self.health.refresh_requested.connect(self.refresh_health)
        self.status.conflicts_requested.connect(self.conflicts_action.trigger)
        self.status.embedding_settled.connect(lambda: (self.refresh_status(), self.refresh_health()))
        self.health.conflicts_requested.connect(self.conflicts_action.trigger)
        self.inbox.reviewed.connect(lambda _kind: (self.list_model.reload(), self.refresh_browse()))
        self.inbox.failed.connect(lambda msg: self.status.showMessage(msg, 10000))
        self.inbox.count_changed.connect(
            lambda n: self.side.setTabText(self.side.indexOf(self.inbox), f"Inbox ({n})" if n else "Inbox"))
        self.navigation.recalled.connect(lambda item: (self.list_model.replace_item(item),
                                                       self.results_model.replace_item(item),
                                                       self.editor.show_counts(item)))
        self.list_model.loaded.connect(self._list_counts_to_editor)

    def _list_counts_to_editor(self, _total: int) -> None:
        row = self.list_model.row_of(self.editor.loaded_id() or "")
        if row >= 0:
            self.editor.show_counts(self.list_model.item(row))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if local_paths(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        paths = local_paths(event.mimeData())
        if paths and self.engine is not None:
            event.acceptProposedAction()
            self.vault_actions.import_paths(paths)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            view_state.restore_splitters(self)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        if not self.confirm_discard():
            event.ignore()
            return
        view_state.save(self)
        if self.engine is not None:
            self.engine.shutdown()
        event.accept()


def _outside_changes(report) -> str:
    """What the opening sync found: files added, changed or removed while the app was closed."""
    changed = getattr(report, "changed", 0)
    if changed and changed == report.added and not report.unchanged:
        # Every file new to the index: the sample vault the first start just wrote, a folder of notes opened
        # for the first time. Not "changes made while the app was closed": the app never had them.
        return f"Read {changed:,} memor{'ies' if changed != 1 else 'y'} from the vault's files."
    return f"Read {changed} change{'s' if changed != 1 else ''} made while the app was closed." if changed else ""
