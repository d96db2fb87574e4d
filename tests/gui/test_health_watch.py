"""Vault health is never stale (#17 item 6): checked on open and after changes, problems in the status bar;
and a brand-new vault opens without "Reading changes made while the app was closed" (item 10)."""

from __future__ import annotations

import os

from memory_curator.core.index import vectors
from memory_curator.core.service import MemoryService
from memory_curator.gui import resources
from memory_curator.gui.windows.main_window import MainWindow
from memory_curator.gui.worker import POLL_MS

BROKEN = "---\ntitle: [unclosed\n---\nx"


def test_unreadable_files_show_on_open_and_after_changes_without_check_again(harness, vault_dir, seeded):
    for name in ("broken.md", "also-broken.md"):
        (vault_dir / "context" / name).write_text(BROKEN, encoding="utf-8")
    w = harness.open(vault_dir)
    watch = w.health_watch
    harness.qtbot.waitUntil(lambda: watch.indicator.isVisible(), timeout=10000)
    assert watch.indicator.text() == "⚠ 2 files could not be read"
    assert w.health.summary.text().startswith("2 unreadable file(s)") and w.health.unreadable.count() == 2
    w.show_pane(w.editor)
    before = watch.last
    watch.indicator.click()  # the status bar opens the pane that says why, checked again as it comes forward
    assert w.side.currentWidget() is w.health
    harness.qtbot.waitUntil(lambda: watch.last is not before)

    for name in ("broken.md", "also-broken.md"):  # fixed in another editor: the window notices by itself
        (vault_dir / "context" / name).write_text("---\ntitle: Fixed\n---\nnow readable", encoding="utf-8")
    harness.qtbot.waitUntil(lambda: not watch.indicator.isVisible(), timeout=20000)
    assert w.health.unreadable.count() == 0 and "healthy" in w.health.summary.text()

    (vault_dir / "context" / "third.md").write_text(BROKEN, encoding="utf-8")
    harness.qtbot.waitUntil(lambda: watch.indicator.text() == "⚠ 1 file could not be read", timeout=20000)


def test_a_brand_new_vault_says_nothing_about_changes_made_while_closed(harness, tmp_path):
    messages: list[str] = []
    w = MainWindow(harness.settings)
    harness.qtbot.addWidget(w)
    w.status.messageChanged.connect(messages.append)
    with harness.qtbot.waitSignal(w.vault_opened, timeout=30000):
        w.open_vault(tmp_path / "new-vault")
    harness.window = w
    harness.idle()
    harness.qtbot.wait(100)
    assert not any("closed" in m for m in messages), messages
    assert not w.health_watch.indicator.isVisible()


def test_only_the_lane_that_searches_loads_the_vector_codes(harness, vault_dir, config, local_embedder, monkeypatch):
    """The codes of a large vault's vectors (0.9 GB at 1,000,000 chunks) load on the reader, where searches run;
    Vault health's lane opens the same way but never searches, so it must not load a second copy."""
    with MemoryService.open(vault_dir, embedder=local_embedder, config=config) as svc:
        svc.save_batch([{"content": f"Note {i} about topic {i % 5}"} for i in range(30)])
        assert svc.embedding.settle(120)
    monkeypatch.setattr(vectors, "EXACT_MAX_VALUES", 100)  # a vault large enough to hold its codes in memory
    w = harness.open(vault_dir)
    done: list = []
    w.engine.call("health", key="health", slow_read=True).done.connect(done.append)
    harness.qtbot.waitUntil(lambda: bool(done), timeout=20000)
    reader, slow = (lane.executor.service.store.vectors for lane in (w.engine._reader, w.engine._slow))
    assert reader._warming is not None or reader._codes is not None
    assert slow._warming is None and slow._codes is None


def test_the_sample_vault_at_first_run_is_not_called_changes_made_while_closed(harness, tmp_path):
    """The first start copies the sample vault and opens it: the status bar said "Read 20 changes made while the
    app was closed" about files the app had just written (so did a folder of notes opened for the first time)."""
    vault = tmp_path / "first-run"
    resources.copy_sample_vault(vault)
    messages: list[str] = []
    w = MainWindow(harness.settings)
    harness.qtbot.addWidget(w)
    w.status.messageChanged.connect(messages.append)
    with harness.qtbot.waitSignal(w.vault_opened, timeout=30000):
        w.open_vault(vault)
    harness.window = w
    harness.idle()
    harness.qtbot.wait(100)
    assert not any("closed" in m for m in messages), messages
    assert "Read 20 memories from the vault's files." in messages


def test_a_save_in_a_vault_with_an_unreadable_file_is_not_called_other_programs_changes(harness, vault_dir, seeded):
    """Each poll that syncs reads the unreadable files again (one may have been fixed): after a save in the
    window, the status bar said "Reading files other programs changed: 13 of 13" about them, in a quick poll."""
    (vault_dir / "context" / "broken.md").write_text(BROKEN, encoding="utf-8")
    w = harness.open(vault_dir)
    messages: list[str] = []
    w.status.messageChanged.connect(messages.append)
    w.editor.source.setPlainText("# Saved here\n\nin the window")
    with harness.qtbot.waitSignal(w.changed, timeout=20000):
        w.editor.request_save()
    harness.qtbot.wait(3 * POLL_MS)
    assert not any("other programs" in m for m in messages), messages


def test_a_linked_folder_and_a_name_not_in_utf8_show_in_vault_health(harness, vault_dir, seeded, tmp_path):
    """Both are skipped by the writer's scan and kept in its Vault, not in the index; Vault health reads on a lane
    of its own, which never scans, so the pane and the status bar left them out."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "note.md").write_text("a note outside the vault")
    os.symlink(outside, vault_dir / "context" / "linked")
    with open(os.fsencode(vault_dir / "context") + b"/caf\xe9.md", "wb") as fh:
        fh.write(b"named in latin-1")
    w = harness.open(vault_dir)
    w.show_pane(w.health)
    harness.qtbot.waitUntil(lambda: w.health_watch.last is not None
                            and len(w.health_watch.last.unreadable) == 2, timeout=20000)
    reasons = {p.path: p.reason for p in w.health_watch.last.unreadable}
    assert reasons["context/linked"].startswith(f"is a link to a folder ({outside})")
    assert "not UTF-8" in reasons["context/caf\ufffd.md"]
    assert w.health_watch.indicator.text() == "⚠ 2 files could not be read"


def test_each_unreadable_files_reason_is_shown_whole(harness, vault_dir, seeded):
    """The list cut each reason at the pane's edge: reading what to do took a horizontal scroll per file."""
    (vault_dir / "context" / "broken.md").write_text(BROKEN, encoding="utf-8")
    (vault_dir / "context" / "binary.md").write_bytes(b"\x00\x01" * 100)
    w = harness.open(vault_dir)
    w.show_pane(w.health)
    listing = w.health.unreadable
    harness.qtbot.waitUntil(lambda: listing.count() == 2, timeout=20000)
    harness.qtbot.wait(50)
    for row in range(listing.count()):
        rect = listing.visualItemRect(listing.item(row))
        assert rect.right() <= listing.viewport().width()  # within the pane: no horizontal scroll
    assert listing.horizontalScrollBar().maximum() == 0
    yaml = next(listing.item(r) for r in range(listing.count()) if "broken.md" in listing.item(r).text())
    line = listing.fontMetrics().height()
    assert listing.visualItemRect(yaml).height() >= 2 * line  # the long reason wraps onto a second line
