"""Category decay, pinning floors, cleanup to the trash, expiry (TTL)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from memory_curator.core.config import MemoryConfig
from memory_curator.core.errors import MemoryNotFoundError, ValidationError
from memory_curator.core.model import utcnow
from memory_curator.core.service import MemoryService
from memory_curator.core.vault.codec import split_frontmatter


def _old(svc, category, salience=0.8, days=30, content=None):
    when = (utcnow() - timedelta(days=days)).isoformat()
    text = content or f"{category} memory from {days} days ago"
    return svc.save_batch([{"content": text, "category": category, "salience": salience, "created_at": when}])[0]


def _file_salience(item):
    meta, _ = split_frontmatter(Path(item.file_path).read_text())
    return meta["salience"]


def test_decay_by_category_only_for_inactive_memories(svc):
    decision, summary, context = _old(svc, "decisions"), _old(svc, "summaries"), _old(svc, "context")
    fresh = svc.save("context saved today", category="context", salience=0.8)
    recalled = _old(svc, "context", content="context recalled today")
    svc.get(recalled.id)
    assert svc.decay_salience(days_inactive=7) == 2
    got = {it.id: svc.get(it.id, record_access=False) for it in (decision, summary, context, fresh, recalled)}
    assert got[decision.id].salience == 0.8  # decisions never fade
    assert got[summary.id].salience == pytest.approx(0.792)
    assert got[context.id].salience == pytest.approx(0.72)
    assert got[fresh.id].salience == 0.8 and got[recalled.id].salience == 0.8
    assert _file_salience(got[context.id]) == pytest.approx(0.72)  # the file is the truth
    assert got[context.id].updated_at == context.updated_at  # decay is not an edit
    assert svc.decay_salience(days_inactive=7) == 2  # each run decays again
    assert svc.get(context.id, record_access=False).salience == pytest.approx(0.648)


def test_decay_survives_a_rebuild(svc):
    item = _old(svc, "context")
    svc.decay_salience()
    svc.rebuild_index(embed=False)
    assert svc.get(item.id, record_access=False).salience == pytest.approx(0.72)


def test_configured_rates(vault_dir):
    config = MemoryConfig(ollama_host="http://127.0.0.1:9", category_decay_rates={"decisions": 0.5, "context": 1.0})
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        d, c = _old(svc, "decisions"), _old(svc, "context")
        assert svc.decay_salience() == 1
        assert svc.get(d.id).salience == pytest.approx(0.4) and svc.get(c.id).salience == 0.8
    bad = MemoryConfig(ollama_host="http://127.0.0.1:9", category_decay_rates={"context": 1.5})
    with MemoryService.open(vault_dir, embedder="none", config=bad) as svc:
        with pytest.raises(ValidationError):
            svc.decay_salience()


def test_pinned_memory_never_decays_below_its_floor(svc):
    item = _old(svc, "context", salience=0.8)
    pinned = svc.pin(item.id, floor=0.7)
    assert pinned.pinned and pinned.salience_floor == 0.7
    meta, _ = split_frontmatter(Path(item.file_path).read_text())
    assert meta["pinned"] is True and meta["salience_floor"] == 0.7
    assert svc.stats().pinned_count == 1
    for _ in range(5):
        svc.decay_salience()
    assert svc.get(item.id, record_access=False).salience == pytest.approx(0.7)
    plain_pin = _old(svc, "context", salience=0.6, content="pinned where it stands")
    svc.pin(plain_pin.id)  # default floor: its salience now
    svc.decay_salience()
    assert svc.get(plain_pin.id, record_access=False).salience == pytest.approx(0.6)
    unpinned = svc.unpin(item.id)
    assert not unpinned.pinned and unpinned.salience_floor is None
    assert "pinned" not in Path(item.file_path).read_text()
    svc.decay_salience()
    assert svc.get(item.id, record_access=False).salience == pytest.approx(0.63)


def test_pin_errors(svc):
    item = svc.save("x")
    with pytest.raises(ValidationError):
        svc.pin(item.id, floor=2)
    with pytest.raises(MemoryNotFoundError):
        svc.pin("missing")


def test_cleanup_moves_faded_memories_to_the_trash_but_never_pinned_ones(svc):
    faded = svc.save("barely remembered", salience=0.05)
    pinned = svc.save("tiny but pinned", salience=0.05)
    svc.pin(pinned.id, floor=0.01)
    kept = svc.save("important", salience=0.5)
    assert svc.cleanup(min_salience=0.1) == 1
    assert svc.get(faded.id) is None and not Path(faded.file_path).exists()
    assert svc.get(pinned.id) is not None and svc.get(kept.id) is not None
    assert [it.id for it in svc.list_trash()] == [faded.id]
    svc.restore(faded.id)
    assert svc.get(faded.id).content == "barely remembered"
    assert svc.cleanup() == 1  # default threshold: config.cleanup_threshold


def test_expired_memories_are_hidden_from_search_and_cleared_to_the_trash(svc):
    gone = svc.save("temporary parking spot B4", expires_at=utcnow() - timedelta(hours=1))
    later = svc.save("temporary parking spot C7", ttl=3600)
    assert later.expires_at > utcnow()
    assert [r.memory.id for r in svc.search("parking", mode="keyword")] == [later.id]
    assert {r.memory.id for r in svc.search("parking", mode="keyword", include_expired=True)} == {gone.id, later.id}
    assert {it.id for it in svc.list_memories()} == {gone.id, later.id}  # listed until cleared
    assert svc.stats().expired_count == 1
    assert svc.clear_expired() == 1
    assert svc.get(gone.id) is None and [it.id for it in svc.list_trash()] == [gone.id]
    meta, _ = split_frontmatter(Path(later.file_path).read_text())
    assert "expires_at" in meta


@pytest.mark.parametrize("value", ["tomorrow", 12, "2025-13-01"])
def test_bad_expiry_is_refused(svc, value):
    with pytest.raises(ValidationError) as err:
        svc.save("x", expires_at=value)
    assert err.value.code == "INVALID_DATETIME"


def test_a_file_broken_by_another_program_does_not_stop_decay(svc):
    broken, fine = _old(svc, "context", content="soon broken"), _old(svc, "context", content="still fine")
    Path(broken.file_path).write_text("---\nid: [unclosed\n---\nbody\n")
    assert svc.decay_salience() == 1
    assert svc.get(fine.id, record_access=False).salience == pytest.approx(0.72)
    assert Path(broken.file_path).read_text().startswith("---\nid: [unclosed")  # never touched
