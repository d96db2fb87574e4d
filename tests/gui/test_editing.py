"""Editing a memory writes its file; unsaved changes are never lost silently; new memories; health repairs."""

from __future__ import annotations

import pytest
from gui_helpers import answer_next_box, file_text, select_title
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from embed_helpers import TextHashEmbedder
from memory_curator.gui.models.roles import IdRole, ItemRole


def test_open_edit_and_save_changes_the_file(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    item = select_title(harness, "Python + FastAPI")
    assert w.editor.title.text() == "Python + FastAPI"
    assert "<p>The backend is written" in w.editor.preview.toHtml() or "backend" in w.editor.preview.toPlainText()

    w.editor.source.setPlainText("# FastAPI\n\nThe backend is **Python 3.12** with FastAPI. Päätös tehty.")
    harness.qtbot.waitUntil(lambda: "Python 3.12" in w.editor.preview.toPlainText())  # live preview
    w.editor.keywords.setText("python, backend, api")
    w.editor.keywords.textEdited.emit(w.editor.keywords.text())
    assert w.editor.dirty
    with harness.qtbot.waitSignal(w.changed):
        harness.qtbot.keyClick(w.editor.source, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    text = file_text(vault_dir, item.id)
    assert "**Python 3.12** with FastAPI. Päätös tehty." in text
    assert "- api" in text
    assert not w.editor.dirty
    assert w.list_model.index(w.list_model.row_of(item.id), 0).data(ItemRole).keywords == ("python", "backend", "api")

    with harness.qtbot.waitSignal(w.changed):
        w.undo_action.trigger()
    assert "Python 3.12" not in file_text(vault_dir, item.id)
    assert "- api" not in file_text(vault_dir, item.id)


def test_switching_memory_with_unsaved_changes_asks(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    first = select_title(harness, "Vector store")
    w.editor.source.setPlainText("changed but not saved")
    answer_next_box(QMessageBox.StandardButton.Cancel)
    select_title(harness, "Deploy rule")
    assert w.editor.loaded_id() == first.id and w.editor.dirty  # stayed, nothing lost
    harness.qtbot.waitUntil(lambda: w.list_view.currentIndex().data(IdRole) == first.id)  # the list came back

    answer_next_box(QMessageBox.StandardButton.Save)
    with harness.qtbot.waitSignal(w.changed):
        select_title(harness, "Deploy rule")
    assert w.editor.title.text() == "Deploy rule"
    assert "changed but not saved" in file_text(vault_dir, first.id)


def test_new_memory_with_ctrl_n(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    harness.qtbot.keyClick(w, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert w.editor.item is None
    harness.qtbot.keyClicks(w.editor.title, "Release checklist")
    w.editor.source.setPlainText("Tag, build, sign, upload. 日本語も大丈夫。")
    with harness.qtbot.waitSignal(w.changed):
        w.save_action.trigger()
    harness.idle()
    assert w.editor.item is not None and w.editor.item.title == "Release checklist"
    assert "日本語も大丈夫" in file_text(vault_dir, w.editor.item.id)
    assert w.list_model.rowCount() == len(seeded) + 1


def test_vault_health_lists_problems_and_repairs(harness, vault_dir, seeded):
    (vault_dir / "context" / "broken.md").write_text("---\ntitle: [oops\n---\n", encoding="utf-8")
    w = harness.open(vault_dir)
    w.show_pane(w.health)
    assert "broken.md" in w.health.unreadable.item(0).text()
    assert w.health.unembedded.count() == len(seeded)  # opened without an embedder
    (vault_dir / "context" / "broken.md").write_text("---\ntitle: fixed\n---\nNow readable.", encoding="utf-8")
    w.health.buttons["sync"].click()
    harness.idle()
    harness.qtbot.waitUntil(lambda: w.health.unreadable.count() == 0)
    assert w.list_model.rowCount() == len(seeded) + 1


def test_rebuild_from_the_window_reads_files_in_the_helper_process(harness, vault_dir, seeded, monkeypatch):
    # The engine's worker thread starts the helper process and reads its rows, as for a large vault.
    from memory_curator.core import bulk_read

    monkeypatch.setattr(bulk_read, "HELPER_MIN_FILES", 1)
    monkeypatch.setattr(bulk_read, "CHUNK", 2)
    started = []
    real_start = bulk_read._start_helper
    monkeypatch.setattr(bulk_read, "_start_helper", lambda *a: started.append(real_start(*a)) or started[-1])
    w = harness.open(vault_dir)
    w.show_pane(w.health)
    w.health.buttons["rebuild"].click()
    harness.qtbot.waitUntil(lambda: bool(started) and started[0].returncode is not None, timeout=30000)
    harness.idle()
    assert started[0].returncode == 0  # the helper ran from the worker thread, sent everything and exited
    harness.qtbot.waitUntil(lambda: w.list_model.rowCount() == len(seeded))
    assert w.health.unreadable.count() == 0
    # A keyword-only vault has nothing to embed with: the rebuild is done, not failed.
    harness.qtbot.waitUntil(lambda: w.status.currentMessage() == "Rebuilding index: done.")


def test_a_keyword_only_vault_is_healthy_without_embeddings(harness, vault_dir, seeded):
    w = harness.open(vault_dir)  # opened without an embedder
    w.show_pane(w.health)
    harness.qtbot.waitUntil(lambda: "keyword-only" in w.health.summary.text())
    assert w.health.unembedded.count() == len(seeded)  # still listed, as facts
    assert not w.health.buttons["embed"].isEnabled() and "Settings" in w.health.buttons["embed"].toolTip()


@pytest.mark.model
def test_embed_missing_from_vault_health(harness, vault_dir, seeded, local_embedder):
    """Embed missing embeds what has no vectors, also while the background embedding is paused. (The memory is
    saved with the embedding paused: left running, it raced the pane's count and sometimes won.)"""
    w = harness.open(vault_dir, embedder=local_embedder)
    with harness.qtbot.waitSignal(w.engine.run(lambda svc: svc.embedding.pause()).done, timeout=30000):
        pass
    with harness.qtbot.waitSignal(w.engine.run(lambda svc: svc.save("Written while embedding is paused")).done,
                                  timeout=30000):
        pass
    w.show_pane(w.health)
    harness.qtbot.waitUntil(lambda: w.health.buttons["embed"].isEnabled() and w.health.unembedded.count() > 0)
    w.health.buttons["embed"].click()
    harness.qtbot.waitUntil(lambda: w.health.unembedded.count() == 0, timeout=30000)
    assert "healthy" in w.health.summary.text()


def test_closing_with_unsaved_changes_asks(harness, vault_dir, seeded):
    w = harness.open(vault_dir)
    select_title(harness, "Deploy rule")
    w.editor.source.setPlainText("almost lost")
    answer_next_box(QMessageBox.StandardButton.Cancel)
    assert not w.close()
    assert w.isVisible() and w.editor.dirty
    answer_next_box(QMessageBox.StandardButton.Discard)
    assert w.close()
    assert "almost lost" not in file_text(vault_dir, w.editor.item.id)


def test_the_line_below_the_editor_follows_the_background_embedding(harness, vault_dir):
    """Saved in a real window, a new memory's line kept saying "not embedded yet" after the list said yes."""
    w = harness.open(vault_dir, embedder=TextHashEmbedder())
    w.editor.source.setPlainText("# Kangaroos\n\nThey hop.")
    with harness.qtbot.waitSignal(w.changed, timeout=20000):
        w.editor.request_save()
    saved = w.editor.item
    assert saved is not None and "not embedded yet" in w.editor.info.text()
    harness.qtbot.waitUntil(lambda: w.list_model.row_of(saved.id) >= 0
                            and w.list_model.item(w.list_model.row_of(saved.id)).embedded, timeout=30000)
    harness.qtbot.waitUntil(lambda: " · embedded" in w.editor.info.text())
    assert w.editor.item.content == saved.content and not w.editor.dirty
