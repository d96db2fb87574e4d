"""Supersede: a contradiction never deletes silently; both files carry the link."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_curator.core.errors import MemoryNotFoundError, ValidationError
from memory_curator.core.vault.codec import split_frontmatter


def _meta(item):
    return split_frontmatter(Path(item.file_path).read_text())[0]


def test_supersede_links_both_ways_and_hides_the_old_one_from_search(svc):
    old = svc.save("The API runs on port 8000", title="API port v1")
    new = svc.save("The API runs on port 9000", title="API port v2")
    o, n = svc.supersede(old.id, new.id)
    assert o.superseded_by == new.id and n.supersedes == (old.id,)
    assert _meta(o)["superseded_by"] == new.id and _meta(n)["supersedes"] == [old.id]
    assert [r.memory.id for r in svc.search("API port", mode="keyword")] == [new.id]
    shown = svc.search("API port", mode="keyword", include_superseded=True)
    assert {r.memory.id for r in shown} == {old.id, new.id}
    assert {it.id for it in svc.list_memories()} == {old.id, new.id}  # listing shows both
    assert svc.stats().superseded_count == 1


def test_chain_is_the_history_oldest_first(svc):
    v1, v2, v3 = (svc.save(f"deploy target version {i}") for i in (1, 2, 3))
    svc.supersede(v1.id, v2.id)
    svc.supersede(v2.id, v3.id)
    for member in (v1, v2, v3):
        assert [it.id for it in svc.supersede_chain(member.id)] == [v1.id, v2.id, v3.id]
    with pytest.raises(ValidationError):
        svc.supersede(v3.id, v1.id)  # a loop
    with pytest.raises(ValidationError):
        svc.supersede(v1.id, v1.id)
    with pytest.raises(MemoryNotFoundError):
        svc.supersede(v1.id, "missing")


def test_unsupersede_restores_the_old_memory_to_search(svc):
    old, new = svc.save("cats are the mascot"), svc.save("dogs are the mascot")
    svc.supersede(old.id, new.id)
    back = svc.unsupersede(old.id)
    assert back.superseded_by is None and svc.get(new.id).supersedes == ()
    assert {r.memory.id for r in svc.search("mascot", mode="keyword")} == {old.id, new.id}


def test_superseded_survives_a_rebuild(svc):
    old, new = svc.save("first answer"), svc.save("second answer")
    svc.supersede(old.id, new.id)
    svc.rebuild_index(embed=False)
    assert [r.memory.id for r in svc.search("answer", mode="keyword")] == [new.id]
