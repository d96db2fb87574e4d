"""The status bar with a real (loopback) Ollama: which embedder, Embed now, and what happens when it stops."""

from __future__ import annotations

import pytest
from gui_helpers import embed_all, search

from ollama_server import OllamaServer


@pytest.fixture
def ollama(local_embedder, monkeypatch):
    server = OllamaServer(local_embedder).start()
    monkeypatch.setenv("OLLAMA_HOST", server.url)  # the app reads it as the command line does
    yield server
    server.stop()


@pytest.mark.model
def test_status_bar_follows_ollama(harness, vault_dir, seeded, ollama):
    w = harness.open(vault_dir, embedder="ollama")
    harness.qtbot.waitUntil(lambda: f"127.0.0.1:{ollama.port}" in w.status.embedder.text(), timeout=10000)
    assert "nomic-embed-text" in w.status.embedder.text()
    embed_all(harness)  # #15.1: embedded in the background on open, without a click
    assert len(ollama.embedded_texts) >= len(seeded)
    assert search(harness, "which database keeps the embeddings?", "semantic")[0] == "Vector store"

    ollama.stop()
    w.search_bar.edit.clear()
    found = search(harness, "FastAPI backend", "hybrid")
    assert found[0] == "Python + FastAPI"  # keyword results while Ollama is gone
    harness.qtbot.waitUntil(lambda: "keyword results" in w.status.currentMessage())
    w.refresh_status()
    harness.qtbot.waitUntil(lambda: "not reachable" in w.status.embedder.text().lower(), timeout=10000)


@pytest.mark.model
def test_background_embedding_shows_progress_and_pauses(harness, vault_dir, seeded, ollama):
    """#15.1: the status bar shows the background embedding with Pause; paused, it stays paused even when the
    round in progress ends; Resume finishes it, and the first semantic search then works."""
    from memory_curator.gui.widgets.status import EngineStatusBar

    ollama.hang = True  # the first round waits on the server, so the bar can be seen mid-way
    w = harness.open(vault_dir, embedder="ollama")
    bar: EngineStatusBar = w.status
    harness.qtbot.waitUntil(lambda: bar.pending.text() == f"Embedding 0 of {len(seeded)}…", timeout=30000)
    assert bar.embed_progress.isVisible() and bar.pause_button.text() == "Pause"
    found = search(harness, "SQLite vector store", "hybrid")
    assert found[0] == "Vector store"  # keyword results meanwhile, and the message names the status bar, not a command
    harness.qtbot.waitUntil(lambda: "status bar" in w.status.currentMessage(), timeout=10000)
    assert "memory-curator" not in w.status.currentMessage()
    bar.pause_button.click()
    ollama.hang = False
    ollama.stop()  # the held request ends; the unit stays paused
    ollama.start()
    harness.qtbot.waitUntil(lambda: bar.pause_button.text() == "Resume", timeout=30000)
    assert bar.pending.text() == f"Embedding paused ({len(seeded)} left): click Resume"
    assert ollama.embed_inputs == [] and not bar.embed_progress.isVisible()
    bar.pause_button.click()
    embed_all(harness)
    assert not bar.pause_button.isVisible()
    # #12.8: the search thread has an Ollama client of its own (closing one never closes the other's).
    reader, writer = w.engine._reader.executor.service, w.engine._writer.executor.service
    assert reader.embedder is not writer.embedder and reader.embedder.key == writer.embedder.key
    assert reader.embedding.unit is None  # only the writer's unit embeds
    assert search(harness, "which database keeps the embeddings?", "semantic")[0] == "Vector store"


@pytest.mark.model
def test_closing_never_waits_on_a_hung_ollama(harness, vault_dir, seeded, ollama, monkeypatch):
    """#12.8: Engine.shutdown could block the window 30 s per thread while a request hung. With a client timeout
    of an hour, both engine threads have stopped when shutdown returns, the request still unanswered."""
    monkeypatch.setenv("MEMORY_CURATOR_OLLAMA_TIMEOUT", "3600")
    ollama.hang = True
    w = harness.open(vault_dir, embedder="ollama")
    harness.qtbot.waitUntil(lambda: ollama.held >= 1, timeout=30000)  # the background embedding is stuck
    req = w.engine.call("save", "Saved while Ollama hangs")
    with harness.qtbot.waitSignal(req.done, timeout=30000):
        pass
    search(harness, "SQLite vector store", "hybrid")  # the search thread asked too, and gave up after 3 s
    engine = w.engine
    engine.shutdown()
    assert not engine._writer.thread.isRunning() and not engine._reader.thread.isRunning()
    assert ollama.held >= 1


@pytest.mark.model
@pytest.mark.parametrize("switch", [True, False], ids=["switch", "keep"])
def test_a_vault_with_another_model_offers_the_switch(harness, vault_dir, seeded, ollama, local_embedder, switch):
    """Settings say "local", the vault's vectors come from Ollama: opening asks instead of failing, and
    switching re-embeds every memory with the new model in the background."""
    from gui_helpers import answer_next_box
    from PySide6.QtWidgets import QMessageBox

    from memory_curator.core.config import MemoryConfig
    from memory_curator.core.service import MemoryService
    from memory_curator.core.vault.settings import VaultSettings

    with MemoryService.open(vault_dir, embedder="ollama", config=MemoryConfig(ollama_host=ollama.url)) as svc:
        svc.reindex_missing()
    answer_next_box(QMessageBox.StandardButton.Yes if switch else QMessageBox.StandardButton.No)
    w = harness.open(vault_dir, embedder=local_embedder)  # the vault opens either way
    harness.idle(timeout=60000)
    expected = "local:all-MiniLM-L6-v2-dynamic-int8" if switch else "ollama:nomic-embed-text"
    harness.qtbot.waitUntil(lambda: VaultSettings(vault_dir / ".memory-curator").embedding().key == expected,
                            timeout=60000)
    harness.idle(timeout=60000)
    w.refresh_status()
    harness.qtbot.waitUntil(lambda: w.status.pending.text() == "all embedded", timeout=30000)
    assert w.list_model.rowCount() == len(seeded)
