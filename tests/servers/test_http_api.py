"""The local HTTP API over real HTTP on loopback: auth, store, get, search, delete, clear expired, OpenAPI."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memory_curator.serving.auth import bearer_ok, load_or_create_token


def test_token_is_required(api):
    with api.client(token=None) as anon, api.client(token="wrong") as wrong:
        for c in (anon, wrong):
            r = c.get("/health")
            assert r.status_code == 401 and r.json()["error_code"] == "UNAUTHORIZED"
            assert c.post("/v1/memories", json={"content": "x"}).status_code == 401
        assert anon.get("/openapi.json").status_code == 200  # the schema is public


def test_health_reports_embedder_and_index(api):
    with api.client() as c:
        c.post("/v1/memories", json={"content": "one"})
        body = c.get("/health").json()
    assert body["status"] == "ok"
    assert body["embedder"]["provider"] == "none" and body["embedder"]["reachable"] is False
    assert body["index"]["memories"] == 1 and body["index"]["inbox"] == 1
    assert body["index"]["upkeep"] == []  # nothing left for the background to do


def test_store_get_search_delete_lifecycle(api):
    with api.client() as c:
        r = c.post("/v1/memories", json={"content": "User prefers morning meetings before 10am", "user_id": "u1",
                                         "keywords": ["preferences", "scheduling"], "salience": 0.85,
                                         "scope": "global", "actors": ["user"], "session_id": "s1"})
        assert r.status_code == 201, r.text
        mid = r.json()["memory_id"]
        assert c.get(f"/v1/memories/{mid}").status_code == 403  # u1's memory: not for a caller without user_id
        got = c.get(f"/v1/memories/{mid}", params={"user_id": "u1"}).json()
        assert got["content"].startswith("User prefers") and got["source"] == "ai" and got["in_inbox"] is True
        assert got["provenance"]["client"] == "http" and got["provenance"]["session"] == "s1"
        hits = c.post("/v1/search", json={"query": "morning meetings", "search_mode": "keyword",
                                          "scope": "global", "user_id": "u1"}).json()
        assert [h["memory"]["id"] for h in hits["results"]] == [mid]
        assert c.post("/v1/search", json={"query": "morning", "scope": "session"}).json()["results"] == []
        assert c.delete(f"/v1/memories/{mid}", params={"user_id": "u2"}).status_code == 403
        assert c.get(f"/v1/memories/{mid}", params={"user_id": "u1"}).status_code == 200  # nothing changed
        r = c.delete(f"/v1/memories/{mid}", params={"user_id": "u1"})
        assert r.status_code == 200 and r.json()["deleted"] is True
        again = c.delete(f"/v1/memories/{mid}", params={"user_id": "u1"})
        assert again.status_code == 200 and again.json()["deleted"] is False  # idempotent
        assert c.get(f"/v1/memories/{mid}", params={"user_id": "u1"}).status_code == 404
        missing = c.delete("/v1/memories/never-existed")
        assert missing.status_code == 404 and missing.json()["error_code"] == "NOT_FOUND"


def test_validation_errors_have_codes_and_store_nothing(api):
    with api.client() as c:
        cases = [
            {"content": ""},
            {"content": "x", "salience": 2},
            {"content": "x", "category": "../etc"},
            {"content": "x", "unknown_field": 1},
            {"title": "no content"},
        ]
        for body in cases:
            r = c.post("/v1/memories", json=body)
            assert r.status_code == 400, body
            assert r.json()["error_code"] == "VALIDATION_ERROR" and r.json()["details"]
        r = c.post("/v1/memories", content=b"{not json", headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and r.json()["error_code"] == "VALIDATION_ERROR"
        assert c.post("/v1/search", json={"query": "x", "search_mode": "fuzzy"}).status_code == 400
        assert c.get("/health").json()["index"]["memories"] == 0


def test_clear_expired(api):
    past = (datetime.now(timezone.utc) - timedelta(days=1)).isoformat()
    future = (datetime.now(timezone.utc) + timedelta(days=1)).isoformat()
    with api.client() as c:
        old = c.post("/v1/memories", json={"content": "stale", "expires_at": past}).json()["memory_id"]
        new = c.post("/v1/memories", json={"content": "fresh", "expires_at": future}).json()["memory_id"]
        assert c.post("/v1/memories/clear-expired").json()["cleared"] == 1
        assert c.get(f"/v1/memories/{old}").status_code == 404
        assert c.get(f"/v1/memories/{new}").status_code == 200


def test_openapi_schema_describes_the_routes(api):
    with api.client() as c:
        doc = c.get("/openapi.json").json()
    assert doc["openapi"].startswith("3.")
    assert {"/health", "/v1/memories", "/v1/memories/{memory_id}", "/v1/search"} <= set(doc["paths"])
    store = doc["components"]["schemas"]["StoreRequest"]  # the body: the Store model
    assert "content" in store["required"] and store["properties"]["content"]["minLength"] == 1


def test_token_file_is_created_once(tmp_path):
    path = tmp_path / "cfg" / "api-token"
    token = load_or_create_token(path)
    assert len(token) >= 32 and load_or_create_token(path) == token
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert bearer_ok(f"Bearer {token}", token) and not bearer_ok(f"Bearer {token}x", token) and not bearer_ok(None, token)


def test_typed_fields_are_stored_and_checked(api):
    with api.client() as c:
        r = c.post("/v1/memories", json={"content": "User attended team offsite in Lake Tahoe", "user_id": "u1",
                                         "event_timestamp": "2025-06-15T09:00:00Z", "location": "Lake Tahoe, CA",
                                         "participants": ["team", "manager"], "event_type": "work_event"})
        assert r.status_code == 201, r.text
        got = c.get(f"/v1/memories/{r.json()['memory_id']}", params={"user_id": "u1"}).json()
        assert got["location"] == "Lake Tahoe, CA" and got["participants"] == ["team", "manager"]
        assert got["memory_types"] == ["episodic"] and got["event_timestamp"].startswith("2025-06-15T09:00")
        bad = c.post("/v1/memories", json={"content": "x", "valence": 3})
        assert bad.status_code == 400 and bad.json()["error_code"] == "VALIDATION_ERROR"
        scope = c.post("/v1/memories", json={"content": "x", "scope": "Not A Scope!"})
        assert scope.status_code == 400 and scope.json()["details"][0]["code"] == "INVALID_SCOPE"
