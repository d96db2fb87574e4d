"""Save, get, update, delete through MemoryService on a real vault and index."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_curator.core.errors import MemoryNotFoundError, ValidationError
from memory_curator.core.service import MemoryService
from memory_curator.core.vault.codec import split_frontmatter


def test_save_and_get(svc):
    memory = svc.save("Test content", category="decisions")
    retrieved = svc.get(memory.id)
    assert retrieved.content == "Test content"
    assert retrieved.category == "decisions"
    path = Path(memory.file_path)
    assert path.parent.name == "decisions" and path.name.endswith("_test_content.md")
    meta, body = split_frontmatter(path.read_text())
    assert meta["id"] == memory.id and meta["salience"] == 0.8 and body.strip() == "Test content"


def test_delete_removes_file_and_index(svc):
    memory = svc.save("Temporary thought")
    assert svc.delete(memory.id) is True
    assert svc.get(memory.id) is None
    assert not Path(memory.file_path).exists()
    assert svc.delete(memory.id) is False  # idempotent
    assert len(list(svc.vault.scan_trash())) == 1  # nothing is lost: it went to the trash


def test_update_rewrites_file_and_keeps_unknown_keys(svc):
    memory = svc.save("First version", title="Plan", keywords=["a"])
    path = Path(memory.file_path)
    path.write_text(path.read_text().replace("salience: 0.8\n", "salience: 0.8\nmy_plugin_key: keep me\n"))
    updated = svc.update(memory.id, content="Second version", keywords=["b", "c"], salience=0.3)
    assert updated.content == "Second version" and updated.keywords == ("b", "c") and updated.salience == 0.3
    text = path.read_text()
    assert "my_plugin_key: keep me" in text and "Second version" in text
    assert updated.updated_at >= memory.updated_at and updated.created_at == memory.created_at


def test_update_category_moves_the_file(svc):
    memory = svc.save("Use SQLite", category="context")
    moved = svc.update(memory.id, category="decisions")
    assert Path(moved.file_path).parent.name == "decisions"
    assert Path(moved.file_path).exists() and not Path(memory.file_path).exists()


def test_update_unknown_id(svc):
    with pytest.raises(MemoryNotFoundError):
        svc.update("no-such-id", content="x")


@pytest.mark.parametrize("content", ["", "   \n\t", None])
def test_empty_content_is_refused(svc, content):
    with pytest.raises(ValidationError):
        svc.save(content)
    assert svc.count() == 0


def test_huge_content_is_refused_and_nothing_written(svc, vault_dir):
    with pytest.raises(ValidationError, match="MiB"):
        svc.save("x" * (11 * 1024 * 1024))
    assert list(svc.vault.scan()) == []


def test_binary_content_is_refused(svc):
    with pytest.raises(ValidationError, match="binary"):
        svc.save("abc\x00def")


@pytest.mark.parametrize("salience", [-0.1, 1.5, float("nan"), "high"])
def test_salience_out_of_range(svc, salience):
    with pytest.raises(ValidationError):
        svc.save("text", salience=salience)


def test_path_tricks_in_titles_stay_inside_the_vault(svc, vault_dir):
    for title in ["../../escape", "/etc/passwd", "..\\..\\win", "a/../../b", "~/.ssh/id_rsa"]:
        m = svc.save("payload", title=title)
        assert Path(m.file_path).resolve().is_relative_to(vault_dir.resolve() / "context")
        assert m.title == title  # the title itself is kept as written


def test_same_title_twice_gets_a_suffix(svc):
    a = svc.save("one", title="Same")
    b = svc.save("two", title="Same")
    assert a.file_path != b.file_path and b.file_path.endswith("_same_2.md")


def test_unicode_titles(svc):
    m = svc.save("東京に住んでいます", title="東京の生活")
    assert Path(m.file_path).name.endswith("_東京の生活.md")


def test_search_does_not_rewrite_files(svc):
    m = svc.save("Coffee every morning")
    before = Path(m.file_path).stat().st_mtime_ns
    svc.search("coffee", mode="keyword")
    svc.get(m.id)
    assert Path(m.file_path).stat().st_mtime_ns == before
    assert svc.get(m.id).access_count == 3


def test_save_batch_rollback_writes_nothing_on_bad_item(svc):
    with pytest.raises(ValidationError, match="Item 1"):
        svc.save_batch([{"content": "ok"}, {"content": ""}])
    assert svc.count() == 0 and list(svc.vault.scan()) == []


def test_save_batch_skip_reports_errors(svc):
    res = svc.save_batch([{"content": "ok", "keywords": ["k"]}, {"content": ""}, {"content": "also ok"}], mode="skip")
    assert res.success_count == 2 and res.error_count == 1 and res.errors[0]["index"] == 1
    assert [svc.get(i).content for i in res.created_ids] == ["ok", "also ok"]


def test_sessions(svc):
    svc.save("first", session_id="s1")
    svc.save("second", session_id="s1")
    svc.save("other", session_id="s2")
    assert [m.content for m in svc.get_session_context("s1")] == ["first", "second"]
    assert svc.get_raw_session_content("s1") == "first\n\nsecond"
    assert svc.get_session_token_count("s1") == len("first\n\nsecond") // 4


def test_stats(svc):
    svc.save("a" * 400, category="decisions", salience=0.5)
    svc.save("b" * 400, category="context", salience=1.0)
    s = svc.stats()
    assert s.total_count == 2 and s.by_category == {"decisions": 1, "context": 1}
    assert s.total_tokens == 200 and s.avg_salience == 0.75 and s.index_size_bytes > 0
    assert s.unembedded_count == 2


def test_reopen_keeps_everything(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as a:
        m = a.save("persist me", keywords=["x"])
    with MemoryService.open(vault_dir, embedder="none", config=config) as b:
        assert b.get(m.id).content == "persist me"


def test_trash_restore_and_empty(svc):
    m = svc.save("keep me safe", keywords=["x"])
    svc.delete(m.id)
    (trashed,) = svc.list_trash()
    assert trashed.id == m.id and ".trash" in trashed.file_path
    restored = svc.restore(m.id)
    assert restored.content == "keep me safe" and svc.search("safe", mode="keyword")[0].memory.id == m.id
    assert svc.list_trash() == []
    svc.delete(m.id)
    assert svc.empty_trash() == 1 and svc.list_trash() == []


def test_a_file_is_not_a_vault(tmp_path, config):
    from memory_curator.core.errors import StorageError

    not_a_folder = tmp_path / "notes.txt"
    not_a_folder.write_text("mine")
    with pytest.raises(StorageError, match="not a folder"):
        MemoryService.open(not_a_folder, embedder="none", config=config)
    assert not_a_folder.read_text() == "mine"


def test_restore_many_reads_the_trash_once_and_reports_what_is_missing(svc):
    import pytest

    from memory_curator.core.errors import MemoryNotFoundError

    a, b, c = (svc.save(f"note {i}") for i in range(3))
    for m in (a, b, c):
        svc.delete(m.id)
    back = svc.restore_many([c.id, a.id])
    assert [m.id for m in back] == [c.id, a.id] and svc.get(a.id).content == "note 0"
    with pytest.raises(MemoryNotFoundError):
        svc.restore_many([b.id, "never-was"])
    assert svc.get(b.id) is None  # nothing restored when one is missing
    assert [m.id for m in svc.restore_many([b.id, "never-was"], missing_ok=True)] == [b.id]
