"""Pages that follow a memory (``list_memories(after=...)``): found from its sort key, so memories saved above
it while a list is being read skip or repeat nothing, in every order with a key, ties broken as without."""

from __future__ import annotations

import pytest

from memory_curator.core.index import listing

ORDERS = ["updated", "created", "title", "salience", "category", "session", "access_count"]


def _all(svc, order_by, descending):
    return [it.id for it in svc.list_memories(limit=10_000, order_by=order_by, descending=descending)]


def _paged(svc, order_by, descending, size):
    ids, last = [], None
    for _ in range(100):  # bounded: a page that ignored ``after`` would come back forever
        page = svc.list_memories(limit=size, offset=len(ids), order_by=order_by, descending=descending, after=last)
        if not page:
            break
        ids += [it.id for it in page]
        last = page[-1]
    return ids


@pytest.fixture
def listed(svc):
    for i in range(23):  # few titles, saliences and categories: many ties, broken by the row's number
        svc.save(f"Memory {i}.", title=f"Title {i % 3}", salience=(i % 4) / 4,
                 category=("decisions", "context")[i % 2], session_id=f"s{i % 5}")
    return svc


@pytest.mark.parametrize("order_by", ORDERS)
@pytest.mark.parametrize("descending", [None, True, False])
def test_pages_after_a_memory_list_every_memory_once_in_order(listed, order_by, descending):
    assert _paged(listed, order_by, descending, 4) == _all(listed, order_by, descending)


@pytest.mark.parametrize("order_by", ["updated", "title", "salience"])
def test_saves_above_the_last_row_listed_skip_or_repeat_nothing(listed, order_by):
    before = _all(listed, order_by, None)
    first = listed.list_memories(limit=8, order_by=order_by)
    # Newest (so first by date), titled and weighted to sort before the rows already listed.
    for i in range(5):
        listed.save(f"Inserted {i}.", title="A first title", salience=1.0)
    rest, last = [], first[-1]
    for _ in range(100):  # bounded: a page that ignored ``after`` would come back forever
        page = listed.list_memories(limit=4, order_by=order_by, after=last)
        if not page:
            break
        rest += [it.id for it in page]
        last = page[-1]
    assert [it.id for it in first] + rest == before


def test_a_page_after_a_deleted_memory_starts_at_its_key(listed):
    ordered = listed.list_memories(limit=100, order_by="title")
    gone = ordered[9]
    listed.delete(gone.id)
    after = [it.id for it in listed.list_memories(limit=100, order_by="title", after=gone)]
    # Every memory with the deleted one's title follows it (the ones listed before may come again), none is lost.
    assert set(after) >= {it.id for it in ordered[10:]}
    assert all(it.title >= gone.title for it in listed.list_memories(limit=100, order_by="title", after=gone))


def test_a_page_after_a_memory_seeks_the_sort_columns_index(listed):
    """The query plan: the keyed page reads the sort column's index from the key (no temp B-tree to sort)."""
    store, anchor = listed.store, listed.list_memories(limit=1)[0]
    statements = []
    store.conn.set_trace_callback(statements.append)
    try:
        listing.page(store, listing.Filters(), None, "updated", None, 10, 0, anchor)
    finally:
        store.conn.set_trace_callback(None)
    query = next(s for s in statements if "ORDER BY" in s)
    plan = " ".join(r[3] for r in store.conn.execute("EXPLAIN QUERY PLAN " + query))
    assert "idx_memories_updated (updated_at<?)" in plan and "TEMP B-TREE" not in plan, (plan, query)
