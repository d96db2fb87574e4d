"""The servers with the index locked by another program (issue 12 item 5): a request is a 503 INDEX_BUSY that
says what to do, not a 500; change polling logs the failure and goes on, so the server sees the vault again
once the lock is gone."""

from __future__ import annotations

import logging
import time

from sqlite_conditions import index_locked


def _shorten_busy_wait(svc) -> None:
    svc.store.conn.execute("PRAGMA busy_timeout = 200")  # the engine waits 15 s for a lock; the test 0.2 s


def _wait_for(condition, what: str, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_locked_index_is_a_503_with_what_to_do(api):
    api.worker.run(_shorten_busy_wait)
    with index_locked(api.worker.svc.vault.index_path), api.client() as c:
        r = c.post("/v1/memories", json={"content": "while another program holds the index"})
    assert r.status_code == 503
    body = r.json()
    assert body["error_code"] == "INDEX_BUSY" and "Try again" in body["message"]
    assert api.worker.run(lambda svc: svc.count()) == 0
    with api.client() as c:
        assert c.post("/v1/memories", json={"content": "once it let go"}).status_code == 201


def test_change_polling_outlives_a_locked_index(api, caplog):
    caplog.set_level(logging.WARNING)
    api.worker.run(_shorten_busy_wait)
    vault = api.worker.svc.vault.root
    with index_locked(vault / "index.db") as release:
        (vault / "context").mkdir(exist_ok=True)
        (vault / "context" / "from-an-editor.md").write_text("---\ntitle: From an editor\n---\nwritten by hand\n")
        _wait_for(lambda: any("Checking the vault for changes failed" in r.getMessage() for r in caplog.records),
                  "a poll to fail on the lock")
        release()
    _wait_for(lambda: api.worker.run(lambda svc: svc.count()) == 1, "a later poll to index the new file")
    assert api.worker.run(lambda svc: svc.list_memories()[0].title) == "From an editor"
