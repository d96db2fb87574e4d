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
    assert w.status.pending.text() == f"{len(seeded)} not embedded"
    embed_all(harness)
    assert len(ollama.embedded_texts) >= len(seeded)
    assert search(harness, "which database keeps the embeddings?", "semantic")[0] == "Vector store"

    ollama.stop()
    w.search_bar.edit.clear()
    found = search(harness, "FastAPI backend", "hybrid")
    assert found[0] == "Python + FastAPI"  # keyword results while Ollama is gone
    harness.qtbot.waitUntil(lambda: "keyword results" in w.status.currentMessage())
    w.refresh_status()
    harness.qtbot.waitUntil(lambda: "not reachable" in w.status.embedder.text().lower(), timeout=10000)
