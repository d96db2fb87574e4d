"""The test server against the official ``ollama`` client, and OllamaEmbedder on its own."""

from __future__ import annotations

import math

import httpx
import ollama
import pytest

from memory_curator.core.embed.ollama import OllamaEmbedder, normalize_host
from memory_curator.core.errors import EmbedderUnavailable, EmbeddingError

pytestmark = pytest.mark.model


@pytest.fixture
def embedder(ollama_server):
    """OllamaEmbedder(model, **options) on the test server, closed after the test."""
    made = []

    def make(model="nomic-embed-text", timeout=10.0, **options):
        made.append(OllamaEmbedder(model, ollama_server.url, timeout=timeout, **options))
        return made[-1]

    yield make
    for emb in made:
        emb.close()


def test_official_client_speaks_to_the_server(ollama_server):
    with ollama.Client(host=ollama_server.url, timeout=5) as client:
        assert [m.model for m in client.list().models] == ["nomic-embed-text:latest"]
        resp = client.embed(model="nomic-embed-text", input=["a cat sat on the mat", "dogs bark"])
        assert len(resp.embeddings) == 2 and len(resp.embeddings[0]) == 384
        assert math.isclose(sum(x * x for x in resp.embeddings[0]), 1.0, rel_tol=1e-3)
        assert ollama_server.embed_inputs == [["a cat sat on the mat", "dogs bark"]]
        with pytest.raises(ollama.ResponseError) as err:
            client.embed(model="bge-m3", input="x")
        assert err.value.status_code == 404 and 'model "bge-m3" not found, try pulling it first' in str(err.value)
    version = httpx.get(f"{ollama_server.url}/api/version", timeout=5)  # the client has no call for it
    assert version.status_code == 200 and version.json()["version"].count(".") == 2


def test_embedder_adds_nomic_task_prefixes(ollama_server, embedder):
    emb = embedder("nomic-embed-text")
    emb.embed_documents(["We chose SQLite."])
    emb.embed_query("which database?")
    assert ollama_server.embedded_texts == ["search_document: We chose SQLite.", "search_query: which database?"]


def test_other_models_get_no_prefix(ollama_server, embedder):
    ollama_server.models.add("bge-m3:latest")
    emb = embedder("bge-m3")
    emb.embed_documents(["plain"])
    assert ollama_server.embedded_texts == ["plain"]
    assert emb.multilingual


def test_batches_follow_batch_size(ollama_server, embedder):
    emb = embedder("nomic-embed-text", batch_size=3)
    vecs = emb.embed_documents([f"text {i}" for i in range(7)])
    assert len(vecs) == 7 and emb.dimension() == 384
    assert [len(b) for b in ollama_server.embed_inputs] == [3, 3, 1]


def test_status_reports_each_state(ollama_server, embedder):
    emb = embedder("nomic-embed-text")
    st = emb.status()
    assert st.available and f"127.0.0.1:{ollama_server.port}" in st.detail
    assert not embedder("mxbai-embed-large").status().available
    assert "ollama pull mxbai-embed-large" in embedder("mxbai-embed-large").status().detail
    ollama_server.delay_s = 1.0
    st = embedder("nomic-embed-text", timeout=0.2).status()
    assert not st.available and st.detail.endswith("did not answer within 0.2 s")
    ollama_server.stop()
    st = emb.status()
    assert not st.available and "not reachable" in st.detail


def test_missing_model_names_the_pull_command(ollama_server, embedder):
    ollama_server.models.clear()
    emb = embedder("nomic-embed-text")
    with pytest.raises(EmbedderUnavailable, match="ollama pull nomic-embed-text"):
        emb.embed_documents(["x"])


def test_stopped_server_is_unavailable_and_says_how_to_start_it(ollama_server, embedder):
    ollama_server.stop()
    emb = embedder("nomic-embed-text")
    with pytest.raises(EmbedderUnavailable, match="ollama serve"):
        emb.embed_query("x")


def test_timeout_is_unavailable_and_says_it_was_slow(ollama_server, embedder):
    ollama_server.delay_s = 2.0
    emb = embedder("nomic-embed-text", timeout=0.2)
    with pytest.raises(EmbedderUnavailable, match="did not answer within 0.2 s"):
        emb.embed_query("x")


def test_server_error_is_an_embedding_error_with_the_servers_reason(ollama_server, embedder):
    ollama_server.fail = (500, "llama runner process has terminated: signal: killed")
    emb = embedder("nomic-embed-text")
    with pytest.raises(EmbeddingError, match="llama runner process has terminated") as err:
        emb.embed_documents(["x"])
    assert not isinstance(err.value, EmbedderUnavailable)


@pytest.mark.parametrize("given, url", [
    ("127.0.0.1", "http://127.0.0.1:11434"),
    ("0.0.0.0:11434", "http://0.0.0.0:11434"),
    ("localhost:9999/", "http://localhost:9999"),
    ("[::1]", "http://[::1]:11434"),
    ("http://example.com", "http://example.com"),
    ("https://example.com:8443", "https://example.com:8443"),
    ("", "http://127.0.0.1:11434"),
])  # fmt: skip
def test_hosts_are_read_as_ollama_reads_them(given, url):
    assert normalize_host(given) == url


def test_a_host_without_port_reaches_the_server_on_its_port(ollama_server, embedder):
    # OLLAMA_HOST as users write it: no scheme. (A bare "127.0.0.1" would mean port 11434.)
    emb = embedder("nomic-embed-text")
    assert OllamaEmbedder("nomic-embed-text", f"127.0.0.1:{ollama_server.port}").status().available
    assert emb.where == f"127.0.0.1:{ollama_server.port}"
