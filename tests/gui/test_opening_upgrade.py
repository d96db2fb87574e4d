"""Opening a vault whose index is older: the window says what each migration does, the opening dialog shows it
when it takes over a second, and Cancel stops the upgrade (the migrations done kept, the running one undone)
and leaves no vault open."""

from __future__ import annotations

from memory_curator.core.errors import Cancelled
from memory_curator.core.index import db
from memory_curator.gui.widgets.opening import CANCEL_HELP, OpeningDialog
from memory_curator.gui.windows.main_window import MainWindow
from memory_curator.gui.worker import Request
from old_index import old_vault, schema


def window(qtbot, gui_settings) -> tuple[MainWindow, list[str]]:
    w = MainWindow(gui_settings)
    qtbot.addWidget(w)
    said: list[str] = []
    w.status.messageChanged.connect(said.append)
    return w, said


def close(w: MainWindow) -> None:
    w.editor.load(w.editor.item)
    w.close()


def test_the_window_says_what_each_migration_does(qtbot, gui_settings, vault_dir, config):
    old_vault(vault_dir, config)
    w, said = window(qtbot, gui_settings)
    with qtbot.waitSignal(w.vault_opened, timeout=30000):
        w.open_vault(vault_dir, embedder="none")
    try:
        assert "Upgrading the index (1 of 4, migration 16): indexing the sessions' filter columns" in said
        assert ("Upgrading the index (3 of 4, migration 18): copying the links into a table of their own") in said
        assert schema(vault_dir) == 19
        assert w.opening_dialog.ended and not w.opening_dialog.isVisible()  # a quick upgrade: never shown
    finally:
        close(w)


def test_a_new_index_is_said_to_be_created(qtbot, gui_settings, vault_dir):
    vault_dir.mkdir()
    w, said = window(qtbot, gui_settings)
    with qtbot.waitSignal(w.vault_opened, timeout=30000):
        w.open_vault(vault_dir, embedder="none")
    try:
        assert "Creating the index" in said
        assert not any("Upgrading" in m for m in said), said
        assert w.opening_dialog.windowTitle() == "Creating the index"
    finally:
        close(w)


def test_cancel_keeps_what_is_done_and_opens_no_vault(qtbot, gui_settings, vault_dir, config):
    old_vault(vault_dir, config)
    holder = db.connect(vault_dir / "index.db")
    holder.execute("BEGIN IMMEDIATE")  # the upgrade waits for the write lock: Cancel comes first
    w, said = window(qtbot, gui_settings)
    try:
        w.open_vault(vault_dir, embedder="none")
        w.opening_dialog.cancel_button.click()
        holder.execute("ROLLBACK")
        qtbot.waitUntil(lambda: any("Upgrading the index stopped" in m for m in said), timeout=30000)
        assert w.status.embedder.text() == "No vault open"
        assert any("0 of 4 migrations done (kept), the one under way undone" in m for m in said)
        assert schema(vault_dir) == 15
    finally:
        holder.close()
        close(w)
    again, _ = window(qtbot, gui_settings)  # opened again, it goes on from there
    with qtbot.waitSignal(again.vault_opened, timeout=30000):
        again.open_vault(vault_dir, embedder="none")
    try:
        assert schema(vault_dir) == 19
    finally:
        close(again)


def test_the_dialog_shows_a_long_upgrade_and_cancels_it(qtbot):
    request = Request(1, None)
    dialog = OpeningDialog(request)
    qtbot.addWidget(dialog)
    first = "Upgrading the index (1 of 3, migration 16): indexing the sessions' filter columns"
    request.progress.emit(0, 0, first)
    assert not dialog.isVisible()  # not before a second has gone by
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    assert dialog.message.text() == first and dialog.bar.maximum() == 0  # one statement: a busy bar
    request.progress.emit(535000, 1000000, "Upgrading the index (3 of 3, migration 18): the names links use")
    assert (dialog.bar.value(), dialog.bar.maximum()) == (535000, 1000000)
    assert dialog.cancel_button.toolTip() == CANCEL_HELP
    dialog.cancel_button.click()
    assert request.token.cancelled and not dialog.cancel_button.isEnabled()
    assert dialog.message.text() == "Stopping: undoing the migration under way…"
    request.failed.emit(Cancelled(2, 3))
    assert dialog.ended and not dialog.isVisible()


def test_closing_the_window_during_the_upgrade_stops_it(qtbot, gui_settings, vault_dir, config, caplog):
    """The engine's shutdown cancels its requests, the opening's upgrade with them: closing the window does not wait
    for a minute of migrating (at 1,000,000 memories), and the index stays as the migrations done left it."""
    old_vault(vault_dir, config)
    holder = db.connect(vault_dir / "index.db")
    holder.execute("BEGIN IMMEDIATE")  # the upgrade waits, saying so, as behind another process's upgrade
    w, said = window(qtbot, gui_settings)
    try:
        w.open_vault(vault_dir, embedder="none")
        qtbot.waitUntil(lambda: any("waiting for another process" in m for m in said), timeout=30000)
        engine = w.engine
        close(w)  # Engine.shutdown: waits for its threads
        assert not engine._writer.thread.isRunning()
        assert "did not stop" not in caplog.text  # it stopped when asked, not after the lock's 15 s
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert schema(vault_dir) == 15
