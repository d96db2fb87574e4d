"""The embedder's fault matrix (#12), against a real loopback Ollama with real vectors: down, slow (a request
that never answers), 500, wrong dimensions, NaN vectors, model missing. For each: the save is acknowledged at
once with its file and row written exactly once and no vector of it; semantic and hybrid search answer by
keyword with a warning, never raise; the background unit says why it waits; once the fault is gone, "Embed
now" (the same unit) completes the backfill and semantic search works again. Plus #18.4-6 and #12.3/8."""

from __future__ import annotations

import gc
import math
import time
from dataclasses import replace

import httpx
import pytest

from embed_helpers import embedded
from memory_curator.core.embed import resolve
from memory_curator.core.embed.base import EmbedderSpec
from memory_curator.core.errors import EmbedderUnavailable
from memory_curator.core.service import MemoryService
from memory_curator.core.vault.settings import VaultSettings

pytestmark = pytest.mark.model

DOG = "I took the dog for a long walk in the park this morning"
BUDGET = "The quarterly budget review is scheduled for Friday"
PARAPHRASE = "strolling with my puppy outdoors"  # shares no word with DOG


def _set(name, value):
    return lambda server: setattr(server, name, value)


def _restart(server):
    server.hang = False
    server.stop()  # the held requests end (the client sees the connection close)
    server.start()


FAULTS = {  # fault: (break the server, heal it, what the unit's message names)
    "down": (lambda s: s.stop(), lambda s: s.start(), "not reachable"),
    "slow": (_set("hang", True), _restart, None),
    "500": (_set("fail", (500, "llama runner process has terminated")), _set("fail", None), "llama runner"),
    "wrong dimensions": (_set("dim", 256), _set("dim", None), "256-dimensional"),
    "NaN vectors": (_set("nan", True), _set("nan", False), "NaN"),
    "model missing": (lambda s: s.models.clear(), lambda s: s.models.add("nomic-embed-text:latest"), "ollama pull"),
}


def _files(svc):
    return sorted(p.name for p in svc.vault.root.glob("*/*.md"))


def _ids(results):
    return [r.memory.id for r in results]


