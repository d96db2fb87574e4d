"""Typed fields (seed 004), scopes and actors: validated with codes, kept in frontmatter, filterable."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_curator.core.errors import ValidationError
from memory_curator.core.vault.codec import split_frontmatter


def test_typed_fields_round_trip_and_filter(svc):
    episodic = svc.save("User attended team offsite in Lake Tahoe", event_timestamp="2025-06-15T09:00:00Z",
                        location="Lake Tahoe, CA", participants=["team", "manager"], event_type="work_event")
    emotional = svc.save("User felt anxious before the offsite talk", emotional_state="anxious", valence=-0.6,
                         arousal=0.8, trigger_event="public speaking")
    procedural = svc.save("User can deploy the offsite app with Ansible", skill_name="ansible",
                          proficiency_level="intermediate")
    plain = svc.save("The offsite budget is fixed")
    meta, _ = split_frontmatter(Path(episodic.file_path).read_text())
    assert meta["event_timestamp"] == "2025-06-15T09:00:00Z" and meta["participants"] == ["team", "manager"]
    assert episodic.memory_types == ("episodic",) and emotional.memory_types == ("emotional",)
    assert svc.get(emotional.id).typed == {"emotional_state": "anxious", "valence": -0.6, "arousal": 0.8,
                                           "trigger_event": "public speaking"}
    for kind, item in (("episodic", episodic), ("emotional", emotional), ("procedural", procedural)):
        assert [r.memory.id for r in svc.search("offsite", mode="keyword", memory_type=kind)] == [item.id]
        assert [it.id for it in svc.list_memories(memory_type=kind)] == [item.id]
    assert len(svc.search("offsite", mode="keyword", limit=10)) == 4
    assert plain.memory_types == ()
    assert svc.stats().by_memory_type == {"episodic": 1, "emotional": 1, "procedural": 1}
    svc.rebuild_index(embed=False)  # typed fields come back from the files
    assert [it.id for it in svc.list_memories(memory_type="procedural")] == [procedural.id]


def test_update_changes_only_the_named_typed_fields(svc):
    item = svc.save("Mood log", emotional_state="calm", valence=0.2)
    updated = svc.update(item.id, valence=0.7, event_timestamp="2025-01-02T03:04:05Z")
    assert updated.typed == {"emotional_state": "calm", "valence": 0.7, "event_timestamp": "2025-01-02T03:04:05Z"}
    assert updated.memory_types == ("episodic", "emotional")
    removed = svc.update(item.id, event_timestamp=None)
    assert removed.memory_types == ("emotional",)
    assert "event_timestamp" not in Path(item.file_path).read_text()


@pytest.mark.parametrize(("fields", "code"), [
    ({"valence": 1.5}, "OUT_OF_RANGE"),
    ({"valence": -1.01}, "OUT_OF_RANGE"),
    ({"arousal": -0.1}, "OUT_OF_RANGE"),
    ({"arousal": "very"}, "WRONG_TYPE"),
    ({"valence": True}, "WRONG_TYPE"),
    ({"event_timestamp": "last tuesday"}, "INVALID_DATETIME"),
    ({"participants": 7}, "WRONG_TYPE"),
    ({"skill_name": "x" * 600}, "TOO_LONG"),
    ({"scope": "Not A Scope!"}, "INVALID_SCOPE"),
    ({"mood": "happy"}, "UNKNOWN_FIELD"),
    ({"pinned": "yes"}, "WRONG_TYPE"),
])
def test_bad_typed_fields_are_refused_with_a_code(svc, fields, code):
    with pytest.raises(ValidationError) as err:
        svc.save("x", **fields)
    assert err.value.code == code and err.value.field == next(iter(fields))
    assert svc.count() == 0  # nothing written


def test_scope_and_actor_filters(svc):
    g = svc.save("global rule: tabs are banned", scope="global")
    p = svc.save("project rule: tabs in makefiles", scope="project", actors=["npc_wizard", "alice"])
    s = svc.save("session note: tabs discussed", scope="session", session_id="sess_123")
    assert [r.memory.id for r in svc.search("tabs", mode="keyword", scope="global")] == [g.id]
    assert {r.memory.id for r in svc.search("tabs", mode="keyword", scope=["global", "session"])} == {g.id, s.id}
    assert [r.memory.id for r in svc.search("tabs", mode="keyword", actor="npc_wizard")] == [p.id]
    assert [it.id for it in svc.list_memories(scope="project")] == [p.id]
    assert [it.id for it in svc.list_memories(actor="alice")] == [p.id]
    assert svc.count(scope="session") == 1
    with pytest.raises(ValidationError):
        svc.search("tabs", memory_type="semantic-ish")
