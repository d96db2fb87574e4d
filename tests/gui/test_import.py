"""Import by drag and drop: a real PDF (made with reportlab) and a markdown file, listed per file."""

from __future__ import annotations

import warnings
from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from memory_curator.gui.models.roles import ItemRole


def make_pdf(path: Path, lines: list[str]) -> Path:
    c = canvas.Canvas(str(path), pagesize=A4)
    y = 800
    for line in lines:
        c.drawString(72, y, line)
        y -= 18
    c.showPage()
    c.save()
    return path


def drop_files(widget, paths: list[Path]) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = QPointF(widget.width() / 2, widget.height() / 2)
    with warnings.catch_warnings():  # PySide marks the only QDragEnterEvent constructor deprecated
        warnings.simplefilter("ignore", DeprecationWarning)
        enter = QDragEnterEvent(pos.toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted()
    drop = QDropEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, drop)
    assert drop.isAccepted()


def test_drop_a_pdf_and_a_markdown_file(harness, vault_dir, seeded, tmp_path, qtmodeltester):
    pdf = make_pdf(tmp_path / "meeting.pdf", ["Quarterly planning meeting", "We agreed to migrate billing to Kafka.",
                                              "Owner: Aino. Deadline: March."])
    md = tmp_path / "notes.md"
    md.write_text("# Retro notes\n\nThe deploy pipeline needs a cache for wheels.\n", encoding="utf-8")
    broken = tmp_path / "scan.pdf"
    broken.write_bytes(b"%PDF-1.4 this is not really a pdf")
    w = harness.open(vault_dir)

    shown_while_running: list[int] = []
    drop_files(w, [pdf, md, broken])
    dialog = w.vault_actions.import_dialog
    # Each file's row appears as soon as that file is done, before the import as a whole finishes.
    dialog.results.rowsInserted.connect(lambda *_: shown_while_running.append(dialog.results.rowCount())
                                        if dialog.running else None)
    with harness.qtbot.waitSignal(dialog.finished_import, timeout=30000) as blocker:
        pass
    assert shown_while_running == [1, 2, 3]
    report = blocker.args[0]
    by_name = {Path(f.path).name: f for f in report.files}
    assert by_name["meeting.pdf"].status == "imported" and by_name["notes.md"].status == "imported"
    assert by_name["scan.pdf"].status == "failed" and by_name["scan.pdf"].error  # listed, did not stop the rest
    model = dialog.results
    rows = {model.index(r, 0).data(): model.index(r, 1).data() for r in range(model.rowCount())}
    assert rows == {"meeting.pdf": "imported", "notes.md": "imported", "scan.pdf": "failed"}
    assert model.index(0, 0).data() == "scan.pdf"  # failures first
    assert "1 file failed" in dialog.heading.text()
    qtmodeltester.check(model)

    harness.idle()
    harness.qtbot.waitUntil(lambda: w.list_model.rowCount() >= len(seeded) + 2)
    contents = " ".join(w.list_model.index(r, 0).data(ItemRole).content for r in range(w.list_model.rowCount()))
    assert "migrate billing to Kafka" in contents and "cache for wheels" in contents
    dialog.close()
