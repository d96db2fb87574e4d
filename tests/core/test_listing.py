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
