"""Importing the same files again (#17 item 1): what was imported and has not changed is skipped and says so,
a file changed since updates its memories, a file changed on both sides keeps the vault's version and says so;
for markdown, text, PDF, JSON without ids and folders of them, also after a cancelled import."""

from __future__ import annotations

import json

from memory_curator.core.ingest.documents import PART_CHARS
from memory_curator.core.progress import CancelToken
from pdf_samples import page_text, write_pdf


def _folder(tmp_path, n: int):
    folder = tmp_path / "thousand"
    folder.mkdir()
    for i in range(n):
        (folder / f"note_{i}.md").write_text(f"# Note {i}\n\nThe text of note number {i}.\n", encoding="utf-8")
    return folder


def test_a_folder_imported_again_after_a_cancel_adds_only_the_rest(svc, tmp_path):
    folder = _folder(tmp_path, 30)
    token = CancelToken()

    def on_file(result):
        if len(svc.list_memories(limit=100)) >= 12:
            token.cancel()

    first = svc.import_paths([folder], cancel=token, on_file=on_file)
    assert first.cancelled and 12 <= svc.count() < 30
    done = svc.count()
    again = svc.import_paths([folder])
    assert not again.cancelled and svc.count() == 30  # no pair of identical memories
    assert again.count("skipped") == done and again.count("imported") == 30 - done
    skipped = [f for f in again.files if f.status == "skipped"]
    assert all("has not changed" in f.error for f in skipped)
    third = svc.import_paths([folder])
    assert third.count("skipped") == 30 and third.memory_ids == [] and svc.count() == 30


def test_a_changed_file_updates_its_memory_and_an_edit_in_both_places_keeps_the_vaults(svc, tmp_path):
    src = tmp_path / "plan.md"
    src.write_text("# Plan\n\nShip on Friday.\n", encoding="utf-8")
    (first,) = svc.import_paths([src]).files
    (mid,) = first.memory_ids
    src.write_text("# Plan\n\nShip on Monday instead.\n", encoding="utf-8")
    (second,) = svc.import_paths([src]).files
    assert second.status == "updated" and second.updated_ids == [mid] and second.memory_ids == []
    assert "Monday" in svc.get(mid).content and svc.count() == 1

    svc.update(mid, content="Ship on Monday; Tuesday at the latest.")  # edited here
    src.write_text("# Plan\n\nShip next month.\n", encoding="utf-8")  # and in the file
    (third,) = svc.import_paths([src]).files
    assert third.status == "skipped" and "this vault's version is kept" in third.error and "“Plan”" in third.error
    assert third.conflict and "Tuesday" in svc.get(mid).content and svc.count() == 1
    (fourth,) = svc.import_paths([src], replace_edited=True).files  # the user chose the file's version
    assert fourth.status == "updated" and not fourth.conflict and "next month" in svc.get(mid).content


def test_a_text_file_and_a_pdf_imported_twice_are_skipped(svc, tmp_path):
    txt = tmp_path / "a.txt"
    txt.write_text("Plain text memory about the deploy window.\n", encoding="utf-8")
    pdf = write_pdf(tmp_path / "doc.pdf", [page_text(i) for i in range(1, 4)], title="Three pages")
    first = svc.import_paths([txt, pdf])
    assert first.count("imported") == 2
    count = svc.count()
    again = svc.import_paths([txt, pdf])
    assert [f.status for f in again.files] == ["skipped", "skipped"] and svc.count() == count


def test_a_long_document_that_lost_parts_moves_them_to_the_trash(svc, tmp_path):
    para = "A paragraph of the handbook that explains one more rule of the deploy process. " * 8
    src = tmp_path / "handbook.md"
    sections = [f"## Rule {i}\n\n" + "\n\n".join([para] * (PART_CHARS // len(para))) for i in range(3)]
    src.write_text("# Handbook\n\n" + "\n\n".join(sections), encoding="utf-8")
    (first,) = svc.import_paths([src]).files
    parts = len(first.memory_ids)
    assert parts >= 4  # the parent and one part per rule at least
    src.write_text("# Handbook\n\n" + sections[0], encoding="utf-8")
    (second,) = svc.import_paths([src]).files
    assert second.status == "updated" and any("moved to the trash" in w for w in second.warnings)
    assert svc.count() == len(second.updated_ids) < parts  # the parts it kept, updated in place
    assert len(svc.list_trash()) == parts - svc.count()
    assert "Rule 1" not in svc.get(first.memory_ids[0]).content


def test_json_records_without_ids_are_found_again(svc, tmp_path):
    src = tmp_path / "records.jsonl"
    src.write_text("\n".join(json.dumps({"content": f"record {i}", "category": "context"}) for i in range(3)),
                   encoding="utf-8")
    assert len(svc.import_paths([src]).memory_ids) == 3
    (again,) = svc.import_paths([src]).files
    assert again.status == "skipped" and svc.count() == 3


def test_a_file_imported_by_an_earlier_version_is_recognised_by_its_source_and_text(svc, tmp_path):
    src = tmp_path / "plan.md"
    src.write_text("# Plan\n\nShip on Friday.\n", encoding="utf-8")
    (first,) = svc.import_paths([src]).files
    made = svc.get(first.memory_ids[0])
    svc.delete(made.id)
    svc.empty_trash()
    # What versions before fingerprints left: a random id, provenance without a fingerprint.
    old_prov = {k: v for k, v in made.provenance.items() if k != "fingerprint"}
    (old,) = svc.save_batch([{"content": made.content, "title": made.title, "provenance": old_prov}]).created_ids
    (again,) = svc.import_paths([src]).files
    assert again.status == "skipped" and "earlier version" in again.error and svc.count() == 1
    src.write_text("# Plan\n\nShip on Monday.\n", encoding="utf-8")
    (changed,) = svc.import_paths([src]).files
    assert changed.status == "imported" and any("earlier version" in w and "“Plan”" in w for w in changed.warnings)
    assert svc.count() == 2 and svc.get(old).content == made.content
