"""The conflict view on a real window: the status bar shows the conflicts, the view puts both versions side
by side with the differences highlighted, and Keep this / Keep both / Edit merge resolve them, undoably."""

from __future__ import annotations

import pytest
from gui_helpers import seed

from memory_curator.core.service import MemoryService
from memory_curator.gui.accessibility import unnamed_controls
from memory_curator.gui.windows.conflict_dialog import ConflictDialog, highlighted

COPY = ".sync-conflict-20261123-082800-ABCDEFG.md"


@pytest.fixture
def conflicted_vault(vault_dir, config):
    ids = seed(vault_dir, config)
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        rel = svc.store.file_info(ids["Deploy rule"]).file_path
    original = vault_dir / rel
    text = original.read_text()
    edited = text.replace("deploy on Fridays is forbidden.", "deploy on Fridays is allowed before noon.")
    original.with_name(original.name[:-3] + COPY).write_text(edited.replace("- deploy", "- deploy\n- friday"))
    return ids["Deploy rule"], original


def _open_view(harness, qtbot, vault_dir):
    w = harness.open(vault_dir)
    qtbot.waitUntil(lambda: w.status.conflicts_button.isVisible(), timeout=10000)
    assert w.status.conflicts_button.text() == "⚠ 1 sync conflict"
    w.status.conflicts_button.click()
    dialog = w.findChild(ConflictDialog)
    qtbot.waitUntil(lambda: dialog.sides is not None, timeout=10000)
    return w, dialog


def test_both_versions_side_by_side_and_keep_the_other_then_undo(harness, qtbot, vault_dir, conflicted_vault):
    mid, original = conflicted_vault
    w, dialog = _open_view(harness, qtbot, vault_dir)
    titles = [w.list_model.index(r, 0).data() for r in range(w.list_model.rowCount())]
    assert "⚠ Deploy rule" in titles and "Vector store" in titles  # marked in the list, the others not
    assert dialog.list.count() == 1 and "Syncthing" in dialog.list.item(0).text()
    assert unnamed_controls(dialog) == []
    fields = {dialog.fields.item(r, 0).text(): dialog.fields.item(r, 2).text() for r in range(dialog.fields.rowCount())}
    assert fields["keywords"] == "deploy, friday"
    assert "forbidden" in dialog.ours.text.toPlainText() and "before noon" in dialog.theirs.text.toPlainText()
    assert "background-color" in dialog.theirs.text.toHtml()  # the differences are highlighted
    with qtbot.waitSignal(dialog.resolved, timeout=10000):
        dialog.theirs.keep_button.click()
    harness.idle()
    assert "before noon" in original.read_text() and not list(original.parent.glob("*sync-conflict*"))
    qtbot.waitUntil(lambda: not w.status.conflicts_button.isVisible(), timeout=10000)
    qtbot.waitUntil(lambda: dialog.list.count() == 0, timeout=10000)
    qtbot.waitUntil(lambda: "Deploy rule" in [w.list_model.index(r, 0).data() for r in range(w.list_model.rowCount())])
    w.undo_stack.undo()  # Ctrl+Z: the copy and the conflict come back
    harness.idle()
    qtbot.waitUntil(lambda: dialog.list.count() == 1, timeout=10000)
    assert "forbidden" in original.read_text() and list(original.parent.glob("*sync-conflict*"))
    w.undo_stack.redo()
    harness.idle()
    assert "before noon" in original.read_text()


def test_vault_health_lists_conflicts_apart_and_opens_the_view(harness, qtbot, vault_dir, conflicted_vault):
    w = harness.open(vault_dir)
    w.refresh_health()
    qtbot.waitUntil(lambda: w.health.conflicts.count() == 1, timeout=10000)
    assert "sync-conflict" in w.health.conflicts.item(0).text() and w.health.unreadable.count() == 0
    assert "1 sync conflict" in w.health.summary.text()
    w.health.buttons["conflicts"].click()
    dialog = w.findChild(ConflictDialog)
    qtbot.waitUntil(lambda: dialog is not None and dialog.sides is not None, timeout=10000)


def test_keep_both_and_edit_merge(harness, qtbot, vault_dir, conflicted_vault):
    mid, original = conflicted_vault
    w, dialog = _open_view(harness, qtbot, vault_dir)
    dialog.merge_button.click()
    assert dialog.merge_edit.isVisible() and "forbidden" in dialog.merge_edit.toPlainText()
    dialog.merge_button.click()  # Back to the versions: nothing saved
    assert not dialog.merge_edit.isVisible() and dialog.ours.isVisible()
    dialog.merge_button.click()
    assert "- friday" not in dialog.merge_edit.toPlainText()  # both changed: this machine's until edited
    dialog.merge_edit.setPlainText(dialog.merge_edit.toPlainText().replace("forbidden.", "forbidden after noon."))
    with qtbot.waitSignal(dialog.resolved, timeout=10000):
        dialog.save_merge_button.click()
    harness.idle()
    assert "forbidden after noon." in original.read_text()
    w.undo_stack.undo()
    harness.idle()
    qtbot.waitUntil(lambda: dialog.list.count() == 1 and dialog.sides is not None, timeout=10000)
    with qtbot.waitSignal(dialog.resolved, timeout=10000):
        dialog.both_button.click()
    harness.idle()
    assert len(list(original.parent.glob("*.md"))) == 2  # the other version is a memory of its own now


def test_word_differences_are_marked():
    left, right = highlighted("same line\nwe deploy on Fridays", "same line\nwe deploy on Mondays\nnew line")
    assert "<u>Fridays</u>" in left and "<u>Mondays</u>" in right and "new line</span>" in right
    assert left.startswith("same line<br>")
