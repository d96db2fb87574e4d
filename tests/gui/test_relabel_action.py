"""Memory › Label every memory again… through the real main window: the run shows its progress in a dialog,
Cancel stops it after the batch in progress (those memories keep their new labels, the rest their old ones),
a later run labels the rest, a person's labels are kept, and a message says how many memories changed."""

from __future__ import annotations

import threading

from gui_helpers import file_text
from PySide6.QtWidgets import QMessageBox, QPushButton

from memory_curator.core.service import MemoryService
from memory_curator.core.vault.lock import VaultLock
from memory_curator.core.vault.store import STATE_DIR

QUESTS = {"quest": ["tower", "quest"], "event": ["saved", "collapsing"]}


def memory_action(w, text: str):
    memory = next(a.menu() for a in w.menuBar().actions() if a.text() == "&Memory")
    return next(a for a in memory.actions() if a.text() == text)


def test_label_every_memory_again_with_progress_cancel_and_what_changed(harness, vault_dir, config, qtbot):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        batch = svc.save_batch([{"content": f"The party saved the old wizard {i} from the collapsing tower.",
                                 "title": f"Rescue {i}"} for i in range(30)])
        ids = list(batch.created_ids)
        svc.graph.labels.set(ids[-1], {"npc_relationship": 0.9})  # a person's labels: never replaced
        svc.graph.labels.set_label_set(QUESTS)  # the set changed after the memories were labelled
    w = harness.open(vault_dir)
    relabel = w.vault_actions.relabel
    relabel.batch = 10
    action = memory_action(w, "&Label every memory again…")

    # Another face holds the write lock, so the first batch waits: Cancel is pressed while it does.
    held, release = threading.Event(), threading.Event()

    def other_face() -> None:
        with VaultLock(vault_dir / STATE_DIR).hold():
            held.set()
            release.wait(60)

    holder = threading.Thread(target=other_face)
    holder.start()
    try:
        assert held.wait(10)
        action.trigger()
        dialog = relabel.dialog
        qtbot.waitUntil(lambda: dialog.maximum() == 30, timeout=20000)  # the total, before the first batch
        assert dialog.isVisible() and dialog.value() == 0 and "0 of 30" in dialog.labelText()
        running = relabel.request
        action.trigger()  # one run at a time
        assert relabel.request is running and relabel.dialog is dialog
        dialog.findChild(QPushButton).click()  # Cancel
    finally:
        release.set()
        holder.join()
    qtbot.waitUntil(lambda: relabel.message is not None and relabel.message.isVisible(), timeout=20000)
    assert relabel.message.text() == ("Cancelled after 10 of 30 memories: 10 got new labels. The other 20 keep "
                                      "the labels they had.")
    assert relabel.dialog is None
    assert ["quest:" in file_text(vault_dir, mid) for mid in ids] == [True] * 10 + [False] * 20
    relabel.message.button(QMessageBox.StandardButton.Ok).click()

    # Again, to the end, with a memory open: the progress dialog counts up to 30; the ten labelled before do
    # not change; the open memory's Graph pane shows its new labels.
    w.graph_panes.open_memory(ids[15])
    qtbot.waitUntil(lambda: w.editor.loaded_id() == ids[15], timeout=20000)
    pane_labels = w.graph_panes.graph.labels
    assert "quest" not in pane_labels.text()
    action.trigger()
    shown: list[tuple[int, int, str]] = []
    dialog = relabel.dialog
    relabel.request.progress.connect(  # after the dialog took it
        lambda *_: shown.append((dialog.value(), dialog.maximum(), dialog.labelText())))
    qtbot.waitUntil(lambda: relabel.message is not None and relabel.message.isVisible(), timeout=20000)
    assert shown[0][:2] == (0, 30) and shown[-1] == (30, 30, "Labelling memory 30 of 30 with the vault's label set…")
    assert [v for v, _m, _t in shown] == sorted(v for v, _m, _t in shown)
    assert relabel.message.text() == ("19 of 30 memories got new labels; the others kept theirs (labels you set "
                                      "are never replaced).")
    assert all("quest:" in file_text(vault_dir, mid) for mid in ids[:-1])
    person = file_text(vault_dir, ids[-1])
    assert "npc_relationship: 0.9" in person and "labels_by: user" in person and "quest:" not in person
    qtbot.waitUntil(lambda: "quest" in pane_labels.text(), timeout=20000)
    label_box = w.search_bar.label
    qtbot.waitUntil(lambda: label_box.findText("quest") >= 0, timeout=20000)  # the label choices refreshed
    relabel.message.button(QMessageBox.StandardButton.Ok).click()
    harness.idle()
