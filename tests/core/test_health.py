"""Vault health reports each kind of problem, and the repairs clear them."""

from __future__ import annotations


def test_health_reports_unreadable_unembedded_and_missing(svc):
    a = svc.save("kept", title="Kept")
    b = svc.save("its file goes away", title="Gone")
    (svc.vault.root / "context" / "broken.md").write_text("---\ntitle: [unclosed\n---\nx", encoding="utf-8")
    svc.sync()
    svc.vault.abs(svc.store.file_info(b.id).file_path).unlink()

    report = svc.health()
    assert [p.path for p in report.unreadable] == ["context/broken.md"]
    assert report.unreadable[0].reason
    assert report.missing_files == [(b.id, svc.store.file_info(b.id).file_path)]
    assert report.unembedded_count == 2 and {i for i, _ in report.unembedded} == {a.id, b.id}
    assert not report.healthy

    svc.sync()
    after = svc.health()
    assert after.missing_files == [] and after.unembedded_count == 1


def test_a_keyword_only_vault_is_healthy_without_embeddings(svc, vault_dir, config):
    from memory_curator.core.service import MemoryService

    svc.save("never embedded: no embedder was chosen")
    report = svc.health()
    assert report.keyword_only and report.unembedded_count == 1 and report.healthy
    # With an embedder chosen (here Ollama, down), the same memory is a gap that reindex_missing must fill.
    with MemoryService.open(vault_dir, embedder="ollama", config=config) as with_model:
        report = with_model.health()
        assert not report.keyword_only and report.unembedded_count == 1 and not report.healthy


def test_missing_files_are_found_by_listing_each_folder_once(svc):
    """Files gone from a nested folder, a whole folder gone, and many folders (more than are held at once):
    each row is checked against its folder's listing, not stat'ed."""
    import shutil

    from memory_curator.core import health

    kept = [svc.save(f"kept {i}", title=f"Kept {i}", category=f"c{i}") for i in range(health.LISTED_FOLDERS + 3)]
    nested = svc.vault.root / "context" / "deeper"
    nested.mkdir(parents=True)
    (nested / "a.md").write_text("# Deep A\n\nx\n", encoding="utf-8")
    (nested / "b.md").write_text("# Deep B\n\ny\n", encoding="utf-8")
    gone_folder = svc.save("its folder goes away", title="Folder gone", category="doomed")
    svc.sync()
    (nested / "b.md").unlink()
    shutil.rmtree(svc.vault.root / "doomed")
    svc.vault.abs(svc.store.file_info(kept[5].id).file_path).unlink()

    missing = svc.health().missing_files
    assert missing == sorted(missing)  # by id, as before
    assert {rel for _, rel in missing} == {"context/deeper/b.md", svc.store.file_info(gone_folder.id).file_path,
                                           svc.store.file_info(kept[5].id).file_path}
    assert {mid for mid, _ in missing} >= {gone_folder.id, kept[5].id}
