"""The app's poll timer with the index locked by another program (issue 12 item 5): the failed poll is logged
as a message and the timer goes on, so the window hears of the vault's changes once the lock is gone."""

from __future__ import annotations

import logging

from memory_curator.gui.worker import Engine
from sqlite_conditions import index_locked


def test_the_poll_timer_outlives_a_locked_index(qtbot, vault_dir, config, caplog):
    caplog.set_level(logging.WARNING)
    eng = Engine(vault_dir, config, "none")
    try:
        with qtbot.waitSignal(eng.opened, timeout=20000):
            pass
        # The engine waits 15 s for a lock; the test 0.2 s.
        with qtbot.waitSignal(eng.run(lambda svc: svc.store.conn.execute("PRAGMA busy_timeout = 200") and None).done):
            pass
        with index_locked(vault_dir / "index.db") as release:
            (vault_dir / "context").mkdir(exist_ok=True)
            (vault_dir / "context" / "from-an-editor.md").write_text("---\ntitle: From an editor\n---\nby hand\n")
            qtbot.waitUntil(lambda: any("Checking the vault for changes failed" in r.getMessage()
                                        for r in caplog.records), timeout=120000)
            assert not [r for r in caplog.records if r.levelno >= logging.ERROR]  # a message, not a traceback
            release()
        with qtbot.waitSignal(eng.changed_elsewhere, timeout=120000):
            pass
        with qtbot.waitSignal(eng.call("count").done) as blocker:
            pass
        assert blocker.args == [1]
    finally:
        eng.shutdown()
