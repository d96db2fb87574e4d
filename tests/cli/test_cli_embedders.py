"""The CLI with a real embedder: the loopback Ollama server (OLLAMA_HOST, as a user sets it) and the offline
model. Saves never fail because the embedder is down; reindex says what to do (exit 3) and fills gaps later."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.model

DOG = "I took the dog for a long walk in the park this morning"


@pytest.fixture
def ollama_env(ollama_server, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{ollama_server.port}")  # no scheme, as users often write it
    return ollama_server


def test_ollama_up_down_and_back(cli, ollama_env):
    r = cli("add", DOG, "--json", embedder="ollama")
    assert r.code == 0 and r.json["chunk_count"] == 1
    hits = cli("search", "strolling with my puppy outdoors", "-m", "semantic", "--json", embedder="ollama").json
    assert hits["results"][0]["memory"]["content"] == DOG and hits["warnings"] == []
    assert "embedder:     Ollama nomic-embed-text at 127.0.0.1:" in cli("stats", embedder="ollama").out

    ollama_env.stop()
    r = cli("add", "The quarterly budget review is on Friday", embedder="auto")  # the vault remembers Ollama
    assert r.code == 0 and "(not embedded)" in r.out and "run `memory-curator reindex` later" in r.err
    assert "Ollama is not reachable at http://127.0.0.1:" in r.err and "Start Ollama" in r.err
    r = cli("search", "budget", embedder="auto")
    assert r.code == 0 and "Ollama is not reachable" in r.err and "budget" in r.out.lower()
    assert "keyword only — Ollama not reachable" in cli("stats", embedder="auto").out
    r = cli("reindex", embedder="auto")
    assert r.code == 3 and "ollama serve" in r.err

    ollama_env.start()
    r = cli("reindex", embedder="auto")
    assert r.code == 0 and r.out.strip() == "embedded 1 memory"
    assert cli("stats", "--json").json["stats"]["unembedded_count"] == 0


def test_a_search_before_anything_is_embedded_says_which_command_embeds_now(cli, ollama_env):
    """The engine's warning names no face; the command line adds its own next step (the status bar the app
    names does not exist here, and a command embeds in the background only while it runs)."""
    assert cli("add", DOG).code == 0  # saved by a keyword-only command: no vectors yet
    ollama_env.hang = True  # the background embedding this search starts does not finish before it answers
    r = cli("search", "dog walk", embedder="ollama")
    assert r.code == 0 and "walk in the park" in r.out
    assert "No memory is embedded yet" in r.err and "`memory-curator reindex`" in r.err
    assert "status bar" not in r.err
    assert cli("search", "dog walk", "--json", embedder="ollama").json["warnings"] == [
        "No memory is embedded yet, so these are keyword results; the memories are being embedded in the background."]
    ollama_env.hang = False


def test_missing_model_tells_the_user_to_pull_it(cli, ollama_env):
    ollama_env.models.clear()
    r = cli("add", DOG, embedder="ollama")
    assert r.code == 0 and "saved without embedding (" in r.err and "Run `ollama pull nomic-embed-text`" in r.err
    r = cli("stats", embedder="ollama")
    assert "run `ollama pull nomic-embed-text`" in r.out
    r = cli("reindex", "--json", embedder="ollama")
    assert r.code == 3 and "ollama pull nomic-embed-text" in r.json["error"]["message"]
    r = cli("reindex", "--model", "ollama:bge-m3", embedder="none")
    assert r.code == 3 and "Cannot switch to ollama:bge-m3" in r.err and "ollama pull bge-m3" in r.err


def test_wrong_dimension_is_exit_3_and_reindex_model_repairs_it(cli, ollama_env):
    first = cli("add", DOG, "--json", embedder="ollama").json
    ollama_env.dim = 200
    r = cli("add", "Another memory about budgets", embedder="ollama")
    # #18.5: the save is acknowledged (a retrying script would make a twin), and the warning says why and what to do.
    assert r.code == 0 and "(not embedded)" in r.out
    assert "200-dimensional" in r.err and "reindex --model ollama:nomic-embed-text" in r.err
    r = cli("reindex", "--model", "ollama:nomic-embed-text", embedder="auto")
    assert r.code == 0 and r.out.strip() == "embedded 2 memories"
    assert cli("get", first["id"], "--json").json["chunk_count"] == 1
    assert cli("stats", "--json").json["stats"]["unembedded_count"] == 0


def test_switching_a_keyword_only_vault_to_the_offline_model(cli, local_embedder):
    cli("add", DOG)
    r = cli("reindex", "--model", "local", "--json")
    assert r.code == 0 and r.json == {"embedded": 1}
    hits = cli("search", "walking a puppy", "-m", "semantic", "--json", embedder="auto").json
    assert hits["results"][0]["memory"]["content"] == DOG
    # The vault now belongs to the offline model: another model is refused with a way out.
    r = cli("list", embedder="ollama")
    assert r.code == 2 and "reindex --model" in r.err


def test_rebuild_re_embeds_through_ollama(cli, ollama_env, vault_dir):
    cli("add", DOG, embedder="ollama")
    cli("add", "The quarterly budget review is on Friday", embedder="ollama")
    (vault_dir / "index.db").unlink()  # derived state: rebuilt from the files
    ollama_env.reset_log()
    r = cli("rebuild", "--json", embedder="auto")
    assert r.code == 0 and r.json == {"memories": 2, "problems": []}
    assert len(ollama_env.embedded_texts) >= 2  # the vectors came back from Ollama, not another model
    stats = cli("stats", "--json", embedder="auto").json["stats"]
    assert stats["unembedded_count"] == 0 and stats["embedding_model"] == "ollama:nomic-embed-text"
