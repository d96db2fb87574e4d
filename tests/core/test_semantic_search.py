"""Semantic and hybrid search with the real bundled model (all-MiniLM-L6-v2)."""

from __future__ import annotations

import threading

import pytest

from embed_helpers import embedded
from memory_curator.core.errors import ValidationError
from memory_curator.core.service import MemoryService

pytestmark = pytest.mark.model


def test_seed_python_programming(svc_local):
    svc_local.save("Python is great")
    svc_local.save("JavaScript is okay")
    embedded(svc_local)
    results = svc_local.search("Python programming")
    assert results[0].memory.content == "Python is great"


def test_paraphrase_is_found_semantically(svc_local):
    target = svc_local.save("I took the dog for a long walk in the park this morning")
    svc_local.save("The quarterly budget review is scheduled for Friday")
    svc_local.save("We migrated the database to PostgreSQL 16")
    embedded(svc_local)
    results = svc_local.search("strolling with my puppy outdoors", mode="semantic", limit=3)
    assert results[0].memory.id == target.id
    assert results[0].distance is not None and 0 < results[0].score <= 1
    # No shared word: keyword search cannot find it, hybrid can.
    assert target.id not in [r.memory.id for r in svc_local.search("strolling with my puppy outdoors", mode="keyword")]
    assert svc_local.search("strolling with my puppy outdoors", mode="hybrid")[0].memory.id == target.id


def test_long_content_is_chunked_and_returned_once(svc_local):
    filler = " ".join(f"Filler sentence number {i} talks about accounting spreadsheets." for i in range(150))
    needle = "The secret launch code for the rocket is kept in the blue safe."
    m = svc_local.save(filler + " " + needle + " " + filler)
    embedded(svc_local)
    assert svc_local.get(m.id).chunk_count > 1
    results = svc_local.search("where is the rocket launch code stored", mode="semantic", limit=5)
    assert [r.memory.id for r in results].count(m.id) == 1
    assert "rocket" in results[0].matched_snippet


def test_vault_remembers_its_model_and_refuses_to_mix(vault_dir, config, local_embedder):
    with MemoryService.open(vault_dir, embedder=local_embedder, config=config) as svc:
        svc.save("remember which model made me")
    with MemoryService.open(vault_dir, embedder="auto", config=config) as svc:
        assert svc.embedder.key == "local:all-MiniLM-L6-v2-dynamic-int8"
    with pytest.raises(ValidationError, match="explicitly"):
        MemoryService.open(vault_dir, embedder="ollama", config=config)


def test_unembedded_memories_are_filled_in_later(vault_dir, config, local_embedder):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        ids = [svc.save(f"note {i} about gardening tomatoes").id for i in range(3)]
    # The explicit way (the CLI's `reindex`): on this thread, with progress.
    with MemoryService.open(vault_dir, embedder=local_embedder, config=config, background=False) as svc:
        assert svc.stats().unembedded_count == 3
        seen = []
        assert svc.reindex_missing(progress=lambda d, t, m: seen.append((d, t))) == 3
        assert seen[-1] == (3, 3)
        assert svc.stats().unembedded_count == 0
        assert svc.search("growing vegetables", mode="semantic")[0].memory.id in ids


def test_rebuild_restores_semantic_search(svc_local):
    m = svc_local.save("Espresso needs finely ground coffee beans")
    embedded(svc_local)
    svc_local.rebuild_index()
    assert svc_local.search("how to make strong coffee", mode="semantic")[0].memory.id == m.id


def test_content_edit_re_embeds(svc_local):
    m = svc_local.save("Cats sleep most of the day")
    embedded(svc_local)
    svc_local.update(m.id, content="Rockets need liquid oxygen")
    embedded(svc_local)
    assert svc_local.get(m.id).chunk_count == 1
    assert svc_local.search("spaceflight propellant", mode="semantic")[0].memory.id == m.id


def test_hybrid_inside_a_transaction_sees_its_uncommitted_rows(svc_local):
    svc_local.save("Python is great")
    with svc_local.store.transaction():
        new = svc_local.save("Zanzibar spice market notes")  # not committed yet
        (hit, *_) = svc_local.search("zanzibar", mode="hybrid")
        assert hit.memory.id == new.id and hit.explanation.keyword_rank == 1


