"""Seed 002 (the VRPG Memory Service) over HTTP: POST /memory, POST /memory/search with one scope or several
(10 results and min_score 0.7 by default), GET /health with each component's status and index statistics."""

from __future__ import annotations

CAMPAIGN = [
    ("The party saved the old wizard from the collapsing tower", "campaign", "sess_123", "npc_wizard"),
    ("The wizard Gandros owes the party a favor for the rescue", "campaign", "sess_123", "npc_wizard"),
    ("Dragons are vulnerable to cold iron, by the rules of the world", "global", None, None),
    ("Tonight the party rests at the tavern in the harbor", "session", "sess_124", None),
]


def _store(c, text, scope, session, actor):
    body = {"text": text, "scope": scope, **({"session_id": session} if session else {}),
            **({"actor_id": actor} if actor else {})}
    r = c.post("/memory", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def test_store_returns_the_id_and_classifies(api):
    with api.client() as c:
        out = _store(c, *CAMPAIGN[0])
        assert out["status"] == "success" and out["memory_id"] == out["memory"]["id"]
        m = out["memory"]
        assert (m["content"], m["scope"], m["session_id"], m["actors"]) == (CAMPAIGN[0][0], "campaign", "sess_123",
                                                                             ["npc_wizard"])
        assert "event" in out["labels"] or "location" in out["labels"]  # classified before it was written
        assert c.get(f"/v1/memories/{out['memory_id']}").json()["content"] == CAMPAIGN[0][0]


def test_store_validates_with_codes(api):
    with api.client() as c:
        for body, field, code in [({}, "text", "MISSING_FIELD"), ({"text": "x" * (10 * 1024 + 1)}, "text", "TOO_LONG"),
                                  ({"text": "x", "scope": "Not A Scope"}, "scope", "INVALID_SCOPE"),
                                  ({"text": "x", "colour": 1}, "colour", "UNKNOWN_FIELD")]:
            r = c.post("/memory", json=body)
            assert r.status_code == 400 and r.json()["error_code"] == "VALIDATION_ERROR", r.text
            assert {"field": field, "code": code} in [{k: d[k] for k in ("field", "code")}
                                                      for d in r.json()["details"]]
        assert c.get("/health").json()["index"]["memories"] == 0


def test_search_over_several_scopes_and_the_defaults(api):
    with api.client() as c:
        ids = [_store(c, *m)["memory_id"] for m in CAMPAIGN]
        one = c.post("/memory/search", json={"query": "wizard party", "scope": "campaign",
                                             "search_mode": "keyword"}).json()
        assert one["query"] == "wizard party" and {h["memory"]["id"] for h in one["results"]} <= set(ids[:2])
        several = c.post("/memory/search", json={"query": "party", "scope": ["campaign", "session"],
                                                 "search_mode": "keyword", "min_score": 0}).json()
        assert {h["memory"]["id"] for h in several["results"]} == {ids[0], ids[1], ids[3]}  # not the global one
        for hit in several["results"]:
            assert set(hit["metadata"]) == {"scope", "session_id", "actors", "timestamp", "labels"}
            assert hit["metadata"]["scope"] in ("campaign", "session") and 0 <= hit["score"] <= 1
        session = c.post("/memory/search", json={"query": "party", "scope": "session", "session_id": "sess_124",
                                                 "search_mode": "keyword", "min_score": 0}).json()
        assert [h["memory"]["id"] for h in session["results"]] == [ids[3]]
        actor = c.post("/memory/search", json={"query": "party", "actor_id": "npc_wizard", "min_score": 0,
                                               "search_mode": "keyword"}).json()
        assert {h["memory"]["id"] for h in actor["results"]} == set(ids[:2])
        # The defaults: min_score 0.7 keeps the hits close to the best (which scores near 1)...
        default = c.post("/memory/search", json={"query": "party", "search_mode": "keyword"}).json()
        assert default["results"] and all(h["score"] >= 0.7 for h in default["results"])
        everything = c.post("/memory/search", json={"query": "party", "search_mode": "keyword",
                                                    "min_score": 0}).json()
        assert len(default["results"]) <= len(everything["results"])
        assert [h["memory"]["id"] for h in everything["results"] if h["score"] >= 0.7] == [
            h["memory"]["id"] for h in default["results"]]
        # ... and 10 results, where seed 000's search (POST /v1/search) gives 5.
        for n in range(12):
            _store(c, f"The party met traveller number {n} on the road", "campaign", "sess_125", None)
        wide = {"query": "party traveller road", "search_mode": "keyword", "min_score": 0}
        assert len(c.post("/memory/search", json=wide).json()["results"]) == 10
        assert len(c.post("/v1/search", json=wide).json()["results"]) == 5


def test_search_refuses_bad_scopes_and_scores(api):
    with api.client() as c:
        for body in ({"query": "x", "scope": ["campaign", "Bad Scope"]}, {"query": "x", "min_score": 1.5},
                     {"query": "x", "limit": 0}, {"query": ""}):
            r = c.post("/memory/search", json=body)
            assert r.status_code == 400 and r.json()["error_code"] == "VALIDATION_ERROR", (body, r.text)


def test_health_reports_each_component_and_index_statistics(api):
    with api.client() as c:
        _store(c, *CAMPAIGN[0])
        h = c.get("/health")
        assert h.status_code == 200
        body = h.json()
        assert body["status"] == "ok"
        parts = body["components"]
        assert {"vault", "index", "keyword_search", "vector_search", "graph", "classifier"} <= set(parts)
        assert all(p["status"] in ("ok", "degraded", "off") for p in parts.values())
        assert parts["vault"]["writable"] is True and parts["vector_search"]["status"] == "off"  # embedder none
        assert {parts[k]["seed"] for k in ("keyword_search", "vector_search", "graph", "classifier")} == {
            "Lexum", "Vectorizer", "Nexus", "Classify"}
        idx = body["index"]
        assert idx["memories"] == 1 and idx["unembedded"] == 1 and idx["chunks"] == 0 and idx["size_bytes"] > 0
        assert idx["by_category"]["context"] == 1
