"""File › Export: the memories (all, or the category being browsed) to a markdown folder laid out like a
vault, or to one JSON or JSONL file, as ``memory-curator export`` does. Runs on the engine; the status bar
says how many were exported and where, and names any file that could not be read."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from memory_curator.gui.worker import Request

CHOICES = {"A markdown folder (a vault of its own)": "markdown", "One JSON file": "json",
           "One JSONL file (a record a line)": "jsonl"}


class ExportAction:
    def __init__(self, window):
        self.w = window

    def choose(self) -> Request | None:
        """Ask what and where, then export."""
        category = self.w.current_filter.category
        what = f"the memories of {category}" if category else "every memory"
        label, ok = QInputDialog.getItem(self.w, "Export", f"Export {what} as:", list(CHOICES), 0, False)
        if not ok:
            return None
        fmt = CHOICES[label]
        if fmt == "markdown":
            dest = QFileDialog.getExistingDirectory(self.w, "Export to a new or empty folder")
        else:
            dest, _ = QFileDialog.getSaveFileName(self.w, "Export to a new file", f"memories.{fmt}",
                                                  f"{fmt.upper()} (*.{fmt})")
        return self.export(fmt, Path(dest), category) if dest else None

    def export(self, fmt: str, dest: Path, category: str | None = None) -> Request:
        req = self.w.engine.call("export_memories", category=category, format=fmt, dest=str(dest), key="export")
        req.done.connect(self._done)
        req.failed.connect(lambda exc: QMessageBox.warning(self.w, "Export", f"Nothing was exported: {exc}"))
        return req

    def _done(self, report) -> None:
        text = f"Exported {report.count} memories to {report.path}."
        if report.problems:
            text += f" {len(report.problems)} file(s) could not be read and were left out (see Vault health)."
        self.w.status.showMessage(text, 15000)
