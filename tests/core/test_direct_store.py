"""Seed 004's direct store in the engine: every field mapped onto the vault format, mem_ ids, its checks."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_curator.core.errors import ValidationError
from memory_curator.core.vault.codec import decode_memory


def _file(svc, rel):
    return decode_memory((svc.vault.root / rel).read_text(), default_category="x", default_id="x",
                         fallback_title="x")

FULL = {
    "user_id": "test_user_123", "content": "User attended team offsite in Lake Tahoe", "layer": "long-term",
    "type": "implicit", "importance": 0.85, "confidence": 0.7, "persona_tags": ["preferences", "scheduling"],
    "metadata": {"origin": "annie", "nested": {"n": 1, "list": [1, "two", None]}},
    "event_timestamp": "2025-06-15T09:00:00Z", "location": "Lake Tahoe, CA", "participants": ["team", "manager"],
    "event_type": "work_event", "emotional_state": "happy", "valence": 0.6, "arousal": 0.4,
    "trigger_event": "offsite", "skill_name": "kayaking", "proficiency_level": "beginner",
}


def test_every_field_lands_in_the_file(svc):
    out = svc.store_direct(**FULL)
    assert re.fullmatch(r"mem_[0-9a-f]{12}", out.memory.id)
    item = svc.get(out.memory.id)
    back = _file(svc, out.file)
    assert back.id == item.id and back.content == FULL["content"]
    assert back.provenance == {"client": "direct_api", "user_id": "test_user_123"}
    assert back.extra["layer"] == "long-term" and back.extra["type"] == "implicit"
    assert back.extra["confidence"] == 0.7 and back.extra["metadata"] == FULL["metadata"]
    assert back.salience == 0.85 and list(back.keywords) == FULL["persona_tags"]
    assert back.typed["location"] == "Lake Tahoe, CA" and back.typed["participants"] == ["team", "manager"]
    assert back.typed["valence"] == 0.6 and back.typed["skill_name"] == "kayaking"
    assert set(item.memory_types) == {"episodic", "emotional", "procedural"}
    assert out.storage == {"vault": True, "index": True, "vectors": False, "episodic": True, "emotional": True,
                           "procedural": True}
    d = out.as_dict()
    assert d["status"] == "success" and d["memory_id"] == item.id and d["error_code"] is None
    assert out.file in d["message"]


def test_defaults_are_the_seeds(svc):
    out = svc.store_direct(user_id="u", content="User prefers morning meetings before 10am")
    item = svc.get(out.memory.id)
    assert item.extra["layer"] == "semantic" and item.extra["type"] == "explicit"
    assert item.extra["confidence"] == 0.9 and item.salience == 0.8 and "metadata" not in item.extra
    assert out.storage["episodic"] is False


@pytest.mark.parametrize("change, field, code", [
    ({"user_id": "  "}, "user_id", "MISSING_FIELD"),
    ({"content": "x" * 5001}, "content", "TOO_LONG"),
    ({"layer": "mid-term"}, "layer", "INVALID_CHOICE"),
    ({"type": "guessed"}, "type", "INVALID_CHOICE"),
    ({"importance": 1.2}, "importance", "OUT_OF_RANGE"),
    ({"confidence": -0.1}, "confidence", "OUT_OF_RANGE"),
    ({"persona_tags": [str(i) for i in range(11)]}, "persona_tags", "TOO_LONG"),
    ({"metadata": [1, 2]}, "metadata", "WRONG_TYPE"),
    ({"valence": 2}, "valence", "OUT_OF_RANGE"),
    ({"event_timestamp": "yesterday"}, "event_timestamp", "INVALID_DATETIME"),
    ({"colour": "red"}, "colour", "UNKNOWN_FIELD"),
])
def test_bad_fields_are_refused_with_a_code_and_nothing_is_written(svc, change, field, code):
    values = {**FULL, **change}
    values = {k: v for k, v in values.items() if v is not None}
    with pytest.raises(ValidationError) as err:
        svc.store_direct(**values)
    assert (err.value.field, err.value.code) == (field, code)
    assert svc.count() == 0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.text(min_size=1, max_size=20), st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10), max_size=5))
def test_metadata_round_trips_through_the_file(svc, metadata):
    out = svc.store_direct(user_id="u", content="m", metadata=metadata)
    back = _file(svc, out.file)
    assert back.extra.get("metadata") == (metadata or None)
