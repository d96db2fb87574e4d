"""Searching from the window: the query goes to the engine's reader, the relevant results come back, the
first one opens, and the keyboard moves through them from the search box (as in a mail client or Obsidian's
quick switcher): Up/Down move, Enter opens the editor, Escape comes back to the box.

Searching is not a recall (``record_access=False``): see ``navigation`` for what is.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer

from memory_curator.core.model import NOT_EMBEDDED_YET, VECTORS_LOADING, SearchResult
from memory_curator.gui.widgets.search_bar import SearchQuery

SEARCH_LIMIT = 50
# While a large vault's vectors still load after opening (14-17 s at 1,000,000 chunks), a search answers by
# keyword; it is asked again this often until semantic ranking has joined in.
AGAIN_MS = 2000


class SearchFlow(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.last_query: SearchQuery | None = None
        window.search_bar.search_requested.connect(self.run)
        window.search_bar.edit.installEventFilter(self)
        view = window.results_view
        view.activated.connect(self._activated)
        view.clicked.connect(self._clicked)

    # -- asking ---------------------------------------------------------------------------------------

    def run(self, q: SearchQuery) -> None:
        w = self.w
        if not q.text:
            self.last_query = None
            w.edit_flow.show_view(w.list_view)
            w.list_label.setText(f"{w.current_filter.label()}: {w.list_model._total}")
            w.edit_flow.update_selection_bar()
            return
        req = w.engine.run(
            lambda svc: svc.search(q.text, limit=SEARCH_LIMIT, mode=q.mode, category=q.category,
                                   session_id=q.session_id, min_salience=q.min_salience, label=q.label,
                                   record_access=False),
            key="search", read=True,
        )
        req.done.connect(lambda found: self._on_results(q, found, found.warnings))
        req.failed.connect(lambda exc: w.status.showMessage(str(exc), 8000))

    def _again(self, q: SearchQuery) -> None:
        """The same search once more, while its keyword-only answer is what the window shows: the result the
        user is on stays selected when it is among the new ones."""
        if self._showing(q):
            self.run(q)

    def _on_results(self, q: SearchQuery, results: list[SearchResult], warnings: tuple[str, ...]) -> None:
        w = self.w
        model = w.results_model
        again = self._showing(q)  # the answer to _again: the row the user is on is kept
        on = model.result(w.results_view.currentIndex().row()) if again else None
        self.last_query = q
        if any(getattr(n, "code", "") == VECTORS_LOADING for n in warnings):
            QTimer.singleShot(AGAIN_MS, self, lambda: self._again(q))
        model.set_results(q.text, results, warnings)
        w.edit_flow.show_view(w.results_view)
        relevant = len(results) - model.weaker_hidden
        weaker = f", {model.weaker_hidden} weaker" if model.weaker_hidden else ""
        w.list_label.setText(f"{relevant} result{'s' if relevant != 1 else ''} for “{q.text}” ({q.mode}){weaker}")
        if warnings:
            w.status.showMessage(" ".join(_with_next_step(n) for n in warnings), 10000)
        w.explanation.clear_result()
        keep = next((row for row in range(model.rowCount()) if on is not None and (r := model.result(row)) is not None
                     and r.memory.id == on.memory.id), None)
        if keep is not None:
            w.results_view.setCurrentIndex(model.index(keep, 0))
        elif relevant and not w.editor.dirty:
            w.results_view.setCurrentIndex(model.index(0, 0))  # the best hit opens; the focus stays in the box
        w.edit_flow.update_selection_bar()
        w.search_finished.emit(relevant)

    # -- the results ----------------------------------------------------------------------------------

    def _show_more_at(self, row: int) -> bool:
        model = self.w.results_model
        if not model.is_more_row(row):
            return False
        model.show_more()
        self.w.results_view.setCurrentIndex(model.index(row, 0))  # the first weaker match
        relevant = self.w.list_label.text().split(", ")[0]
        self.w.list_label.setText(f"{relevant}, with the weaker matches")
        return True

    def _clicked(self, index) -> None:
        self._show_more_at(index.row())  # a slot returns nothing: PySide mishandles a returned bool

    def _activated(self, index) -> None:
        if not self._show_more_at(index.row()):
            self.open_editor()

    def open_editor(self) -> None:
        w = self.w
        if w.editor.item is not None:
            w.show_pane(w.editor)
            w.editor.source.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _move(self, step: int) -> None:
        view = self.w.edit_flow.current_view()
        model = view.model()
        if model.rowCount() == 0:
            return
        row = view.currentIndex().row()
        row = 0 if row < 0 else max(0, min(model.rowCount() - 1, row + step))
        view.setCurrentIndex(model.index(row, 0))
        view.scrollTo(model.index(row, 0))

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() != QEvent.Type.KeyPress or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        key = event.key()
        w = self.w
        if obj is w.search_bar.edit:  # the only object this filter is installed on
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                self._move(1 if key == Qt.Key.Key_Down else -1)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self._showing(w.search_bar.query()):
                index = w.results_view.currentIndex()
                if index.isValid():
                    self._activated(index)
                    return True
        return False  # Enter on a new query searches at once (the bar's own handling)

    def _showing(self, q: SearchQuery) -> bool:
        """Are the results on screen the answer to ``q`` (so Enter means "open", not "search")?"""
        return self.last_query == q and self.w.center_stack.currentWidget() is self.w.results_view


def _with_next_step(warning: str) -> str:
    """The warning, with where the app shows what it is about (the engine's text names no face)."""
    if getattr(warning, "code", "") == NOT_EMBEDDED_YET:
        return f"{warning} Progress is in the status bar."
    return warning
