"""A long memory does not hold up the others (core/indexing.embed_items, core/embed/background.py): its chunks
are embedded a provider batch at a time after the short memories, the unit's progress says how far it is, and
a pause stops it after the call in progress. A 10 MB memory was one provider call of about 10 minutes with the
offline model on 2 cores; the seven memories saved with it waited, at 'Embedding 0 of 8'."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from embed_helpers import WAIT_S, GatedEmbedder, TextHashEmbedder, embedded, text_vector
from memory_curator.core.service import MemoryService

BATCH = 4  # texts per provider call
CHUNK = 16  # tokens per chunk: the long memory below is about 30 chunks, 8 calls
LONG = " ".join(f"word{i}" for i in range(400))


def _config(config):
    return replace(config, embed_batch_size=BATCH, chunk_size=CHUNK, chunk_overlap=4)


def _save(svc, emb):
    """Seven short memories, then the long one (newest: the first the backfill would take)."""
    emb.fail_from = 0  # written unembedded
    svc.save_batch([{"content": f"note {i}", "title": f"t{i}"} for i in range(7)])
    big = svc.save(LONG, title="big").id
    emb.fail_from, emb.calls[:] = None, []
    assert svc.store.unembedded_count() == 8
    return big


def _chunk_vectors_are_own(svc, memory_id) -> int:
    """How many of the memory's stored chunks have their own text's vector."""
    pk = svc.store.pk_of(memory_id)
    rows = svc.store.conn.execute("SELECT chunk_id, content_snippet FROM memory_chunks WHERE memory_pk = ?",
                                  (pk,)).fetchall()
    own = 0
    for chunk_id, snippet in rows:
        (found, dist), = svc.store.vectors.knn(text_vector(f"big\n{snippet}"), 1, exact=True)
        own += found == chunk_id and dist < 1e-5
    return own


def test_the_short_memories_are_written_before_the_long_ones_chunks(vault_dir, config):
    emb = TextHashEmbedder()
    with MemoryService.open(vault_dir, embedder=emb, config=_config(config), background=False) as svc:
        big = _save(svc, emb)
        seen: list[tuple[str, int, int, int]] = []

        def part(done: int, total: int) -> None:
            seen.append(("part", done, total, svc.store.unembedded_count()))

        def progress(done: int, total: int, _message: str) -> None:
            seen.append(("memories", done, total, svc.store.unembedded_count()))

        assert svc.embedding.embed_missing(progress=progress, part=part) == 8
        assert all(len(texts) <= BATCH for _, texts in emb.calls)  # no call larger than a batch
        parts = [(done, total, left) for kind, done, total, left in seen if kind == "part"]
        assert len(parts) >= 5 and [d for d, _, _ in parts] == sorted({d for d, _, _ in parts})  # it advances
        assert all(left == 1 for _, _, left in parts)  # the seven short ones had their vectors meanwhile
        assert parts[-1][0] < parts[-1][1]  # parts are reported only while it is under way
        assert seen[-1][:3] == ("memories", 8, 8) and svc.store.unembedded_count() == 0
        chunks = svc.store.conn.execute("SELECT chunk_count FROM memories WHERE id = ?", (big,)).fetchone()[0]
        assert chunks == parts[0][1] and _chunk_vectors_are_own(svc, big) == chunks


def test_the_unit_shows_a_long_memory_advancing_and_a_pause_stops_it(vault_dir, config):
    emb = GatedEmbedder(gate_at=4)  # short ones: 2 calls; the long one's 2nd call is the 4th
    with MemoryService.open(vault_dir, embedder=emb, config=_config(config)) as svc:
        svc.embedding.pause()  # the unit starts once the eight are written
        svc.save_batch([{"content": f"note {i}", "title": f"t{i}"} for i in range(7)])
        svc.save(LONG, title="big")
        assert emb.calls == [] and svc.store.unembedded_count() == 8
        svc.embedding.resume()
        assert emb.reached.wait(WAIT_S)
        now = svc.embedding.progress
        assert (now.state, now.done, now.total) == ("embedding", 7, 8)
        assert 0 < now.part_done < now.part_total  # the long memory's first batch is counted
        assert svc.store.unembedded_count() == 1
        svc.embedding.pause()
        calls = len(emb.calls)
        emb.gate.set()
        for _ in range(int(WAIT_S * 10)):
            if svc.embedding.progress.state == "paused":
                break
            threading.Event().wait(0.1)
        assert svc.embedding.progress.state == "paused"
        assert len(emb.calls) <= calls + 2  # the call it was in and the one encoded ahead: not all 8 of it
        assert svc.store.unembedded_count() == 1  # its chunks are written together, never a part
        svc.embedding.resume()
        embedded(svc)
        assert svc.store.unembedded_count() == 0


@pytest.mark.parametrize("size", [1, 3, 4, 5, 9])
def test_batches_cut_inside_a_memory_keep_every_chunk_once(vault_dir, config, size):
    emb = TextHashEmbedder()
    with MemoryService.open(vault_dir, embedder=emb, config=replace(_config(config), embed_batch_size=size),
                            background=False) as svc:
        big = _save(svc, emb)
        assert svc.embedding.embed_missing() == 8
        assert all(len(texts) <= size for _, texts in emb.calls)
        texts = [t for _, call in emb.calls for t in call]
        assert len(texts) == len(set(texts))  # every chunk encoded once
        chunks = svc.store.conn.execute("SELECT chunk_count FROM memories WHERE id = ?", (big,)).fetchone()[0]
        assert _chunk_vectors_are_own(svc, big) == chunks == len(texts) - 7
