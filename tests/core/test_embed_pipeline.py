"""Embedding encodes the next batch while the last one's vectors are written (core/indexing.embed_items): every
memory still gets its own text's vector, the provider is called one batch at a time in the same batches, off
the thread that holds the connection, and a cancel or a failing batch keeps what was written before it."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from embed_helpers import TextHashEmbedder, text_vector
from memory_curator.core.errors import Cancelled, EmbedderUnavailable
from memory_curator.core.progress import CancelToken
from memory_curator.core.service import MemoryService

BATCH = 4


@pytest.fixture
def emb():
    return TextHashEmbedder()


@pytest.fixture
def svc(vault_dir, config, emb):
    with MemoryService.open(vault_dir, embedder=emb, config=replace(config, embed_batch_size=BATCH),
                            background=False) as svc:
        yield svc


def _save(svc, emb, n=30):
    emb.fail_from = 0  # written unembedded: the test embeds them itself
    created = svc.save_batch([{"content": f"note {i} about topic {i % 7}", "title": f"t{i}"} for i in range(n)])
    emb.fail_from, emb.calls[:] = None, []
    assert svc.store.unembedded_count() == n
    return created.created_ids


def _own_vectors(svc) -> int:
    """Memories whose stored vector is their own text's (exact nearest neighbour of it, at distance 0)."""
    own = 0
    ids = [r[0] for r in svc.store.conn.execute("SELECT id FROM memories")]
    for it in svc.store.get_many(ids).values():
        if svc.store.pk_of(it.id) in svc.store.unembedded_pks([svc.store.pk_of(it.id)]):
            continue
        (chunk, dist), = svc.store.vectors.knn(text_vector(f"{it.title}\n{it.content}"), 1, exact=True)
        pk, = svc.store.conn.execute("SELECT memory_pk FROM memory_chunks WHERE chunk_id = ?", (chunk,)).fetchone()
        own += pk == svc.store.pk_of(it.id) and dist < 1e-5
    return own


def test_every_memory_gets_its_own_texts_vector(svc, emb):
    _save(svc, emb)
    assert svc.embedding.embed_missing() == 30
    assert svc.store.unembedded_count() == 0 and _own_vectors(svc) == 30
    assert [len(texts) for _, texts in emb.calls] == [4, 4, 4, 4, 4, 4, 4, 2]  # the batches as before
    assert emb.most_at_once == 1  # one call at a time: the provider sees what it saw before
    caller = threading.current_thread().name
    assert all(name != caller for name, _ in emb.calls)  # encoded off the thread that writes


def test_a_cancel_keeps_the_batches_written_and_leaves_the_rest(svc, emb):
    _save(svc, emb)
    token = CancelToken()
    with pytest.raises(Cancelled):
        svc.embedding.embed_missing(progress=lambda done, total, _: token.cancel() if done else None, cancel=token)
    assert svc.store.unembedded_count() == 30 - BATCH  # the first batch written; the one encoded ahead dropped
    assert svc.embedding.embed_missing() == 30 - BATCH
    assert _own_vectors(svc) == 30


def test_a_failing_batch_keeps_the_ones_before(svc, emb):
    _save(svc, emb)
    emb.fail_from = 2
    with pytest.raises(EmbedderUnavailable):
        svc.embedding.embed_missing()
    assert svc.store.unembedded_count() == 30 - 2 * BATCH and _own_vectors(svc) == 2 * BATCH
    emb.fail_from = None
    assert svc.embedding.embed_missing() == 30 - 2 * BATCH
    assert _own_vectors(svc) == 30

