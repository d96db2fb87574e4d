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
