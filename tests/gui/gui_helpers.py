"""Shared steps for the GUI tests: seed a vault, select rows like a user, read files, answer dialogs."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from memory_curator.core.service import MemoryService
from memory_curator.gui.models.roles import ItemRole

SAMPLE = [
    ("We chose SQLite with sqlite-vec for the vector store: one file, no server.", "Vector store", "decisions",
     ["sqlite", "vectors"], "s1", 0.9),
    ("The backend is written in Python with FastAPI.", "Python + FastAPI", "decisions", ["python", "backend"], "s1", 0.85),
    ("Session summary: we fixed the login bug and wrote tests for the token refresh.", "Login bug session",
     "summaries", ["auth", "tests"], "s2", 0.6),
    ("The user prefers dark mode and short answers.", "User preferences", "context", ["ui"], "s2", 0.5),
    ("Päätimme käyttää PostgreSQL-tietokantaa raportointiin.", "Raportointitietokanta", "decisions",
     ["tietokanta"], "s3", 0.7),
    ("データベースはSQLiteを使うことに決めました。", "データベースの決定", "decisions", ["データベース"], "s3", 0.75),
    ("Meeting notes: deploy on Fridays is forbidden.", "Deploy rule", "runbooks", ["deploy"], None, 0.4),
]


def seed(vault: Path, config, rows=SAMPLE) -> dict[str, str]:
    """Write the sample memories through the engine; title -> id."""
    with MemoryService.open(vault, embedder="none", config=config) as svc:
        return {t: svc.save(c, category=cat, title=t, keywords=k, session_id=s, salience=sal).id
                for c, t, cat, k, s, sal in rows}


def select_title(harness, title: str, extend: bool = False):
    w = harness.window
    model = w.list_model
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data(ItemRole).title == title)
    w.list_view.setFocus()
    if extend:
        w.list_view.selectionModel().select(
            model.index(row, 0), w.list_view.selectionModel().SelectionFlag.Select
            | w.list_view.selectionModel().SelectionFlag.Rows)
    else:
        w.list_view.setCurrentIndex(model.index(row, 0))
    return model.index(row, 0).data(ItemRole)


def file_text(vault, item_id: str) -> str:
    for path in vault.rglob("*.md"):
        text = path.read_text(encoding="utf-8")
        if f"id: {item_id}" in text and ".trash" not in path.parts:
            return text
    raise AssertionError(f"no file for {item_id}")


def answer_next_box(button: QMessageBox.StandardButton) -> list[str]:
    """Click ``button`` on the next message box once it is shown (it runs its own event loop). The returned
    list receives the box's text."""
    seen: list[str] = []

    def click() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            seen.append(box.text())
            box.button(button).click()
        else:
            QTimer.singleShot(20, click)

    QTimer.singleShot(0, click)
    return seen


def search(harness, text: str, mode: str) -> list[str]:
    w = harness.window
    bar = w.search_bar
    bar.mode.setCurrentIndex(bar.mode.findData(mode))
    with harness.qtbot.waitSignal(w.search_finished, timeout=20000):
        if text.isascii():
            harness.qtbot.keyClicks(bar.edit, text)  # the debounce sends one request after the typing stops
        else:
            bar.edit.insert(text)  # QTest types ASCII only; an input method inserts text like this
    model = w.results_model
    return [model.index(r, 1).data() for r in range(model.rowCount())]


def embed_all(harness) -> None:
    """Wait until the background embedding (started when the vault opened: no click needed) is done and the
    status bar says so."""
    w = harness.window
    harness.qtbot.waitUntil(lambda: w.status.pending.text() == "all embedded", timeout=60000)
