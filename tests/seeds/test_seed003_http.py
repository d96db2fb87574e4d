"""Seed 003 over HTTP: save with summary and raw_ttl (the answer says used_summary and chunk_count), search
echoes the query, the raw text comes back null once expired, clear-expired drops it and keeps the summary."""

from __future__ import annotations

import time

RAW = "Everything said in the meeting, word for word, including the part about zebras."
SUMMARY = "Agreed on the quarterly budget."


def test_two_tiers_over_http(api):
    with api.client() as c:
        r = c.post("/v1/memories", json={"content": RAW, "summary": SUMMARY, "raw_ttl": 3, "session_id": "sess-1",
                                         "keywords": ["budget"]})
        assert r.status_code == 201, r.text
        saved = r.json()
        # The summary is what gets embedded; this server has no embedder, so no vectors yet (filled in later).
        assert saved["used_summary"] is True and saved["chunk_count"] == 0
        mid = saved["memory_id"]
        assert saved["memory"]["raw"] == RAW and saved["memory"]["raw_expires_at"]
        found = c.post("/v1/search", json={"query": "quarterly budget", "search_mode": "keyword"}).json()
        assert found["query"] == "quarterly budget" and found["results"][0]["memory"]["id"] == mid
        time.sleep(3.5)
        assert c.get(f"/v1/memories/{mid}").json()["raw"] is None
        assert c.post("/v1/memories/clear-expired").json()["cleared"] == 1
        after = c.get(f"/v1/memories/{mid}").json()
        assert after["content"] == SUMMARY and after["raw"] is None
        assert c.post("/v1/search", json={"query": "zebras", "search_mode": "keyword"}).json()["results"] == []
        again = c.post("/v1/search", json={"query": "quarterly budget", "search_mode": "keyword"}).json()
        assert [h["memory"]["id"] for h in again["results"]] == [mid]
        whole = c.post("/v1/memories", json={"content": "Gone whole, it had no summary", "raw_ttl": 1}).json()
        time.sleep(1.5)
        gone = c.get(f"/v1/memories/{whole['memory_id']}")
        assert gone.status_code == 404 and "expired" in gone.json()["message"]  # seed 003's get_memo
        bad = c.post("/v1/memories", json={"content": "x", "raw_ttl": 0})
        assert bad.status_code == 400 and bad.json()["details"][0]["field"] == "raw_ttl"
