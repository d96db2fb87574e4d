"""The Inbox pane (approve, edit, merge, reject, batches, undo), changes made by other processes showing up in
the window, and the history dialog, on the real main window offscreen."""

from __future__ import annotations

import subprocess
from datetime import datetime, timezone

import pytest
from gui_helpers import file_text, select_title
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memory_curator.core.service import MemoryService
from memory_curator.gui.widgets.api_token import ApiTokenField
from memory_curator.gui.widgets.inbox import InboxEditDialog, MergeTargetDialog
from memory_curator.gui.windows.history_dialog import HistoryDialog

PROV = {"client": "claude-desktop", "session": "s-9", "time": "2026-02-03T04:05:06Z"}


@pytest.fixture
def inbox_vault(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        target = svc.save("We deploy with Docker.", title="Deploy", keywords=["deploy"]).id
        a = svc.save("Use compose for local runs.", title="Compose", source="ai", provenance=PROV).id
        b = svc.save("Wrong: we never test.", title="Bad claim", source="ai", provenance=PROV).id
    return {"target": target, "a": a, "b": b}


def _wait_count(harness, n):
    pane = harness.window.inbox
    harness.qtbot.waitUntil(lambda: len(pane.items) == n and not harness.window.engine.busy, timeout=10000)


def test_inbox_shows_provenance_and_batch_approve_with_undo(harness, vault_dir, inbox_vault):
    w = harness.open(vault_dir)
    pane = w.inbox
    _wait_count(harness, 2)
    assert w.side.tabText(w.side.indexOf(pane)) == "Inbox (2)"
    first = pane.table.topLevelItem(0)
    local = datetime(2026, 2, 3, 4, 5, 6, tzinfo=timezone.utc).astimezone().strftime("%Y-%m-%d %H:%M")
    assert [first.text(1), first.text(2), first.text(3)] == ["claude-desktop", "s-9", local]  # local, readable
    assert first.toolTip(3) == "2026-02-03T04:05:06Z"
    pane.table.selectAll()
    assert pane.approve_button.isEnabled() and not pane.merge_button.isEnabled()
    pane.approve_button.click()
    _wait_count(harness, 0)
    assert "review:" not in file_text(vault_dir, inbox_vault["a"])
    assert w.side.tabText(w.side.indexOf(pane)) == "Inbox"
    pane.undo_button.click()
    _wait_count(harness, 2)
    assert "review: pending" in file_text(vault_dir, inbox_vault["a"])


def test_reject_edit_and_merge(harness, vault_dir, inbox_vault):
    w = harness.open(vault_dir)
    pane = w.inbox
    _wait_count(harness, 2)
    pane.select([inbox_vault["b"]])
    pane.reject_button.click()
    _wait_count(harness, 1)
    with pytest.raises(AssertionError):
        file_text(vault_dir, inbox_vault["b"])  # in the trash now
    pane.undo_button.click()
    _wait_count(harness, 2)

    pane.select([inbox_vault["a"]])
    dialog = InboxEditDialog(pane.items[[i.id for i in pane.items].index(inbox_vault["a"])])
    dialog.content.setPlainText("Use docker compose for local runs.")
    pane.edit(dialog.values())
    _wait_count(harness, 1)
    assert "Use docker compose for local runs." in file_text(vault_dir, inbox_vault["a"])

    pane.select([inbox_vault["b"]])
    assert pane.merge_button.isEnabled()
    pane.merge(into=inbox_vault["target"])
    _wait_count(harness, 0)
    assert "We deploy with Docker.\n\nWrong: we never test." in file_text(vault_dir, inbox_vault["target"])
    pane.undo_button.click()
    _wait_count(harness, 1)
    assert "Wrong: we never test." not in file_text(vault_dir, inbox_vault["target"])


def test_changes_by_another_process_show_up(harness, vault_dir, config, inbox_vault):
    w = harness.open(vault_dir)
    _wait_count(harness, 2)
    before = w.list_model.rowCount()
    with MemoryService.open(vault_dir, embedder="none", config=config) as other:  # the CLI or a server
        other.save("Written elsewhere", title="Elsewhere")
        other.save("An assistant wrote this", title="From MCP", source="ai", provenance=PROV)
    harness.qtbot.waitUntil(lambda: w.list_model.rowCount() == before + 2 and len(w.inbox.items) == 3,
                            timeout=5000)


def test_history_dialog_diff_and_restore(harness, vault_dir, config, qtbot):
    vault_dir.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=vault_dir, check=True)
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        item = svc.save("First text", title="Plan")
        svc.commit_history(force=True)
        svc.update(item.id, content="Second text")
    w = harness.open(vault_dir)
    item = select_title(harness, "Plan")
    dialog = HistoryDialog(w.engine, item, w.track, w)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.versions.count() == 2, timeout=10000)
    with qtbot.waitSignal(dialog.diff_shown, timeout=10000) as shown:
        dialog.versions.item(1).setSelected(True)
    assert "-First text" in shown.args[0] and "+Second text" in shown.args[0]
    assert dialog.restore_button.isEnabled()
    with qtbot.waitSignal(dialog.loaded, timeout=10000):
        dialog.restore_button.click()
    assert dialog.versions.count() == 3
    harness.idle()
    assert "First text" in file_text(vault_dir, item.id)


