"""Lifecycle commands end to end: score, decay, pin, supersede, cleanup, consolidate, trash, expiry, batches."""

from __future__ import annotations

import json


def test_score_get_and_set(cli, added):
    item = added("Backup keys are in the safe")
    r = cli("score", "get", item["id"], "--json")
    assert r.code == 0 and r.json["importance"] == r.json["computed"] and r.json["override"] is None
    r = cli("score", "set", item["id"], "0.9")
    assert r.code == 0 and "importance 0.900  (set by hand" in r.out
    assert cli("score", "get", item["id"], "--json").json["importance"] == 0.9
    assert cli("score", "set", item["id"], "none", "--json").json["override"] is None
    assert cli("score", "set", item["id"], "2").code == 2
    assert cli("score", "set", item["id"]).code == 2
    assert cli("score", "get", "missing").code == 1


def test_pin_decay_cleanup_and_trash(cli, added):
    low = added("fading context", "--salience", "0.05")
    pinned = added("kept context", "--salience", "0.05")
    assert cli("pin", pinned["id"], "--floor", "0.01", "--json").json["pinned"] is True
    assert cli("decay", "--days", "0", "--json").json == {"decayed": 2}
    assert cli("cleanup", "--json").json == {"trashed": 1}
    listed = cli("trash", "list", "--json").json
    assert [it["id"] for it in listed] == [low["id"]]
    assert cli("trash", "restore", low["id"]).code == 0
    assert cli("trash", "list").out.strip() == "the trash is empty"
    assert cli("trash", "restore").code == 2
    assert cli("unpin", pinned["id"], "--json").json["pinned"] is False
    cli("delete", low["id"])
    refused = cli("trash", "empty")  # #18.11: it deleted for good without asking
    assert refused.code == 2 and "--yes" in refused.err and len(cli("trash", "list", "--json").json) == 1
    assert cli("trash", "empty", "--yes", "--json").json == {"deleted": 1}


def test_supersede_and_versions(cli, added):
    old, new = added("port is 8000"), added("port is 9000")
    r = cli("supersede", old["id"], new["id"], "--json")
    assert r.json["old"]["superseded_by"] == new["id"] and r.json["new"]["supersedes"] == [old["id"]]
    assert [it["id"] for it in cli("versions", new["id"], "--json").json] == [old["id"], new["id"]]
    hits = cli("search", "port", "-m", "keyword", "--json").json["results"]
    assert [h["memory"]["id"] for h in hits] == [new["id"]]


def test_consolidate_preview_then_write(cli, added):
    a = added("We store vectors in SQLite with sqlite-vec. The weather was nice.")
    b = added("SQLite keeps vectors next to the full text index.")
    p = cli("consolidate", a["id"], b["id"], "--preview", "--json")
    assert p.code == 0 and p.json["source_ids"] == [a["id"], b["id"]]
    assert len(cli("list", "--json").json) == 2  # the preview wrote nothing
    r = cli("consolidate", a["id"], b["id"], "--trash-originals", "--title", "SQLite", "--json")
    assert r.code == 0 and r.json["trashed"] == 2 and r.json["memory"]["consolidated_from"] == [a["id"], b["id"]]
    assert cli("consolidate", a["id"]).code == 2  # one id is not a group
    u = cli("consolidate", "--undo", r.json["memory"]["id"], "--json")
    assert u.code == 0 and sorted(u.json["restored"]) == sorted([a["id"], b["id"]])
    assert sorted(it["id"] for it in cli("list", "--json").json) == sorted([a["id"], b["id"]])
    assert cli("consolidate", "--undo", a["id"]).code == 2  # not a summary


def test_groups(cli, added):
    added("Deploy the API with Docker compose on the staging server")
    added("Docker compose deploys the API to the staging server")
    r = cli("groups")
    assert r.code == 0 and "memory-curator consolidate" in r.out


