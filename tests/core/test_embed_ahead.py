"""save_batch encodes its texts on one thread while it writes the files and rows (core/embed/ahead.py), and the
background unit takes those vectors: every memory still gets its own text's vector, each text is encoded once,
only with an embedder whose vectors do not depend on their batch, and a batch that fails leaves nothing
encoding. With the bundled model the stored vectors are the ones it gives without encoding ahead, bit for bit."""

from __future__ import annotations

import sys
import threading
from collections import Counter
from dataclasses import replace

import pytest

from embed_helpers import DIM, TextHashEmbedder, text_vector
from memory_curator.core.errors import StorageError
from memory_curator.core.index.vectors import TABLE, normalized
from memory_curator.core.indexing import embedding_chunks
from memory_curator.core.service import MemoryService
from memory_curator.core.vault.lock import VaultLock

AHEAD = "memory-curator-batch-ahead"  # the thread that encodes a batch while it is written


def _items(n: int) -> list[dict]:
    return [{"content": f"note {i} about topic {i % 7}", "title": f"t{i}"} for i in range(n)]


def _stored(svc) -> dict[str, bytes]:
    """Each memory's stored vector (one chunk each), by title."""
    rows = svc.store.conn.execute(
        f"SELECT m.title, v.embedding FROM memories m JOIN memory_chunks c ON c.memory_pk = m.pk "
        f"JOIN {TABLE} v ON v.chunk_id = c.chunk_id").fetchall()
    return {title: bytes(blob) for title, blob in rows}


def _open(vault_dir, config, emb):
    return MemoryService.open(vault_dir, embedder=emb, config=replace(config, embed_batch_size=8))


def test_the_unit_takes_the_vectors_encoded_while_the_batch_was_written(vault_dir, config):
    emb = TextHashEmbedder(batch_independent=True)
    with _open(vault_dir, config, emb) as svc:
        # Another process holds the vault's write lock: the batch waits to write, and its texts are encoded
        # meanwhile (what the scheduler runs first no longer decides whether the test sees the encoding ahead).
        held = threading.Event()

        def other_writer() -> None:
            with VaultLock(svc.vault.state_dir).hold():
                held.set()
                emb.called_on(AHEAD, 10)

        other = threading.Thread(target=other_writer)
        other.start()
        assert held.wait(10)
        svc.save_batch(_items(60))
        other.join()
        assert emb.called_on(AHEAD, 0)
        assert svc.embedding.settle(30) and svc.store.unembedded_count() == 0
        stored = _stored(svc)
    assert sorted(stored) == sorted(f"t{i}" for i in range(60))
    for i in range(60):  # each its own text's vector (as the index stores a vector: float32, unit length)
        assert stored[f"t{i}"] == normalized(text_vector(f"t{i}\nnote {i} about topic {i % 7}"), DIM).tobytes()
    by_thread = Counter(name for name, _ in emb.encoded)
    assert by_thread[AHEAD] >= 1  # some texts were encoded while the batch was written
    assert Counter(text for _, text in emb.encoded).most_common(1)[0][1] == 1  # and none was encoded twice
    assert len(emb.encoded) == 60
    ahead = [t for name, t in emb.encoded if name == AHEAD]
    assert ahead == [f"t{i}\nnote {i} about topic {i % 7}" for i in range(59, 59 - len(ahead), -1)]  # newest first


def test_each_memory_of_a_batch_is_cut_into_chunks_once(vault_dir, config):
    """The unit takes the chunks the batch's encoding ahead cut, with its vectors, instead of cutting again."""
    emb = TextHashEmbedder(batch_independent=True)
    cuts: Counter = Counter()

    def watch(frame, event, arg) -> None:  # every thread's calls (the batch's, the unit's), none replaced
        if event == "call" and frame.f_code is embedding_chunks.__code__:
            cuts[frame.f_locals["item"].title, threading.current_thread() is threading.main_thread()] += 1

    threading.setprofile(watch)
    sys.setprofile(watch)
    try:
        with _open(vault_dir, config, emb) as svc:
            svc.save_batch(_items(60))
            assert svc.embedding.settle(30) and svc.store.unembedded_count() == 0
            stored = _stored(svc)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    # Each cut once, by the batch as it is written (its encoding ahead ran), none by the unit.
    assert cuts == Counter({(f"t{i}", True): 1 for i in range(60)})
    for i in range(60):
        assert stored[f"t{i}"] == normalized(text_vector(f"t{i}\nnote {i} about topic {i % 7}"), DIM).tobytes()
    assert not svc.embedding.ahead._chunks  # all taken: none kept for nothing


def test_an_embedder_whose_vectors_depend_on_their_batch_is_not_used_ahead(vault_dir, config):
    emb = TextHashEmbedder(batch_independent=False)
    with _open(vault_dir, config, emb) as svc:
        svc.save_batch(_items(40))
        assert svc.embedding.settle(30) and svc.store.unembedded_count() == 0
    assert AHEAD not in {name for name, _ in emb.encoded}
    assert len(emb.encoded) == 40


def test_a_batch_that_fails_leaves_nothing_encoding_and_no_file(vault_dir, config):
    emb = TextHashEmbedder(batch_independent=True)
    with _open(vault_dir, config, emb) as svc:
        svc.save_batch(_items(1))
        assert svc.embedding.settle(30)
        (vault_dir / "blocked").write_text("a file where the last item's folder would go")
        with pytest.raises(StorageError):
            svc.save_batch(_items(299) + [{"content": "last", "category": "blocked"}])
        assert not svc.embedding.ahead._todo  # nothing more is encoded for a batch that is not there
        assert svc.count() == 1 and len(list((vault_dir / "context").glob("*.md"))) == 1
        assert svc.store.unembedded_count() == 0


@pytest.mark.model
def test_the_bundled_models_vectors_are_the_same_bit_for_bit(vault_dir, config, local_embedder):
    """The texts' vectors as the model gives them in one call (one text per run: the same for any batch)."""
    assert local_embedder.batch_independent
    with MemoryService.open(vault_dir, embedder=local_embedder, config=config) as svc:
        ids = svc.save_batch([{"content": f"Meeting {i}: we talked about the {w} plan.", "title": f"m{i}"}
                              for i, w in enumerate(["garden", "budget", "release", "travel"] * 20)]).created_ids
        assert svc.embedding.settle(120) and svc.store.unembedded_count() == 0
        items = svc.get_batch(ids, record_access=False)
        texts = [c[4] for it in items for c in embedding_chunks(it, svc.config, local_embedder.max_chunk_tokens)]
        assert len(texts) == len(items) == 80
        stored = _stored(svc)
    for it, vec in zip(items, local_embedder.embed_documents(texts), strict=True):
        assert stored[it.title] == normalized(vec, 384).tobytes()
