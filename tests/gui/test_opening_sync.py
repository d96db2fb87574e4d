"""Opening a vault runs one full sync: the window's (with progress), which the polls count as their first scan
because file events start before it. At 1,000,000 files the first poll's own scan was a second ~20 s sync."""

from __future__ import annotations

from memory_curator.core.service import MemoryService
from memory_curator.gui.worker import Engine


def indexed_vault(vault_dir, config):
    """A vault with its index (a new index is filled when the engine opens, before the window's sync)."""
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        svc.save("Saved through the engine", title="Engine")
    notes = vault_dir / "notes"
    notes.mkdir()
    return notes


def ask(qtbot, engine: Engine, fn):
    req = engine.run(fn)
    with qtbot.waitSignal(req.done, timeout=30000) as blocker:
        pass
    return blocker.args[0]


def test_one_full_sync_at_opening_and_a_file_written_meanwhile_is_picked_up(harness, qtbot, vault_dir, config):
    notes = indexed_vault(vault_dir, config)
    for i in range(3):  # written while the app was closed: the opening sync reads them
        (notes / f"closed-{i}.md").write_text(f"---\ntitle: While closed {i}\n---\nwritten while closed\n")
    w = harness.open(vault_dir)
    (notes / "opening.md").write_text("---\ntitle: While opening\n---\nwritten while the app opened\n")
    qtbot.waitUntil(lambda: ask(qtbot, w.engine, lambda svc: svc.count()) == 5, timeout=30000)
    harness.idle()
    # A poll on the writer lane (after any the timer ran): the last full sync is still one that found files
    # new, the opening sync or the one the new file's event led to, never a scan that found nothing.
    last = ask(qtbot, w.engine, lambda svc: (svc.poll_changes(), svc.last_sync)[1])
    assert last.added >= 1


def test_the_first_poll_after_the_opening_sync_runs_no_full_sync(harness, qtbot, vault_dir, config):
    notes = indexed_vault(vault_dir, config)
    (notes / "closed.md").write_text("---\ntitle: While closed\n---\nwritten while closed\n")
    w = harness.open(vault_dir)
    last = ask(qtbot, w.engine, lambda svc: (svc.poll_changes(), svc.last_sync)[1])
    assert last.added == 1  # the opening sync's report: no later full sync replaced it