def test_clear_expired(cli, added):
    added("already over")
    assert cli("clear-expired", "--json").json == {"trashed": 0}


def test_update_batch_from_a_file(cli, added, tmp_path):
    a, b = added("first"), added("second")
    path = tmp_path / "updates.json"
    path.write_text(json.dumps([{"id": a["id"], "title": "First!"}, {"id": b["id"], "valence": 0.5}]))
    r = cli("update-batch", str(path), "--json")
    assert r.code == 0 and r.json["success_count"] == 2 and r.json["created_ids"] == [a["id"], b["id"]]
    assert cli("get", a["id"], "--json").json["title"] == "First!"
    path.write_text(json.dumps([{"id": a["id"], "title": "again"}, {"id": "missing", "title": "x"}]))
    r = cli("update-batch", str(path), "--mode", "skip", "--json")
    assert r.code == 2 and r.json["error_count"] == 1 and r.json["errors"][0]["code"] == "NOT_FOUND"
    r = cli("update-batch", "-", stdin="[{\"id\": \"missing\", \"title\": \"x\"}]")
    assert r.code == 1  # rollback mode: not found stops everything
    assert cli("update-batch", "-", stdin="{not json").code == 2
    assert cli("update-batch", str(tmp_path / "nope.json")).code == 2


def test_add_with_scope_typed_fields_ttl_and_filters(cli, added):
    ep = added("Offsite in Tahoe", "--scope", "project", "--actors", "alice,bob",
               "--field", "event_timestamp=2025-06-15T09:00:00Z", "--field", "participants=team,manager")
    assert ep["typed"] == {"event_timestamp": "2025-06-15T09:00:00Z", "participants": ["team", "manager"]}
    assert ep["scope"] == "project" and ep["actors"] == ["alice", "bob"]
    mood = added("Offsite mood was great", "--field", "valence=0.8", "--ttl", "3600")
    assert mood["typed"] == {"valence": 0.8} and mood["expires_at"]
    hits = cli("search", "offsite", "-m", "keyword", "--type", "episodic", "--json").json["results"]
    assert [h["memory"]["id"] for h in hits] == [ep["id"]]
    assert [h["memory"]["id"] for h in cli("search", "offsite", "-m", "keyword", "--actor", "bob",
                                            "--json").json["results"]] == [ep["id"]]
    assert [it["id"] for it in cli("list", "--scope", "project,global", "--json").json] == [ep["id"]]
    assert [it["id"] for it in cli("list", "--type", "emotional", "--json").json] == [mood["id"]]
    bad = cli("add", "x", "--field", "valence=2", "--json")
    assert bad.code == 2 and bad.json["error"]["code"] == "OUT_OF_RANGE"
    assert cli("add", "x", "--field", "novalue").code == 2


def test_add_on_duplicate(cli, added):
    first = added("We use PostgreSQL for billing.", "--title", "Billing DB")
    r = cli("add", "We use PostgreSQL for billing.", "--title", "Billing DB", "--on-duplicate", "skip", "--json")
    assert r.code == 0 and r.json["action"] == "skipped" and r.json["duplicate"]["memory_id"] == first["id"]
    r = cli("add", "We use PostgreSQL for billing.", "--title", "Billing DB", "--on-duplicate", "add")
    assert r.code == 0 and "near-duplicate of " + first["id"] in r.err
    assert len(cli("list", "--json").json) == 2


def test_update_changes_and_removes_typed_fields(cli, added):
    item = added("Mood log", "--field", "valence=0.2", "--field", "emotional_state=calm")
    r = cli("update", item["id"], "--field", "valence=0.6", "--scope", "session", "--json")
    assert r.code == 0 and r.json["typed"] == {"valence": 0.6, "emotional_state": "calm"} and r.json["scope"] == "session"
    r = cli("update", item["id"], "--field", "emotional_state=", "--json")
    assert r.json["typed"] == {"valence": 0.6}
    assert cli("update", item["id"]).code == 2  # nothing to change
