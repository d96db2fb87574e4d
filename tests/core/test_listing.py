"""Listing pages for the desktop app's memory list: sort keys, direction, and the keyword filter."""

from __future__ import annotations


def test_list_sorts_both_ways_and_filters_by_keyword(svc):
    a = svc.save("alpha text", title="Alpha", category="decisions", keywords=["db"], salience=0.2)
    b = svc.save("beta text", title="beta", category="context", keywords=["db", "ui"], salience=0.9)
    c = svc.save("gamma text", title="Gamma", category="summaries", keywords=["ui"], salience=0.5)
    svc.get(c.id)
    svc.get(c.id)

    def ids(**kw):
        return [it.id for it in svc.list_memories(**kw)]

    assert ids(order_by="title") == [a.id, b.id, c.id]
    assert ids(order_by="title", descending=True) == [c.id, b.id, a.id]
    assert ids(order_by="salience") == [b.id, c.id, a.id]
    assert ids(order_by="salience", descending=False) == [a.id, c.id, b.id]
    assert ids(order_by="category") == [b.id, a.id, c.id]
    assert ids(order_by="access_count")[0] == c.id
    assert set(ids(keyword="db")) == {a.id, b.id}
    assert svc.count(keyword="ui") == 2
    assert svc.count(keyword="nope") == 0
    assert ids(keyword="ui", limit=1, offset=1, order_by="title") == [c.id]


def test_a_list_page_in_any_sort_order_is_read_from_an_index(svc):
    """At 1,000,000 memories a page sorted without an index read and sorted the whole table, for every page;
    the page's pks come from an index in each order the memory list offers (no temporary sort)."""
    for i in range(30):
        svc.save(f"text {i}", title=f"Title {i % 7}", salience=(i % 10) / 10)
    statements: list[str] = []
    conn = svc.store.conn
    conn.set_trace_callback(statements.append)
    for order_by in ("updated", "title", "salience"):
        for descending in (True, False):
            assert len(svc.list_memories(order_by=order_by, descending=descending, limit=5, offset=10)) == 5
    conn.set_trace_callback(None)
    page_queries = [s for s in statements if s.startswith("SELECT m.pk FROM")]
    assert len(page_queries) == 6
    for sql in page_queries:
        plan = " ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql))
        assert "TEMP B-TREE" not in plan and "COVERING INDEX" in plan, (sql, plan)