def test_memories_without_vectors_are_embedded_in_the_background_on_open(vault_dir, config, local_embedder):
    """#15.1: a vault of unembedded memories (the sample vault, one written by another program) is embedded
    on open, with no click and no command; the open itself does not wait for it."""
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        ids = [svc.save(f"note {i} about gardening tomatoes").id for i in range(3)]
    with MemoryService.open(vault_dir, embedder=local_embedder, config=config) as svc:
        embedded(svc)
        assert svc.stats().unembedded_count == 0
        progress = svc.embedding.progress
        assert (progress.state, progress.done, progress.total) == ("idle", 3, 3)
        assert svc.search("growing vegetables", mode="semantic")[0].memory.id in ids


def test_memories_another_process_saved_without_vectors_are_embedded_at_the_next_poll(vault_dir, config,
                                                                                        local_embedder):
    """A process without an embedder (the CLI with --embedder none, the desktop app's jobs lane: an import)
    saves while this one is open: its files and rows agree, so no sync runs, and the poll that notices the
    index moved is what starts embedding them (they stayed keyword-only until the vault was opened again)."""
    with MemoryService.open(vault_dir, embedder=local_embedder, config=config) as svc:
        svc.save("warm up: the vault's model and vector table")
        embedded(svc)
        svc.poll_changes()  # the first poll's full scan: the next one is minutes away
        with MemoryService.open(vault_dir, embedder="none", config=config, background=False) as other:
            ids = [other.save(f"note {i} about pruning apple trees").id for i in range(3)]
        assert svc.stats().unembedded_count == 3
        assert svc.poll_changes().index_changed
        embedded(svc)
        assert svc.stats().unembedded_count == 0
        assert svc.search("orchard care", mode="semantic")[0].memory.id in ids


def test_a_call_cut_into_batches_side_by_side_gives_each_text_its_own_vector(local_embedder):
    """The batches of one call run on several threads at once and are put back in the caller's order: each
    vector is the one the text gets alone (texts of many lengths, so that sorting by length reorders them)."""
    texts = [("word " * n).strip() + f" number {n}" for n in (40, 1, 17, 90, 3, 60, 8, 25, 2, 120, 11, 33)] * 3
    together = local_embedder.embed_documents(texts)
    for text, vector in zip(texts, together, strict=True):
        alone = local_embedder.embed_query(text)
        assert sum(a * b for a, b in zip(alone, vector, strict=True)) > 0.9999, text
    assert local_embedder.embed_documents([]) == []


class _Recording:
    """The bundled model, noting the thread each query vector is computed on; ``answers_at_once`` as given."""

    def __init__(self, inner, answers_at_once: bool):
        self._inner, self.answers_at_once, self.threads = inner, answers_at_once, []
        self.provider, self.model = inner.provider, inner.model
        self.multilingual, self.max_chunk_tokens = inner.multilingual, inner.max_chunk_tokens

    @property
    def key(self):
        return self._inner.key

    def dimension(self):
        return self._inner.dimension()

    def embed_documents(self, texts):
        return self._inner.embed_documents(texts)

    def embed_query(self, text):
        self.threads.append(threading.current_thread())
        return self._inner.embed_query(text)

    def status(self):
        return self._inner.status()


@pytest.mark.parametrize("at_once", [True, False])
def test_query_vector_is_handed_to_a_thread_unless_the_embedder_answers_at_once(vault_dir, config, local_embedder,
                                                                                at_once):
    # The hand-off (for Ctrl+C and a remote provider's wait limit) cost a search ~5 ms under load with an
    # instant embedder; one that says it answers at once is called on the searching thread.
    emb = _Recording(local_embedder, at_once)
    svc = MemoryService.open(vault_dir, embedder=emb, config=config)
    try:
        target = svc.save("I took the dog for a long walk in the park this morning")
        svc.save("The quarterly budget review is scheduled for Friday")
        embedded(svc)
        results = svc.search("strolling with my puppy outdoors", mode="semantic", limit=2)
    finally:
        svc.close()
    assert results[0].memory.id == target.id
    assert len(emb.threads) == 1
    assert (emb.threads[0] is threading.current_thread()) == at_once
