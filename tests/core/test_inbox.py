"""The review inbox on a real vault: state in frontmatter, approve / edit / merge / reject, undo."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_curator.core.errors import ValidationError
from memory_curator.core.inbox import Provenance, is_pending
from memory_curator.core.vault.codec import split_frontmatter

PROV = {"client": "claude-desktop", "session": "s-42", "time": "2026-01-02T03:04:05Z"}


def _ai(svc, text, **kw):
    return svc.save(text, source="ai", provenance=PROV, **kw)


def test_ai_memories_land_in_the_inbox_and_the_state_is_in_the_file(svc):
    mine = svc.save("Written by me")
    theirs = _ai(svc, "Written by an assistant", keywords=["x"])
    assert [m.id for m in svc.inbox.items()] == [theirs.id]
    assert svc.inbox.count() == 1 and not is_pending(mine)
    meta, _ = split_frontmatter(Path(theirs.file_path).read_text())
    assert meta["review"] == "pending"
    assert Provenance.of(svc.inbox.items()[0]) == Provenance("claude-desktop", "s-42", "2026-01-02T03:04:05Z")


def test_inbox_survives_a_rebuild(svc):
    theirs = _ai(svc, "Survives rebuilds")
    svc.rebuild_index(embed=False)
    assert [m.id for m in svc.inbox.items()] == [theirs.id]


def test_turning_the_inbox_off(svc):
    svc.inbox.set_enabled(False)
    _ai(svc, "Trusted assistant")
    assert svc.inbox.count() == 0 and svc.inbox.enabled is False


def test_batch_approve_and_undo(svc):
    a, b = _ai(svc, "First note"), _ai(svc, "Second note")
    action = svc.inbox.approve([a.id, b.id])
    assert svc.inbox.count() == 0
    assert "review" not in split_frontmatter(Path(svc.get(a.id).file_path).read_text())[0]
    svc.inbox.undo(action)
    assert {m.id for m in svc.inbox.items()} == {a.id, b.id}


def test_reject_goes_to_trash_and_undo_restores(svc):
    a = _ai(svc, "Wrong fact")
    action = svc.inbox.reject([a.id])
    assert svc.get(a.id) is None and [t.id for t in svc.list_trash()] == [a.id]
    svc.inbox.undo(action)
    assert [m.id for m in svc.inbox.items()] == [a.id]


def test_edit_approves_with_changes_and_undo(svc):
    a = _ai(svc, "Teh typo", title="Typo")
    action = svc.inbox.edit(a.id, content="The typo fixed", keywords=["fixed"])
    got = svc.get(a.id)
    assert got.content == "The typo fixed" and got.keywords == ("fixed",) and not is_pending(got)
    svc.inbox.undo(action)
    back = svc.get(a.id)
    assert back.content == "Teh typo" and is_pending(back)


def test_merge_into_existing_and_undo(svc):
    target = svc.save("We use SQLite.", keywords=["db"])
    incoming = _ai(svc, "With sqlite-vec for vectors.", keywords=["vectors"])
    action = svc.inbox.merge(incoming.id, target.id)
    merged = svc.get(target.id)
    assert merged.content == "We use SQLite.\n\nWith sqlite-vec for vectors."
    assert merged.keywords == ("db", "vectors") and svc.get(incoming.id) is None
    svc.inbox.undo(action)
    assert svc.get(target.id).content == "We use SQLite." and [m.id for m in svc.inbox.items()] == [incoming.id]


def test_reviewed_memories_cannot_be_reviewed_twice(svc):
    a = _ai(svc, "Once")
    svc.inbox.approve([a.id])
    with pytest.raises(ValidationError, match="not in the inbox"):
        svc.inbox.approve([a.id])
    with pytest.raises(ValidationError):
        svc.inbox.merge(a.id, a.id)
