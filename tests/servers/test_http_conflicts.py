"""A memory in a sync conflict through the HTTP API: still read (this machine's side), an update refused with
409 SYNC_CONFLICT (never a 500), nothing written over the other version."""

from __future__ import annotations

MARKED = """---
id: {mid}
title: Standup
category: context
<<<<<<< HEAD
updated_at: '2026-11-23T08:00:00Z'
=======
updated_at: '2026-11-23T08:05:00Z'
>>>>>>> origin/main
---

<<<<<<< HEAD
Standup at nine.
=======
Standup at ten.
>>>>>>> origin/main
"""


def test_an_update_of_a_memory_in_conflict_is_a_409(api, vault_dir):
    with api.client() as c:
        mid = c.post("/v1/memories", json={"content": "Standup at nine.", "title": "Standup"}).json()["memory_id"]
        (path,) = vault_dir.glob("context/*.md")
        path.write_text(MARKED.format(mid=mid))
        got = c.get(f"/v1/memories/{mid}")
        assert got.status_code == 200 and got.json()["content"] == "Standup at nine."
        r = c.patch(f"/v1/memories/{mid}", json={"content": "Standup at eleven."})
        assert r.status_code == 409 and r.json()["error_code"] == "SYNC_CONFLICT", r.text
        assert "Conflicts" in r.json()["message"]
    assert path.read_text() == MARKED.format(mid=mid)