def _until(check, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.mark.parametrize("fault", list(FAULTS))
def test_embedder_fault_matrix(fault, vault_dir, ollama_server, ollama_config):
    break_server, heal_server, why = FAULTS[fault]
    config = replace(ollama_config, query_embed_wait_s=3.0) if fault == "slow" else ollama_config
    with MemoryService.open(vault_dir, embedder="ollama", config=config) as svc:
        budget = svc.save(BUDGET)
        embedded(svc)
        vectors = svc.store.vectors.count()
        break_server(ollama_server)

        dog = svc.save(DOG)  # acknowledged: no error, whatever the embedder does
        assert svc.count() == 2 and len(_files(svc)) == 2  # one file, one row: a retrying client makes no twin
        if fault == "slow":
            # The save returned while its embedding is still waiting on the server: it never waited on it.
            _until(lambda: ollama_server.held == 1)
            assert svc.embedding.progress.state == "embedding"
        else:
            assert not svc.embedding.wait(60)
            progress = svc.embedding.progress
            assert progress.state == "waiting" and why in progress.message, progress
        assert not svc.get(dog.id).embedded and svc.store.vectors.count() == vectors  # nothing half-written

        for mode in ("semantic", "hybrid"):
            found = svc.search("dog walk park", mode=mode)
            assert _ids(found)[:1] == [dog.id], (mode, _ids(found))
            assert any("keyword results" in w for w in found.warnings), (mode, found.warnings)
        assert svc.get(budget.id).embedded and svc.store.vectors.count() == vectors

        heal_server(ollama_server)
        svc.embedding.retry()  # the status bar's "Embed now"
        embedded(svc)
        assert svc.stats().unembedded_count == 0 and svc.get(dog.id).embedded
        found = svc.search(PARAPHRASE, mode="semantic", limit=1)
        assert _ids(found) == [dog.id] and found.warnings == ()
    assert len(_files(svc)) == 2


def test_a_nan_vector_already_in_the_index_never_breaks_search(vault_dir, ollama_server, ollama_config):
    """#18.4: a NaN vector stored before they were refused (or written by an older version) broke semantic and
    hybrid search for the whole vault. Search leaves that row out; the others rank as before."""
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:
        dog = svc.save(DOG)
        bad = svc.save("The parking meter on the corner is broken")
        embedded(svc)
        with svc.store.transaction():
            svc.store.set_chunks(svc.store.pk_of(bad.id), [(0, 0, 10, "broken")], [[math.nan] * 384], "poisoned")
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:  # after reopen, too
        for mode in ("semantic", "hybrid"):
            assert _ids(svc.search(PARAPHRASE, mode=mode))[0] == dog.id
        assert bad.id in _ids(svc.search("parking meter", mode="hybrid"))  # still found by its words


def test_nan_vectors_are_refused_at_the_door(vault_dir, ollama_server, ollama_config):
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:
        ollama_server.nan = True
        svc.save(DOG)
        assert not svc.embedding.wait(60)
        assert svc.store.vectors.count() == 0 and svc.stats().unembedded_count == 1
        ollama_server.nan = False
        assert svc.reindex_missing() == 1  # the backfill sees it as missing, not as done


def test_a_process_holding_another_model_stops_embedding_and_keeps_the_vectors(vault_dir, ollama_server,
                                                                              ollama_config, local_embedder):
    """#12.3: after one process switched the vault to another model, a save from a process opened earlier
    dropped every new vector and went back to the old model. The vault's model is read from vault.json; the
    old process stops embedding and says so."""
    old = MemoryService.open(vault_dir, embedder=local_embedder, config=ollama_config)
    try:
        old.save(BUDGET)
        embedded(old)
        with MemoryService.open(vault_dir, embedder="auto", config=ollama_config) as new:
            assert new.change_embedder("ollama", "nomic-embed-text") == 1
            vectors = new.store.vectors.count()
        old.save(DOG)
        assert not old.embedding.wait(60)
        progress = old.embedding.progress
        assert progress.state == "stopped" and "ollama:nomic-embed-text" in progress.message, progress
        found = old.search(PARAPHRASE, mode="hybrid")
        assert any("ollama:nomic-embed-text" in w for w in found.warnings), found.warnings
        assert VaultSettings(vault_dir / ".memory-curator").embedding().key == "ollama:nomic-embed-text"
        assert old.store.vectors.model == "ollama:nomic-embed-text" and old.store.vectors.count() == vectors
    finally:
        old.close()
    with MemoryService.open(vault_dir, embedder="auto", config=ollama_config) as svc:  # reopened: its model
        embedded(svc)
        assert svc.stats().unembedded_count == 0 and svc.store.vectors.model == "ollama:nomic-embed-text"


def test_pause_holds_the_background_embedding_and_resume_finishes_it(vault_dir, ollama_server, ollama_config):
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:
        svc.embedding.pause()
        ids = [it.id for it in svc.save_batch([{"content": f"Fact {i} about the garden"} for i in range(5)])]
        assert not svc.embedding.wait(60) and svc.embedding.progress.state == "paused"
        assert ollama_server.embed_inputs == [] and svc.stats().unembedded_count == 5
        svc.embedding.resume()
        embedded(svc)
        assert all(it.embedded for it in svc.get_batch(ids, record_access=False))
        assert svc.embedding.progress.state == "idle" and svc.embedding.progress.done == 5


def test_saves_and_searches_never_share_the_writers_ollama_client(vault_dir, ollama_server, ollama_config):
    """#12.8: the background unit and another thread's service use embedders of their own (one Ollama client
    per thread); probing and failed switches leave no client open."""
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:
        svc.save(DOG)
        embedded(svc)
        forked = resolve.fork(svc.embedder, ollama_config)
        assert forked is not svc.embedder and forked.key == svc.embedder.key
        forked.close()

    def open_clients():
        gc.collect()
        return sum(1 for o in gc.get_objects() if type(o) is httpx.Client and not o.is_closed)

    before = open_clients()
    ollama_server.models.clear()  # `auto` probes Ollama, finds no model, and takes another
    assert resolve.resolve("auto", None, ollama_config).key == "local:all-MiniLM-L6-v2-dynamic-int8"
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:
        with pytest.raises(EmbedderUnavailable):
            svc.change_embedder("ollama", "bge-m3")  # not pulled: refused, its client released
    assert open_clients() == before


def test_the_model_is_recorded_from_the_first_save(vault_dir, ollama_server, ollama_config):
    with MemoryService.open(vault_dir, embedder="ollama", config=ollama_config) as svc:
        svc.save(DOG)
        assert VaultSettings(vault_dir / ".memory-curator").embedding().key == "ollama:nomic-embed-text"
        embedded(svc)
    assert VaultSettings(vault_dir / ".memory-curator").embedding() == EmbedderSpec("ollama", "nomic-embed-text", 384)


def test_external_edits_and_imports_are_embedded_in_the_background(svc_local, tmp_path):
    """#15.1: besides saves and opens, a file another program edited (its vectors are dropped) and the memories
    of an import get their vectors without a click or a command."""
    svc = svc_local
    cat = svc.save("Cats sleep most of the day on the warm sofa")
    embedded(svc)
    path = svc.vault.abs(svc.store.file_info(cat.id).file_path)
    text = path.read_text(encoding="utf-8").replace("Cats sleep most of the day on the warm sofa",
                                                    "Rockets need liquid oxygen and kerosene to reach orbit")
    path.write_text(text, encoding="utf-8")
    assert svc.sync().updated == 1  # what the app's poll does when an editor saved the file
    embedded(svc)
    assert svc.get(cat.id, record_access=False).embedded
    assert _ids(svc.search("spaceflight propellant", mode="semantic", limit=1)) == [cat.id]

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "tea.md").write_text("# Tea\nGreen tea is steeped at eighty degrees for two minutes.\n", encoding="utf-8")
    imported = svc.import_paths([folder]).memory_ids
    embedded(svc)
    assert imported and all(it.embedded for it in svc.get_batch(imported, record_access=False))
    assert svc.stats().unembedded_count == 0


def test_vectors_of_a_text_that_changed_meanwhile_are_not_stored(svc, local_embedder):
    """The background unit reads a memory, embeds it (seconds with a busy Ollama), then writes: a memory another
    thread or process rewrote (or deleted) in between keeps no vectors of its old text."""
    from memory_curator.core import indexing

    old = svc.save("Cats sleep most of the day")
    pk = svc.store.pk_of(old.id)
    new = svc.update(old.id, content="Rockets need liquid oxygen")
    assert indexing.embed_items(svc.store, local_embedder, [(pk, old)], svc.config) == 0
    assert not svc.get(old.id, record_access=False).embedded
    assert indexing.embed_items(svc.store, local_embedder, [(pk, new)], svc.config) == 1
    svc.delete(old.id)
    assert indexing.embed_items(svc.store, local_embedder, [(pk, new)], svc.config) == 0
