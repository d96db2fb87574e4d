"""Labelling every memory again (issue 11): progress after each batch, the write lock free between batches so
other faces save meanwhile, Cancel keeping what was labelled, and a person's labels never replaced."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from memory_curator.core.errors import MemoryNotFoundError
from memory_curator.core.progress import CancelToken
from memory_curator.core.service import MemoryService
from memory_curator.core.vault.lock import VaultLock

QUESTS = {"quest": ["tower", "quest"], "event": ["saved", "collapsing"]}


def tower_memories(svc, n):
    """``n`` memories labelled with the default set, in save (and so run) order, then the set changed."""
    ids = [svc.save(f"The party saved the old wizard {i} from the collapsing tower.", title=f"Rescue {i}").id
           for i in range(n)]
    assert all("quest" not in svc.get(mid).extra["labels"] for mid in ids)
    svc.graph.labels.set_label_set(QUESTS)
    return ids


def lock_is_free(state_dir) -> bool:
    """Whether another thread (as another face would) gets the vault's write lock at once."""

    def attempt() -> bool:
        with VaultLock(state_dir).hold(wait=False) as held:
            return held

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(attempt).result()


def test_progress_comes_after_each_batch_with_the_lock_free_for_other_faces(svc, vault_dir, config):
    ids = tower_memories(svc, 5)
    seen, free = [], []
    with MemoryService.open(vault_dir, embedder="none", config=config) as other:

        def progress(done, total, _message=""):
            seen.append((done, total))
            free.append(lock_is_free(svc.vault.state_dir))
            if len(seen) == 2:  # another face saves while the run is between batches
                other.save("Saved by the command line meanwhile.", title="Meanwhile")

        result = svc.graph.labels.classify(progress=progress, batch=2)
    assert seen == [(0, 5), (2, 5), (4, 5), (5, 5)]  # the total at once, then after each batch
    assert free == [True, True, True, True]
    assert (result.changed, result.done, result.total, result.cancelled) == (5, 5, 5, False)
    assert all("quest" in svc.get(mid).extra["labels"] for mid in ids)
    assert svc.count() == 6


def test_cancel_stops_between_batches_and_keeps_what_was_labelled(svc):
    ids = tower_memories(svc, 5)
    token = CancelToken()
    token.cancel()
    assert svc.graph.labels.classify(cancel=token).done == 0  # cancelled before it began: nothing labelled
    token = CancelToken()

    def cancel_after_the_first_batch(done, _total, _message=""):
        if done:
            token.cancel()

    result = svc.graph.labels.classify(progress=cancel_after_the_first_batch, cancel=token, batch=2)
    assert (result.changed, result.done, result.total, result.cancelled) == (2, 2, 5, True)
    assert ["quest" in svc.get(mid).extra["labels"] for mid in ids] == [True, True, False, False, False]
    again = svc.graph.labels.classify(batch=2)  # a later run does the rest; the first two are unchanged
    assert (again.changed, again.done, again.cancelled) == (3, 5, False)
    assert svc.graph.labels.counts()["quest"] == 5


def test_a_persons_labels_survive_a_run_over_every_memory(svc):
    ids = tower_memories(svc, 3)
    svc.graph.labels.set(ids[1], {"npc_relationship": 0.9})
    result = svc.graph.labels.classify(batch=2)
    assert result.changed == 2
    kept = svc.get(ids[1])
    assert kept.extra["labels"] == {"npc_relationship": 0.9} and kept.extra["labels_by"] == "user"
    assert svc.graph.labels.counts() == {"quest": 2, "event": 2, "npc_relationship": 1}
    assert svc.graph.labels.classify().changed == 0  # nothing left to change


def test_an_unknown_id_is_refused_before_anything_is_written(svc):
    ids = tower_memories(svc, 2)
    with pytest.raises(MemoryNotFoundError):
        svc.graph.labels.classify([ids[0], "no-such-memory"])
    assert "quest" not in svc.get(ids[0]).extra["labels"]
    assert svc.graph.labels.classify([ids[1]]).changed == 1
