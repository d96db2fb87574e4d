"""Searching as a new user meets it: relevant results only (the rest behind "Show N weaker matches"), the
first result open, the keyboard moving through results from the search box, "Why this result" adding up, and
searching never counted as a recall."""

from __future__ import annotations

import re
import threading

import pytest
from gui_helpers import embed_all, search, select_title
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memory_curator.core.index import vectors
from memory_curator.core.model import VECTORS_LOADING
from memory_curator.core.service import MemoryService
from memory_curator.gui import resources
from memory_curator.gui.models.roles import ItemRole
from memory_curator.gui.widgets.search_bar import SearchQuery
from memory_curator.gui.windows.navigation import RECALL_DWELL_MS


@pytest.fixture
def sample_vault(vault_dir):
    resources.copy_sample_vault(vault_dir)
    return vault_dir


@pytest.mark.model
def test_the_first_search_on_the_sample_vault_lists_the_relevant_few(harness, sample_vault, local_embedder):
    w = harness.open(sample_vault, embedder=local_embedder)
    embed_all(harness)
    shown = search(harness, "which database do we use", "hybrid")
    model = w.results_model
    assert shown[0] == "Vector store: SQLite with sqlite-vec", shown  # the answer comes first...
    assert w.editor.title.text() == shown[0]  # ...and is open
    total = model.shown_count + model.weaker_hidden
    assert total == 20 and model.shown_count <= 6, shown  # not the whole vault
    more = model.index(model.shown_count, 1)
    assert more.data() == f"Show {model.weaker_hidden} weaker matches…" and more.data(ItemRole) is None
    assert re.match(rf"{model.shown_count} results for “which database do we use” \(hybrid\), "
                    rf"{model.weaker_hidden} weaker", w.list_label.text())

    w.results_view.setCurrentIndex(model.index(0, 0))
    assert w.explanation.toPlainText().count("Kept:") == 1

    harness.qtbot.mouseClick(w.results_view.viewport(), Qt.MouseButton.LeftButton,
                             pos=w.results_view.visualRect(more).center())
    assert model.shown_count == 20 and model.rowCount() == 20  # the weaker ones, and no "show more" row
    last = model.result(19)
    w.results_view.setCurrentIndex(model.index(19, 0))
    assert not last.explanation.relevant and "A weaker match:" in w.explanation.toPlainText()


