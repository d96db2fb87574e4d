"""update_batch: the save_batch contract, all or nothing in rollback mode, per-item errors in skip mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_curator.core.errors import MemoryNotFoundError, StorageError, ValidationError
from memory_curator.core.lifecycle import batches
from memory_curator.core.progress import Tracker


def _fill(svc, n):
    return svc.save_batch([{"content": f"note {i} about apples", "keywords": ["fruit"]} for i in range(n)])


def test_updates_in_rollback_mode(svc):
    saved = _fill(svc, 3)
    result = svc.update_batch([{"id": saved[0].id, "content": "note zero about pears"},
                               {"id": saved[1].id, "salience": 0.3, "valence": 0.5},
                               {"id": saved[2].id, "category": "decisions", "keywords": ["x"]}])
    assert result.as_dict() == {"success_count": 3, "error_count": 0, "created_ids": saved.created_ids, "errors": []}
    assert svc.get(saved[0].id).content == "note zero about pears"
    assert svc.get(saved[1].id).salience == 0.3 and svc.get(saved[1].id).typed == {"valence": 0.5}
    moved = svc.get(saved[2].id)
    assert Path(moved.file_path).parent.name == "decisions" and moved.keywords == ("x",)
    assert [r.memory.id for r in svc.search("pears", mode="keyword")] == [saved[0].id]


def test_rollback_mode_changes_nothing_on_a_bad_update(svc):
    saved = _fill(svc, 3)
    before = {it.id: Path(it.file_path).read_bytes() for it in saved}
    with pytest.raises(ValidationError) as err:
        svc.update_batch([{"id": saved[0].id, "content": "changed"}, {"id": saved[1].id, "salience": 7}])
    assert "Update 1" in str(err.value)
    with pytest.raises(MemoryNotFoundError):
        svc.update_batch([{"id": saved[0].id, "content": "changed"}, {"id": "missing", "content": "y"}])
    assert {it.id: Path(it.file_path).read_bytes() for it in saved} == before


def test_rollback_puts_files_back_when_a_write_fails(svc):
    saved = _fill(svc, 4)
    before = {it.id: Path(it.file_path).read_bytes() for it in saved}
    (svc.vault.root / "blocked").write_text("a file where a category folder would go")
    updates = [{"id": saved[0].id, "content": "first rewritten"}, {"id": saved[1].id, "salience": 0.1},
               {"id": saved[2].id, "category": "blocked"}, {"id": saved[3].id, "content": "never"}]
    with pytest.raises(StorageError, match="a file is where a folder should be"):
        batches.update_batch(svc.memories, updates, "rollback", Tracker(0), chunk=2)  # fails in the second chunk
    assert {it.id: Path(it.file_path).read_bytes() for it in saved} == before
    assert svc.get(saved[0].id).content == "note 0 about apples"
    assert svc.search("rewritten", mode="keyword") == []


def test_skip_mode_reports_errors_and_goes_on(svc):
    saved = _fill(svc, 3)
    (svc.vault.root / "blocked").write_text("not a folder")
    result = svc.update_batch([
        {"id": saved[0].id, "title": "renamed"},
        {"id": "missing", "title": "x"},
        {"content": "no id"},
        {"id": saved[1].id, "arousal": 3},
        {"id": saved[2].id, "category": "blocked"},
        {"id": saved[0].id, "title": "twice"},
    ], mode="skip")
    assert result.success_count == 1 and result.created_ids == [saved[0].id]
    assert [(e["index"], e["code"]) for e in result.errors] == [
        (1, "NOT_FOUND"), (2, "VALIDATION_ERROR"), (3, "OUT_OF_RANGE"), (4, "STORAGE_ERROR"), (5, "DUPLICATE_ID")]
    assert svc.get(saved[0].id).title == "renamed"
    assert svc.get(saved[2].id).category == "context"


def test_big_batches_are_chunked(svc):
    saved = _fill(svc, 25)
    updates = [{"id": it.id, "salience": 0.5} for it in saved]
    seen = []
    items, errors = batches.update_batch(svc.memories, updates, "rollback", Tracker(0, lambda d, t, m: seen.append(d)), chunk=10)
    assert len(items) == 25 and errors == [] and seen == [10, 20, 25]
    assert all(svc.get(it.id).salience == 0.5 for it in saved)


def test_bad_mode(svc):
    with pytest.raises(ValidationError):
        svc.update_batch([], mode="maybe")
