"""Searching from the search bar in each mode, with the why-this-result panel; keyword search keeps working
when Ollama is unreachable."""

from __future__ import annotations

import pytest
from gui_helpers import embed_all, search
from PySide6.QtCore import Qt

from memory_curator.gui.models.results import SNIPPET_COLUMN, HtmlRole


@pytest.mark.model
@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
def test_search_in_each_mode_ranks_and_explains(harness, vault_dir, seeded, local_embedder, mode, qtmodeltester):
    w = harness.open(vault_dir, embedder=local_embedder)
    embed_all(harness)
    query = "SQLite vector store" if mode != "semantic" else "which database keeps the embeddings?"
    found = search(harness, query, mode)
    assert found and found[0] == "Vector store", found
    assert w.center_stack.currentWidget() is w.results_view
    if mode == "keyword":
        assert "<b>SQLite</b>" in w.results_model.index(0, SNIPPET_COLUMN).data(HtmlRole)

    w.results_view.setCurrentIndex(w.results_model.index(0, 0))
    why = w.explanation.toPlainText()
    assert "Why “Vector store”" in why
    assert ("Keyword rank (FTS5 / BM25)\n#1" in why) == (mode != "semantic")
    assert ("Cosine distance\n0." in why) == (mode != "keyword")
    assert w.editor.title.text() == "Vector store"  # the hit opens in the editor too
    qtmodeltester.check(w.results_model)


def test_filters_narrow_the_results(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    bar = w.search_bar
    bar.category.setCurrentIndex(bar.category.findData("summaries"))
    assert search(harness, "tests", "keyword") == ["Login bug session"]
    with harness.qtbot.waitSignal(w.search_finished):
        bar.category.setCurrentIndex(0)
    with harness.qtbot.waitSignal(w.search_finished):
        bar.min_salience.setValue(0.95)
    assert w.results_model.rowCount() == 0


def test_clearing_the_query_returns_to_the_list(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    search(harness, "FastAPI", "keyword")
    assert w.center_stack.currentWidget() is w.results_view
    harness.qtbot.keyClick(w.search_bar.edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    harness.qtbot.keyClick(w.search_bar.edit, Qt.Key.Key_Delete)
    harness.qtbot.waitUntil(lambda: w.center_stack.currentWidget() is w.list_view)


def test_ollama_unreachable_keyword_search_still_works(harness, vault_dir, seeded, gui_settings):
    gui_settings.save(ollama_host="http://127.0.0.1:9", ollama_model="nomic-embed-text", embedder="ollama",
                      decay_rates={})
    w = harness.open(vault_dir, embedder="ollama")
    harness.qtbot.waitUntil(lambda: "not reachable" in w.status.embedder.text().lower(), timeout=10000)
    assert search(harness, "FastAPI", "keyword") == ["Python + FastAPI"]
    w.search_bar.edit.clear()
    found = search(harness, "Finnish PostgreSQL-tietokantaa", "hybrid")
    assert found == ["Raportointitietokanta"]  # hybrid falls back to keyword search...
    harness.qtbot.waitUntil(lambda: "keyword results" in w.status.currentMessage())  # ...and says so


def test_japanese_query_finds_japanese_memory(harness, vault_dir, seeded):
    harness.open(vault_dir)
    assert search(harness, "データベース", "keyword")[0] == "データベースの決定"


def test_snippets_show_text_not_markdown_markup():
    from memory_curator.gui.models.results import highlight, plain_excerpt

    md = ("# Vector store: **SQLite** with sqlite-vec\n\n**Decision:** use it.\n- item one, see [the docs](http://x)\n"
          "```bash\nollama serve\n```\n> quoted `code` and content_snippet, 2*3*4")
    assert plain_excerpt(md) == ("Vector store: SQLite with sqlite-vec Decision: use it. item one, see the docs "
                                 "ollama serve quoted code and content_snippet, 2*3*4")
    assert highlight(md, ["sqlite"]).startswith("Vector store: <b>SQLite</b> with")
