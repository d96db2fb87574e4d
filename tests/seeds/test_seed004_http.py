"""Seed 004 (Direct Memory API) over HTTP: POST /v1/memories/direct with its request model, mem_ ids, its
response fields and error codes; the memory retrievable and deletable by its user through the existing routes."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

MINIMAL = {"user_id": "test_user_123", "content": "User prefers morning meetings before 10am", "layer": "semantic",
           "type": "explicit", "importance": 0.85, "persona_tags": ["preferences", "scheduling"]}
EPISODIC = {"user_id": "test_user_123", "content": "User attended team offsite in Lake Tahoe",
            "event_timestamp": "2025-06-15T09:00:00Z", "location": "Lake Tahoe, CA",
            "participants": ["team", "manager"], "event_type": "work_event"}


def test_store_minimal_then_retrieve_and_delete(api):
    with api.client() as c:
        r = c.post("/v1/memories/direct", json=MINIMAL)
        assert r.status_code == 201, r.text
        out = r.json()
        assert re.fullmatch(r"mem_[0-9a-f]{12}", out["memory_id"])
        assert out["status"] == "success" and out["error_code"] is None and out["file"] in out["message"]
        assert out["storage"] == {"vault": True, "index": True, "vectors": False, "episodic": False,
                                  "emotional": False, "procedural": False}
        mid = out["memory_id"]
        assert c.get(f"/v1/memories/{mid}").status_code == 403  # another user (none) may not read it
        m = c.get(f"/v1/memories/{mid}", params={"user_id": "test_user_123"}).json()
        assert m["content"] == MINIMAL["content"] and m["salience"] == 0.85
        assert m["keywords"] == ["preferences", "scheduling"] and m["user_id"] == "test_user_123"
        assert (m["layer"], m["type"], m["confidence"]) == ("semantic", "explicit", 0.9)
        assert c.delete(f"/v1/memories/{mid}", params={"user_id": "someone_else"}).status_code == 403
        d = c.delete(f"/v1/memories/{mid}", params={"user_id": "test_user_123"}).json()
        assert d["deleted"] is True and d["memory_id"] == mid and d["status"] == "success"
        assert d["storage"] == {"vault": True, "index": True, "vectors": False, "episodic": False,
                                "emotional": False, "procedural": False}
        assert c.delete(f"/v1/memories/{mid}", params={"user_id": "test_user_123"}).json()["deleted"] is False


def test_typed_fields_route_to_their_kinds(api):
    with api.client() as c:
        out = c.post("/v1/memories/direct", json={**EPISODIC, "emotional_state": "happy", "valence": 0.6,
                                                  "arousal": 0.4, "trigger_event": "offsite",
                                                  "skill_name": "kayaking", "proficiency_level": "beginner",
                                                  "metadata": {"origin": "annie"}}).json()
        assert out["storage"]["episodic"] and out["storage"]["emotional"] and out["storage"]["procedural"]
        m = c.get(f"/v1/memories/{out['memory_id']}", params={"user_id": "test_user_123"}).json()
        assert m["event_timestamp"] == "2025-06-15T09:00:00Z" and m["location"] == "Lake Tahoe, CA"
        assert m["participants"] == ["team", "manager"] and m["valence"] == 0.6 and m["skill_name"] == "kayaking"
        assert m["metadata"] == {"origin": "annie"} and set(m["memory_types"]) == {"episodic", "emotional",
                                                                                  "procedural"}
        hits = c.post("/v1/search", json={"query": "offsite Tahoe", "search_mode": "keyword",
                                          "memory_type": "episodic", "user_id": "test_user_123"}).json()
        assert [h["memory"]["id"] for h in hits["results"]] == [out["memory_id"]]


def test_error_codes(api):
    cases = [
        ({"content": "x"}, "user_id", "MISSING_FIELD"),
        ({"user_id": "u", "content": "x" * 5001}, "content", "TOO_LONG"),
        ({"user_id": "u", "content": "x", "layer": "mid-term"}, "layer", "INVALID_CHOICE"),
        ({"user_id": "u", "content": "x", "type": "guessed"}, "type", "INVALID_CHOICE"),
        ({"user_id": "u", "content": "x", "importance": 1.5}, "importance", "OUT_OF_RANGE"),
        ({"user_id": "u", "content": "x", "confidence": -1}, "confidence", "OUT_OF_RANGE"),
        ({"user_id": "u", "content": "x", "persona_tags": [str(i) for i in range(11)]}, "persona_tags", "TOO_LONG"),
        ({"user_id": "u", "content": "x", "valence": 3}, "valence", "OUT_OF_RANGE"),
        ({"user_id": "u", "content": "x", "event_timestamp": "not a time"}, "event_timestamp", "INVALID_DATETIME"),
    ]
    with api.client() as c:
        for body, field, code in cases:
            r = c.post("/v1/memories/direct", json=body)
            assert r.status_code == 400, (body, r.text)
            err = r.json()
            assert err["status"] == "error" and err["error_code"] == "VALIDATION_ERROR" and err["message"]
            assert any(d["field"] == field and d["code"] == code for d in err["details"]), (field, err)
        assert c.get("/health").json()["index"]["memories"] == 0  # nothing written


def test_storage_error_is_a_500_with_its_code(api, vault_dir):
    with api.client() as c:
        folder = vault_dir / "context"
        if folder.is_dir():
            folder.rmdir()
        folder.write_text("a file where the category folder goes")
        r = c.post("/v1/memories/direct", json=MINIMAL)
        assert r.status_code == 500 and r.json()["error_code"] == "STORAGE_ERROR" and r.json()["status"] == "error"
        assert c.get("/health").json()["index"]["memories"] == 0


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(["layer", "type", "importance", "confidence", "persona_tags", "metadata",
                                        "valence", "location"]),
                       st.one_of(st.none(), st.text(max_size=20), st.floats(allow_nan=False, allow_infinity=False), st.integers(),
                                 st.lists(st.text(max_size=5), max_size=12), st.booleans()), max_size=4))
def test_any_body_is_a_201_or_a_400_never_a_500(api, extra):
    with api.client() as c:
        r = c.post("/v1/memories/direct", json={**MINIMAL, **extra})
        assert r.status_code in (201, 400), r.text
