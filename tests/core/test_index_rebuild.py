"""The index is derived state: deleted, corrupt or stale, it is rebuilt from the files."""

from __future__ import annotations

import os
from pathlib import Path

from memory_curator.core.service import MemoryService


def _fill(svc, n=5):
    return [svc.save(f"memory number {i} about topic{i}", keywords=[f"k{i}"], category="decisions") for i in range(n)]


def test_deleting_the_index_rebuilds_it(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        saved = _fill(svc)
    for p in vault_dir.glob("index.db*"):
        p.unlink()
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert svc.count() == 5
        for m in saved:
            got = svc.get(m.id)
            assert got.content == m.content and got.keywords == m.keywords and got.created_at == m.created_at
        assert [r.memory.id for r in svc.search("topic3", mode="keyword")] == [saved[3].id]


def test_a_new_index_left_empty_is_filled_by_the_first_sync(vault_dir, config):
    """The app opens without filling a new index (a vault cloned with git has none): its opening sync, with
    progress, loads every file; a memory another process saved meanwhile is neither lost nor doubled."""
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        saved = _fill(svc, 4)
    for p in vault_dir.glob("index.db*"):
        p.unlink()
    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False, fill=False) as svc:
        assert svc.count() == 0
        with MemoryService.open(vault_dir, embedder="none", config=config, sync=False) as other:
            late = other.save("saved by another process before the first sync", category="decisions")
        steps = []
        report = svc.sync(progress=lambda done, total, _m="": steps.append((done, total)))
        assert svc.count() == 5 and report.added == 4 and steps and steps[-1][0] == steps[-1][1]
        assert {m.id for m in svc.list_memories(limit=10)} == {m.id for m in saved} | {late.id}
        assert svc.sync().changed == 0


def test_corrupt_index_is_set_aside_and_rebuilt(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        _fill(svc, 3)
    for p in vault_dir.glob("index.db-*"):
        p.unlink()
    (vault_dir / "index.db").write_bytes(b"this is not a database" * 100)
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert svc.count() == 3
    assert list((vault_dir / ".memory-curator").glob("index.db.corrupt-*"))


def test_an_index_a_newer_version_wrote_is_set_aside_and_rebuilt(vault_dir, config):
    """A downgraded app never writes to a schema it does not know (the newer version would misread its rows)."""
    from memory_curator.core.index import db, migrations

    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        _fill(svc, 3)
    conn = db.connect(vault_dir / "index.db")
    newer = migrations.MIGRATIONS[-1][0] + 1
    conn.execute("INSERT INTO schema_migrations (version, name) VALUES (?, 'from the future')", (newer,))
    conn.execute("DELETE FROM memories_fts")  # what this version can no longer trust
    conn.close()
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert svc.count() == 3
        assert len(svc.search("topic1", mode="keyword")) == 1
    kept = list((vault_dir / ".memory-curator").glob("index.db.newer-*"))
    assert [p.name.split(".")[-1].startswith("newer-") for p in kept] == [True] * len(kept) and kept
    conn = db.connect(next(p for p in kept if "-wal" not in p.name and "-shm" not in p.name))
    assert migrations.current_version(conn) == newer  # kept as it was, for the newer version
    conn.close()


def test_malformed_files_are_reported_skipped_and_never_deleted(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        _fill(svc, 2)
    broken = {
        "context/broken_yaml.md": "---\nid: [oops\n---\nbody\n",
        "context/unclosed.md": "---\nid: abc\nbody without end\n",
        "context/binary.md": "\x00\x01\x02 binary",
        "context/latin1.md": None,
    }
    (vault_dir / "context").mkdir(exist_ok=True)
    for rel, text in broken.items():
        path = vault_dir / rel
        if text is None:
            path.write_bytes("caf\xe9".encode("latin-1"))
        else:
            path.write_text(text)
    (vault_dir / "context" / "plain_note.md").write_text("# A note from Obsidian\n\nno frontmatter at all\n")
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        problems = {p.path: p.reason for p in svc.problems()}
        assert set(problems) == set(broken)
        assert "YAML" in problems["context/broken_yaml.md"] and "binary" in problems["context/binary.md"]
        assert svc.count() == 3  # 2 saved + the plain note, adopted
        assert svc.search("Obsidian", mode="keyword")[0].memory.title == "A note from Obsidian"
    for rel in broken:
        assert (vault_dir / rel).exists()


def test_external_edits_are_picked_up(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        a, b, c = _fill(svc, 3)
        path = Path(a.file_path)
        path.write_text(path.read_text().replace("memory number 0", "edited in vim"))
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10_000_000))
        assert svc.get(a.id).content.startswith("edited in vim")  # get() notices a changed file
        Path(b.file_path).unlink()
        (vault_dir / "decisions" / "new_from_git.md").write_text("---\nid: from-git\ntitle: Pulled\n---\nfresh text\n")
        report = svc.sync()
        assert (report.added, report.removed) == (1, 1)
        assert svc.get(b.id) is None and svc.get("from-git").content == "fresh text"


def test_duplicate_ids_are_reported(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        (m,) = _fill(svc, 1)
    # A copy that differs (an identical one needs no person: core/conflicts merges it away, to the trash).
    Path(m.file_path).with_name("copy.md").write_text(Path(m.file_path).read_text() + "\nEdited elsewhere.\n")
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert svc.count() == 1
        assert any("same id" in p.reason for p in svc.problems())


def test_rebuild_of_a_keyword_only_vault_asks_for_no_embedder(svc):
    # What the app's "Rebuild index" calls: embed=True by default, and there is nothing to embed with.
    _fill(svc, 3)
    report = svc.rebuild_index()
    assert report.added == 3 and report.warnings == ()


def test_rebuild_reports_progress_and_cancel(vault_dir, config):
    from memory_curator.core.errors import Cancelled
    from memory_curator.core.progress import CancelToken

    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        _fill(svc, 4)
        seen = []
        svc.rebuild_index(embed=False, progress=lambda d, t, m: seen.append((d, t)))
        assert seen[-1] == (4, 4)
        token = CancelToken()
        token.cancel()
        try:
            svc.rebuild_index(embed=False, cancel=token)
        except Cancelled:
            pass
        else:
            raise AssertionError("cancel was ignored")
