"""The import dialog says what happened (#17 item 7): what was imported, updated, skipped, failed and
cancelled, and each file's reason in full, wrapped, not only in a tooltip."""

from __future__ import annotations

from memory_curator.core.ingest.report import FileResult, ImportReport
from memory_curator.gui.models.import_summary import headline

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


def _run(harness, w, paths, cancel_after: int | None = None):
    dialog = w.vault_actions.import_paths(paths)

    def cancel_there(*_):
        if dialog.results.rowCount() == cancel_after:
            dialog.cancel()

    if cancel_after is not None:
        dialog.results.rowsInserted.connect(cancel_there)
    with harness.qtbot.waitSignal(dialog.finished_import, timeout=60000) as blocker:
        pass
    if cancel_after is not None:
        dialog.results.rowsInserted.disconnect(cancel_there)
    return dialog, blocker.args[0]


def test_files_that_all_failed_are_not_called_imported_and_their_reasons_show_in_full(harness, vault_dir, seeded,
                                                                                      tmp_path):
    (tmp_path / "corrupt.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (tmp_path / "binary.md").write_bytes(PNG)
    (tmp_path / "empty.txt").write_text("   \n", encoding="utf-8")
    w = harness.open(vault_dir)
    dialog, report = _run(harness, w, [tmp_path / "corrupt.pdf", tmp_path / "binary.md", tmp_path / "empty.txt"])
    text = dialog.heading.text()
    assert report.count("failed") == 3
    assert text.startswith("Nothing was imported: 3 files failed.") and "corrupt.pdf" not in text
    # The first failure's reason, whole, in the wrapping details pane; its row is taller than one line.
    first = report.failed[0]
    assert dialog.details.wordWrap() and first.error in dialog.details.text()
    model = dialog.results
    assert model.index(0, 3).data().startswith(first.error)
    binary = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "binary.md")
    dialog.table.selectRow(binary)
    assert "PNG image" in dialog.details.text()
    assert dialog.table.rowHeight(binary) > dialog.table.fontMetrics().height() * 2
    dialog.close()


def test_a_cancelled_import_says_how_far_it_got_and_what_was_not_read(harness, vault_dir, seeded, tmp_path):
    folder = tmp_path / "thousand"
    folder.mkdir()
    for i in range(120):
        (folder / f"note_{i:03}.md").write_text(f"# Note {i}\n\nText number {i}.\n", encoding="utf-8")
    w = harness.open(vault_dir)
    dialog, report = _run(harness, w, [folder], cancel_after=5)
    read = len(report.files)
    assert report.cancelled and read < 120
    assert dialog.progress.maximum() == 120 and dialog.progress.value() == read  # not "read of read"
    text = dialog.heading.text()
    assert text.startswith(f"Cancelled after {read} of 120 files: {report.count('imported')} file")
    assert f"The other {120 - read} files were not read" in text and "Imported thousand" not in text
    harness.idle()

    dialog, again = _run(harness, w, [folder])  # importing again adds the rest and skips what is here
    assert again.count("skipped") == report.count("imported") and again.count("imported") == 120 - read
    assert dialog.heading.text().startswith(f"{120 - read} files imported ({120 - read} memories), "
                                            f"{read} files skipped")
    dialog.close()


def test_headline_words_for_one_file():
    one = ImportReport([FileResult("/a/x.md", memory_ids=["m1"])])
    assert headline(one, 1) == "1 file imported (1 memory)."
    upd = ImportReport([FileResult("/a/x.md", status="updated", updated_ids=["m1"]),
                        FileResult("/a/y.md", status="skipped", error="imported before")])
    assert headline(upd, 2).startswith("1 file updated") and "1 file skipped" in headline(upd, 2)


def test_a_file_changed_on_both_sides_asks_whether_the_files_version_wins(harness, vault_dir, seeded, tmp_path):
    from gui_helpers import answer_next_box
    from PySide6.QtWidgets import QMessageBox

    src = tmp_path / "plan.md"
    src.write_text("# Plan\n\nShip on Friday.\n", encoding="utf-8")
    w = harness.open(vault_dir)
    dialog, report = _run(harness, w, [src])
    (mid,) = report.memory_ids
    harness.idle()
    with harness.qtbot.waitSignal(w.changed):
        w.engine.call("update", mid, content="Ship on Friday, or Monday.").done.connect(
            lambda item: w.after_change("edit", item))
    src.write_text("# Plan\n\nShip next month.\n", encoding="utf-8")
    dialog, again = _run(harness, w, [src])
    assert again.files[0].conflict and "this vault's version is kept" in dialog.details.text()
    assert dialog.replace_button.isVisible() and dialog.replace_button.text() == "Use the files' versions (1)…"
    asked = answer_next_box(QMessageBox.StandardButton.Yes)
    with harness.qtbot.waitSignal(dialog.finished_import, timeout=30000) as blocker:
        dialog.replace_button.click()
    assert asked and "plan.md" in asked[0]
    assert blocker.args[0].files[0].status == "updated" and dialog.heading.text().startswith("1 file updated")
    assert not dialog.replace_button.isVisible()
    dialog.close()
