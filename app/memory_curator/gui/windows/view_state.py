"""What the window looks like between runs: its geometry, the columns of the list and the results (widths,
order, sort) and the splitters' positions, each as Qt saves it (``saveState``) in the settings."""

from __future__ import annotations


def _columns(w) -> dict:
    return {"window/list_columns": w.list_view.horizontalHeader(),
            "window/result_columns": w.results_view.horizontalHeader()}


def _splitters(w) -> dict:
    return {"window/splitter": w.splitter, "window/editor_splitter": w.editor.split}


def _parts(w) -> dict:
    return {**_columns(w), **_splitters(w)}


def _restore(w, parts: dict) -> None:
    for key, part in parts.items():
        state = w.settings.view_state(key)
        if state:
            part.restoreState(state)  # a state from another version of the columns is refused by Qt


def restore(w) -> None:
    """At construction: the geometry and the columns."""
    geometry = w.settings.view_state("window/geometry")
    if geometry:
        w.restoreGeometry(geometry)
    _restore(w, _columns(w))


def restore_splitters(w) -> None:
    """Once the window is shown at its size: a splitter restored before that shares out a smaller width."""
    _restore(w, _splitters(w))


def save(w) -> None:
    w.settings.set_view_state("window/geometry", w.saveGeometry().data())
    for key, part in _parts(w).items():
        w.settings.set_view_state(key, part.saveState().data())
    w.settings.q.sync()