def test_history_dialog_offers_to_turn_history_on(harness, vault_dir, seeded, qtbot):
    w = harness.open(vault_dir)
    item = select_title(harness, "Vector store")
    dialog = HistoryDialog(w.engine, item, w.track, w)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: not dialog.enable_button.isHidden(), timeout=10000)
    assert "not a git repository" in dialog.status.text()
    with qtbot.waitSignal(dialog.loaded, timeout=10000) as loaded:
        dialog.enable_button.click()
    qtbot.waitUntil(lambda: dialog.versions.count() == 1, timeout=10000)
    assert (vault_dir / ".git").exists() and loaded.args


def test_hold_for_review_checkbox_is_the_vault_setting(harness, vault_dir, config, inbox_vault):
    w = harness.open(vault_dir)
    pane = w.inbox
    harness.qtbot.waitUntil(lambda: pane.hold.isEnabled(), timeout=10000)
    assert pane.hold.isChecked()
    pane.hold.click()
    harness.idle()
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert svc.inbox.enabled is False
        assert "review" not in svc.save("trusted", source="ai").extra


def test_api_token_field(qtbot, tmp_path):
    missing = ApiTokenField(tmp_path / "none")
    qtbot.addWidget(missing)
    assert missing.token is None and not missing.copy_button.isEnabled() and not (tmp_path / "none").exists()
    (tmp_path / "token").write_text("k" * 43 + "\n")
    field = ApiTokenField(tmp_path / "token")
    qtbot.addWidget(field)
    assert field.edit.echoMode() == field.edit.EchoMode.Password
    field.show_button.click()
    assert field.edit.text() == "k" * 43 and field.edit.echoMode() == field.edit.EchoMode.Normal
    field.copy_button.click()
    assert QApplication.clipboard().text() == "k" * 43


def test_merge_target_dialog_picks_an_existing_memory(harness, vault_dir, inbox_vault, qtbot):
    w = harness.open(vault_dir)
    _wait_count(harness, 2)
    incoming = next(i for i in w.inbox.items if i.id == inbox_vault["a"])
    dialog = MergeTargetDialog(w.engine, incoming)
    qtbot.addWidget(dialog)
    dialog.query.setText("deploy docker")
    dialog.search()
    qtbot.waitUntil(lambda: dialog.results.count() >= 1, timeout=10000)
    ids = [dialog.results.item(i).data(Qt.ItemDataRole.UserRole) for i in range(dialog.results.count())]
    assert inbox_vault["target"] in ids and incoming.id not in ids
    ok = dialog.box.button(dialog.box.StandardButton.Ok)
    assert not ok.isEnabled()
    dialog.results.setCurrentRow(ids.index(inbox_vault["target"]))
    assert ok.isEnabled() and dialog.target_id == inbox_vault["target"]


def test_history_menu_opens_the_dialog_for_the_selected_memory(harness, vault_dir, seeded, qtbot):
    w = harness.open(vault_dir)
    select_title(harness, "Vector store")
    w.history_action.trigger()
    dialog = w.findChild(HistoryDialog)
    assert dialog is not None and dialog.item.title == "Vector store"
    qtbot.waitUntil(lambda: not dialog.enable_button.isHidden(), timeout=10000)  # no git here: offer it
    dialog.close()
