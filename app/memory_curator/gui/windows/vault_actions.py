"""The File and Memory menus: open a vault, recent vaults, import, settings, consolidation, labels, trash."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from memory_curator.core.vault.settings import VaultSettings
from memory_curator.core.vault.store import STATE_DIR
from memory_curator.gui import commands
from memory_curator.gui.windows.consolidate_dialog import ConsolidateDialog
from memory_curator.gui.windows.export_action import ExportAction
from memory_curator.gui.windows.import_dialog import ImportDialog
from memory_curator.gui.windows.menus import add_action
from memory_curator.gui.windows.relabel_action import RelabelAction
from memory_curator.gui.windows.settings_dialog import SettingsDialog


class VaultActions:
    def __init__(self, window):
        self.w = window
        self.recent_menu: QMenu | None = None
        self.import_dialog: ImportDialog | None = None
        self.consolidate_dialog: ConsolidateDialog | None = None
        self.exporter = ExportAction(window)
        self.relabel = RelabelAction(window)

    def populate_file_menu(self, menu: QMenu) -> None:
        self._add(menu, "&Open vault…", QKeySequence.StandardKey.Open, self.choose_vault)
        self.recent_menu = menu.addMenu("Open &recent vault")
        self.update_recent()
        menu.addSeparator()
        self._add(menu, "&Import files…", "Ctrl+I", self.choose_import_files)
        self._add(menu, "Import &folder…", None, self.choose_import_folder)
        self._add(menu, "&Export…", "Ctrl+E", self.exporter.choose)
        menu.addSeparator()
        self._add(menu, "&Settings…", QKeySequence.StandardKey.Preferences, self.open_settings)
        menu.addAction(self.w.model_switch.action)
        self.w.addAction(self.w.model_switch.action)
        menu.addSeparator()
        self._add(menu, "&Quit", QKeySequence.StandardKey.Quit, self.w.close)

    def populate_memory_menu(self, menu: QMenu) -> None:
        self._add(menu, "&Pin selected (never decays)", "Ctrl+D", lambda: self.set_pinned(True))
        self._add(menu, "U&npin selected", "Ctrl+Shift+D", lambda: self.set_pinned(False))
        self._add(menu, "Apply salience &decay now", None, self.apply_decay)
        self.relabel_action = self._add(menu, "&Label every memory again…", None, self.relabel.start)
        menu.addSeparator()
        self._add(menu, "&Consolidate selected…", None, self.consolidate_selected)
        self._add(menu, "Suggest &groups to consolidate…", None, self.suggest_groups)
        menu.addSeparator()
        self._add(menu, "&Restore from trash", None, self.w.restore_selected)
        self._add(menu, "&Empty trash…", None, self.empty_trash)

    def _add(self, menu: QMenu, text: str, shortcut, slot) -> QAction:
        return add_action(self.w, menu, text, shortcut, slot)

    # -- vaults ---------------------------------------------------------------------------------------

    def update_recent(self) -> None:
        if self.recent_menu is None:
            return
        self.recent_menu.clear()
        for path in self.w.settings.recent_vaults:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _c=False, p=path: self.w.open_vault(Path(p)))
        self.recent_menu.setEnabled(bool(self.w.settings.recent_vaults))

    def choose_vault(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.w, "Open a vault (a folder of markdown memories)")
        if folder:
            self.w.open_vault(Path(folder))

    def open_settings(self) -> None:
        vault = self.w.engine.vault if self.w.engine else None
        dialog = SettingsDialog(self.w.settings, self.w, categories=self._categories(),
                                vault_settings=VaultSettings(vault / STATE_DIR) if vault else None)
        if dialog.exec():
            vault = dialog.chosen_vault() or (self.w.engine.vault if self.w.engine else None)
            if vault is not None:
                self.w.open_vault(vault)  # the new host, model and rates take effect on (re)open

    def _categories(self) -> list[str]:
        """The vault's categories (the editor's choices): Settings lists a decay rate for each."""
        box = self.w.editor.category
        return [box.itemText(i) for i in range(box.count())]

    # -- import ---------------------------------------------------------------------------------------

    def choose_import_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self.w, "Import files", "", "Documents (*.pdf *.md *.markdown *.txt *.json);;All files (*)")
        if files:
            self.import_paths([Path(f) for f in files])

    def choose_import_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.w, "Import a folder")
        if folder:
            self.import_paths([Path(folder)])

    def import_paths(self, paths: list[Path]) -> ImportDialog:
        if self.import_dialog is None or not self.import_dialog.isVisible():
            self.import_dialog = ImportDialog(self.w.engine, self.w)
            self.import_dialog.finished_import.connect(lambda _r: self.w.after_change("create", None))
        self.import_dialog.start(paths, self.w.current_filter.category)
        self.import_dialog.show()
        self.import_dialog.raise_()
        return self.import_dialog

    # -- consolidation and trash ----------------------------------------------------------------------

    def _consolidate_dialog(self) -> ConsolidateDialog:
        dialog = ConsolidateDialog(self.w.engine, self.w)
        dialog.consolidated.connect(lambda result: self.w.undo_stack.push(commands.Consolidate(self.w, result)))
        dialog.consolidated.connect(lambda _v: self.w.after_change("create", None))
        self.consolidate_dialog = dialog
        return dialog

    def consolidate_selected(self) -> ConsolidateDialog | None:
        items = self.w.selected_items()
        if len(items) < 2:
            QMessageBox.information(self.w, "Consolidate", "Select two or more memories to consolidate, or use "
                                    "Memory › Suggest groups to let the engine find similar ones.")
            return None
        dialog = self._consolidate_dialog()
        dialog.preview(items)
        dialog.show()
        return dialog

    def suggest_groups(self) -> ConsolidateDialog:
        dialog = self._consolidate_dialog()
        dialog.suggest(self.w.current_filter.category)
        dialog.show()
        return dialog

    def set_pinned(self, pinned: bool) -> None:
        ids = [it.id for it in self.w.selected_items() if it.pinned != pinned]
        if ids:
            method = "pin" if pinned else "unpin"
            self.w.track(self.w.engine.run(lambda svc: [getattr(svc, method)(i) for i in ids]), "edit")

    def apply_decay(self) -> None:
        req = self.w.engine.call("decay_salience")
        req.done.connect(lambda n: self.w.status.showMessage(f"Decay lowered the salience of {n} memories.", 8000))
        self.w.track(req, "create")  # a full refresh: many rows may change

    def empty_trash(self) -> None:
        answer = QMessageBox.question(self.w, "Empty trash", "Delete the memories in the trash for good? "
                                      "This cannot be undone.")
        if answer == QMessageBox.StandardButton.Yes:
            self.w.undo_stack.clear()  # undoing a delete needs the trashed file
            self.w.track(self.w.engine.call("empty_trash"), "delete")
