"""IndexStore.upsert of a memory whose file path another row still holds (real index)."""

from __future__ import annotations

from dataclasses import replace


def test_a_row_written_where_another_memory_held_the_path_replaces_it(svc):
    """A file rewritten under a new id (another program): the row that held its path goes, the new one stays."""
    old = svc.save("the first text of this file", title="same file")
    rel = svc.store.file_info(old.id).file_path
    new = replace(old, id="mem_written_again", content="the file written again with another id")
    with svc.store.transaction():
        svc.store.upsert(new, rel, 1, 1)
    assert svc.store.get(old.id) is None
    assert svc.store.get(new.id).content == new.content and svc.store.file_info(new.id).file_path == rel
    assert svc.store.conn.execute("SELECT COUNT(*) FROM memories WHERE file_path = ?", (rel,)).fetchone()[0] == 1
    # Everything derived from the old row goes with it: its full-text entry was left behind (a contentless FTS5
    # row for a gone pk, which a later row reusing that pk would have met), and so were its chunks.
    fts = svc.store.conn.execute("SELECT COUNT(*) FROM memories_fts WHERE memories_fts MATCH 'first'").fetchone()[0]
    assert fts == 0
    assert svc.store.conn.execute("SELECT COUNT(*) FROM memories_fts").fetchone()[0] == \
        svc.store.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
    assert [r.memory.id for r in svc.search("first", mode="keyword")] == []
