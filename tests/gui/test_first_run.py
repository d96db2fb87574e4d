"""First run: an empty default vault is offered the sample vault; settings remember vaults."""

from __future__ import annotations

from gui_helpers import answer_next_box
from PySide6.QtWidgets import QMessageBox

from memory_curator.core.service import MemoryService
from memory_curator.gui import resources
from memory_curator.gui.app import choose_vault


def test_first_run_offers_the_sample_vault(gui_settings, tmp_path, monkeypatch, config):
    monkeypatch.setenv("MEMORY_CURATOR_VAULT", str(tmp_path / "fresh"))
    answer_next_box(QMessageBox.StandardButton.Yes)
    vault = choose_vault(gui_settings, None)
    assert vault == tmp_path / "fresh"
    with MemoryService.open(vault, embedder="none", config=config) as svc:
        cats = svc.categories()
        assert svc.count() == 20 and cats["decisions"] >= 5 and cats["runbooks"] == 2
        assert svc.search("PostgreSQL-tietokantaa", mode="keyword")[0].memory.title.startswith("Tietokannaksi")
        assert svc.search("認証", mode="keyword")[0].memory.title == "認証にはOAuth 2.0を採用"
        assert svc.problems() == []


def test_declining_keeps_the_vault_empty(gui_settings, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMORY_CURATOR_VAULT", str(tmp_path / "fresh"))
    answer_next_box(QMessageBox.StandardButton.No)
    assert resources.vault_is_empty(choose_vault(gui_settings, None))


def test_which_vault_opens(gui_settings, tmp_path, monkeypatch):
    monkeypatch.delenv("MEMORY_CURATOR_VAULT", raising=False)
    gui_settings.vault = tmp_path / "mine"
    gui_settings.vault = tmp_path / "other"
    assert choose_vault(gui_settings, None) == tmp_path / "other"  # the last one used
    assert gui_settings.recent_vaults == [str(tmp_path / "other"), str(tmp_path / "mine")]
    env_vault = tmp_path / "from-env"
    (env_vault / "context").mkdir(parents=True)
    (env_vault / "context" / "note.md").write_text("not empty, so no sample vault is offered\n")
    monkeypatch.setenv("MEMORY_CURATOR_VAULT", str(env_vault))
    assert choose_vault(gui_settings, None) == env_vault  # the environment, as for the command line
    assert choose_vault(gui_settings, tmp_path / "explicit") == tmp_path / "explicit"  # --vault, above all
