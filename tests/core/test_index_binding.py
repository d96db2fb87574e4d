"""Values bound to SQLite statements through the index's connection (core/index/db.py)."""

from __future__ import annotations

from memory_curator.core.index import db


def test_none_is_bound_as_null_through_the_adapter_registry(tmp_path):
    """Without an adapter for None, sqlean raised and formatted an AttributeError for every None it bound
    (1.6 us each; a memory row has about four): found in the registry, it is bound as NULL as before."""
    assert any(kind is type(None) for kind, _ in db.sqlite.adapters)
    conn = db.connect(tmp_path / "index.db")
    conn.execute("CREATE TABLE t (a, b)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(None, 1), (None, None)])
    assert conn.execute("SELECT typeof(a), typeof(b) FROM t ORDER BY rowid").fetchall() == [("null", "integer"), ("null", "null")]
    assert conn.execute("SELECT count(*) FROM t WHERE a IS NULL").fetchone() == (2,)
    conn.close()


def test_a_small_index_is_mapped_whole_and_a_large_one_only_in_part(tmp_path):
    """A connection maps the whole file while it is at most MMAP_WHOLE_MAX (room to grow included); past that only
    MMAP_BYTES, so a 1,000,000-memory index does not put gigabytes of mapped pages into the app's memory."""
    small = tmp_path / "small.db"
    conn = db.connect(small)
    conn.execute("CREATE TABLE t (a)")
    assert conn.execute("PRAGMA mmap_size").fetchone()[0] == db.MMAP_WHOLE_MAX
    conn.close()
    large = tmp_path / "large.db"
    with db.sqlite.connect(str(large)) as plain:
        plain.execute("CREATE TABLE t (a)")
    with open(large, "r+b") as f:
        f.truncate(db.MMAP_WHOLE_MAX + 4096)  # sparse: no disk space used
    conn = db.connect(large)
    assert conn.execute("PRAGMA mmap_size").fetchone()[0] == db.MMAP_BYTES
    conn.close()
    assert db.mmap_size(tmp_path / "not-there-yet.db") == db.MMAP_WHOLE_MAX


def test_a_service_that_does_not_search_maps_no_part_of_a_large_index(tmp_path):
    """The app's writer and Vault health's lane (``searches=False``): each mapping of the index counts in the
    app's memory again, and only the reader searches. A small index is still mapped whole; the large one is read
    all the same."""
    from memory_curator.core.service import MemoryService

    vault = tmp_path / "vault"
    with MemoryService.open(vault, embedder="none", searches=False) as svc:
        svc.save("A note about zeppelins", title="Zeppelins")
        assert svc.store.conn.execute("PRAGMA mmap_size").fetchone()[0] == db.MMAP_WHOLE_MAX
    with open(svc.vault.index_path, "r+b") as f:
        f.truncate(db.MMAP_WHOLE_MAX + 4096)  # sparse: SQLite leaves bytes past its last page alone
    for searches, mapped in ((False, 0), (True, db.MMAP_BYTES)):
        with MemoryService.open(vault, embedder="none", sync=False, searches=searches) as svc:
            assert svc.store.conn.execute("PRAGMA mmap_size").fetchone()[0] == mapped
            db.refit_mmap(svc.store.conn)  # as a rebuild's end does: the choice stays the connection's
            assert svc.store.conn.execute("PRAGMA mmap_size").fetchone()[0] == mapped
            assert [h.memory.title for h in svc.search("zeppelins", mode="keyword")] == ["Zeppelins"]


def test_a_rebuild_fits_the_mapping_to_the_file_it_leaves(tmp_path):
    """A connection opened on a small index maps up to MMAP_WHOLE_MAX; when a bulk load (a rebuild, the fill of a
    new index) leaves the file past that, the mapping falls to MMAP_BYTES, as an open of that file would choose,
    instead of keeping a gigabyte and a half of the file in the app's memory. (The file is made large sparsely:
    SQLite leaves bytes past its last page alone.)"""
    from memory_curator.core.service import MemoryService

    with MemoryService.open(tmp_path / "vault", embedder="none") as svc:
        svc.save("A note about zeppelins", title="Zeppelins")
        conn = svc.store.conn
        assert conn.execute("PRAGMA mmap_size").fetchone()[0] == db.MMAP_WHOLE_MAX
        with open(svc.vault.index_path, "r+b") as f:
            f.truncate(db.MMAP_WHOLE_MAX + 4096)
        svc.rebuild_index(embed=False)
        assert conn.execute("PRAGMA mmap_size").fetchone()[0] == db.MMAP_BYTES
        assert [h.memory.title for h in svc.search("zeppelins", mode="keyword")] == ["Zeppelins"]
