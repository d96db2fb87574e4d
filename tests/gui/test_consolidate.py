"""Consolidation: select three memories, preview the summary, accept; originals kept or trashed as chosen."""

from __future__ import annotations

from pathlib import Path

import pytest
from gui_helpers import file_text, seed, select_title

from memory_curator.gui.models.roles import ItemRole

ROWS = [
    ("Deploys run from the main branch only. Every deploy needs a green build.", "Deploy source", "decisions",
     ["deploy"], "d1", 0.6),
    ("Deploys are forbidden on Fridays. A deploy needs a green build and a reviewer.", "Deploy days", "decisions",
     ["deploy"], "d1", 0.7),
    ("Rollback a deploy with the previous image tag. The deploy log lists every image.", "Deploy rollback",
     "decisions", ["deploy", "rollback"], "d1", 0.5),
    ("The user likes tea.", "Tea", "context", [], None, 0.3),
]


@pytest.fixture
def deploy_vault(vault_dir, config):
    return seed(vault_dir, config, ROWS)


@pytest.mark.parametrize("keep", [True, False])
def test_consolidate_three_selected_memories(harness, vault_dir, deploy_vault, keep):
    w = harness.open(vault_dir)
    picked = [select_title(harness, "Deploy source"), select_title(harness, "Deploy days", extend=True),
              select_title(harness, "Deploy rollback", extend=True)]
    dialog = w.vault_actions.consolidate_selected()
    with harness.qtbot.waitSignal(dialog.previewed, timeout=10000) as preview:
        pass
    assert sorted(preview.args[0].source_titles) == ["Deploy days", "Deploy rollback", "Deploy source"]
    assert dialog.sources.count() == 3
    assert "deploy" in dialog.summary.toPlainText().lower()
    dialog.title.setText("Deploy rules")
    (dialog.keep if keep else dialog.trash).setChecked(True)
    with harness.qtbot.waitSignal(dialog.consolidated, timeout=10000) as done:
        dialog.accept_button.click()
    result = done.args[0]
    harness.idle()
    harness.qtbot.waitUntil(lambda: w.list_model.row_of(result.memory.id) >= 0)

    text = file_text(vault_dir, result.memory.id)
    assert "title: Deploy rules" in text and "consolidated_from" in text
    assert all(p.id in text for p in picked)
    titles = {w.list_model.index(r, 0).data(ItemRole).title for r in range(w.list_model.rowCount())}
    assert ("Deploy days" in titles) == keep
    trashed = list((vault_dir / ".trash").rglob("*.md"))
    assert len(trashed) == (0 if keep else 3)

    # Edit > Undo takes it back: the originals return as they were, the summary goes to the trash.
    assert "Consolidate 3 memories" in w.undo_action.text()
    w.undo_action.trigger()
    harness.qtbot.waitUntil(lambda: w.list_model.row_of(result.memory.id) < 0, timeout=10000)
    harness.idle()
    rows = [w.list_model.index(r, 0).data(ItemRole) for r in range(w.list_model.rowCount())]
    assert {it.title for it in rows} == {"Deploy source", "Deploy days", "Deploy rollback", "Tea"}
    assert all(it.superseded_by is None for it in rows)
    assert [p.name for p in (vault_dir / ".trash").rglob("*.md")] == [Path(result.memory.file_path).name]
    # and Redo makes the summary again
    w.redo_action.trigger()
    harness.qtbot.waitUntil(lambda: "Deploy rules" in {w.list_model.index(r, 0).data(ItemRole).title
                                                       for r in range(w.list_model.rowCount())}, timeout=10000)


def test_engine_suggests_a_group(harness, vault_dir, deploy_vault):
    w = harness.open(vault_dir)
    dialog = w.vault_actions.suggest_groups()
    with harness.qtbot.waitSignal(dialog.previewed, timeout=10000) as preview:
        pass
    assert set(preview.args[0].source_titles) >= {"Deploy days", "Deploy source"}
    assert "Tea" not in preview.args[0].source_titles
    dialog.reject()