def test_why_this_result_shows_the_arithmetic_to_the_score(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    search(harness, "SQLite vector store", "keyword")
    w.results_view.setCurrentIndex(w.results_model.index(0, 0))
    why = w.explanation.toPlainText()
    result = w.results_model.result(0)
    assert "Keyword: 1.00 × its BM25 over the best BM25 for this query = 1.0000" in why  # the best keyword hit
    m = re.search(r"Score = \(([-0-9.]+) \+ ([-0-9.]+)\) / ([0-9.]+) = ([-0-9.]+)", why)
    assert m, why
    keyword, semantic, best, score = (float(x) for x in m.groups())
    assert (keyword + semantic) / best == pytest.approx(score, abs=1e-3)
    assert score == pytest.approx(result.score, abs=1e-3)
    assert "Kept: it holds the query's words" in why


def test_after_a_search_the_first_result_opens_and_the_keys_move_through_results(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    w.search_bar.edit.setFocus()
    search(harness, "decisions OR backend OR sqlite OR python", "keyword")
    model = w.results_model
    assert model.shown_count >= 2
    assert w.results_view.currentIndex().row() == 0  # selected...
    assert w.editor.loaded_id() == model.result(0).memory.id  # ...and shown
    assert QApplication.focusWidget() is w.search_bar.edit  # typing goes on in the box

    harness.qtbot.keyClick(w.search_bar.edit, Qt.Key.Key_Down)
    assert w.results_view.currentIndex().row() == 1
    assert w.editor.loaded_id() == model.result(1).memory.id
    harness.qtbot.keyClick(w.search_bar.edit, Qt.Key.Key_Up)
    assert w.editor.loaded_id() == model.result(0).memory.id

    w.show_pane(w.health)
    harness.qtbot.keyClick(w.search_bar.edit, Qt.Key.Key_Return)
    assert w.side.currentWidget() is w.editor and QApplication.focusWidget() is w.editor.source
    harness.qtbot.keyClick(w.editor.source, Qt.Key.Key_Escape)
    assert QApplication.focusWidget() is w.search_bar.edit
    assert not w.editor.dirty


def test_a_new_search_does_not_replace_unsaved_changes(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    item = select_title(harness, "Deploy rule")
    w.editor.source.setPlainText("an unsaved thought")
    search(harness, "sqlite", "keyword")
    assert w.editor.loaded_id() == item.id and w.editor.dirty  # nothing selected behind the user's back
    assert not w.results_view.selectionModel().hasSelection()
    w.editor.load(w.editor.item)  # discard, so closing the window asks nothing


def _access_count(vault_dir, config, title: str) -> int:
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        return next(it.access_count for it in svc.list_memories(limit=50) if it.title == title)


def test_searching_is_not_a_recall_but_reading_a_memory_is(harness, vault_dir, seeded, config):
    w = harness.open(vault_dir)
    for text in ("sql", "sqlite", "sqlite vec"):
        w.search_bar.edit.clear()
        search(harness, text, "keyword")
    harness.idle()
    assert _access_count(vault_dir, config, "Vector store") == 0  # typing a query recalls nothing

    w.search_bar.edit.clear()
    harness.qtbot.waitUntil(lambda: w.current_view() is w.list_view)
    select_title(harness, "Python + FastAPI")
    harness.qtbot.waitUntil(lambda: w.list_model.item(w.list_model.row_of(seeded["Python + FastAPI"])).access_count
                            == 1, timeout=RECALL_DWELL_MS + 10000)  # left open: one recall, shown in the list
    harness.qtbot.waitUntil(lambda: "recalled 1×" in w.editor.info.text())  # and below the editor
    assert _access_count(vault_dir, config, "Python + FastAPI") == 1
    assert _access_count(vault_dir, config, "Vector store") == 0


@pytest.mark.model
def test_a_search_answered_by_keyword_while_the_vectors_load_is_asked_again(harness, vault_dir, config,
                                                                            local_embedder, monkeypatch):
    """While a large vault's vectors load after opening, searches answer by keyword (VECTORS_LOADING); the window
    asks again until semantic ranking joins in, keeping the result the user is on."""
    topics = ["the database migration to Postgres", "our cat sleeps on the warm laptop", "release notes for two",
              "the Kubernetes cluster ran out of memory", "a recipe for sourdough bread"]
    with MemoryService.open(vault_dir, embedder=local_embedder, config=config) as svc:
        svc.save_batch([{"content": f"Note {i}: {topics[i % len(topics)]}"} for i in range(40)])
        assert svc.embedding.settle(120)
    monkeypatch.setattr(vectors, "EXACT_MAX_VALUES", 100)  # a vault large enough to load its codes
    # The answer a search gives while the codes still load, from the engine itself (its load held).
    with MemoryService.open(vault_dir, embedder=local_embedder, config=config, sync=False) as loading:
        hold = threading.Event()
        loading.store.vectors.warm(hold)
        answer = loading.search("database migration", mode="hybrid", limit=50, record_access=False)
        hold.set()
    assert [getattr(n, "code", "") for n in answer.warnings] == [VECTORS_LOADING]
    w = harness.open(vault_dir, embedder=local_embedder)
    q = SearchQuery("database migration", "hybrid")
    w.search_flow._on_results(q, answer, answer.warnings)  # as the reader delivers it
    model = w.results_model
    assert all(r.explanation.semantic_rank is None for r in model.results())
    w.results_view.setCurrentIndex(model.index(1, 0))
    on = model.result(1).memory.id
    with harness.qtbot.waitSignal(w.search_finished, timeout=20000):
        pass  # asked again AGAIN_MS later, on the window's own engine (its codes loaded by now)
    assert any(r.explanation.semantic_rank is not None for r in model.results())
    assert model.result(w.results_view.currentIndex().row()).memory.id == on
