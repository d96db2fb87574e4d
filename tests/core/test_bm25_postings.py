"""FTS5's bm25 computed from postings (core/index/bm25.py) is FTS5's own ranking: the same rows, in the same
order, with the same floats as ORDER BY bm25, on real FTS5 indexes after saves, updates and deletes."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_curator.core import search
from memory_curator.core.index import bm25, maxscore, postings, search_rows
from memory_curator.core.index.filters import Filters
from memory_curator.core.index.rows import memory_row
from memory_curator.core.index.store import IndexStore
from memory_curator.core.model import MemoryItem, utcnow
from memory_curator.core.search import BM25_WEIGHTS
from memory_curator.core.text import tokens
from old_index import write_old_index

# Porter folds some of these together (plans / planning / planned), some carry case or diacritics.
WORDS = ["river", "rivers", "plans", "planning", "planned", "stone", "Stone", "café", "cafe", "quokka",
         "running", "runs", "garden", "caresses", "ponies", "window"]
FILLER = ["lorem", "ipsum", "dolor", "amet"]


def _item(i: int, title: str, content: str, keywords: tuple[str, ...]) -> MemoryItem:
    now = utcnow()
    return MemoryItem(id=f"m{i}", content=content, title=title, category="context", created_at=now,
                      updated_at=now, keywords=keywords)


def _plain(store: IndexStore, words: list[str], weights) -> list[tuple[int, float]]:
    w = ", ".join(str(float(x)) for x in weights)
    return [tuple(r) for r in store.conn.execute(
        f"SELECT rowid, bm25(memories_fts, {w}) AS r FROM memories_fts WHERE memories_fts MATCH ? "
        "ORDER BY r, rowid", (tokens.fts_match(words),))]


def test_columns_are_the_ones_queries_match():
    assert tokens.TEXT_COLUMNS == "{" + " ".join(bm25.TEXT) + "}"


def test_a_word_is_read_as_the_index_stores_it(tmp_path):
    store = IndexStore.open(tmp_path / "index.db", tmp_path)
    with store.transaction():
        store.upsert(_item(0, "Planning", "rivers and Cafés", ()), "context/m0.md", 0, 0)
    assert [bm25.stored_token(store.conn, w) for w in ("planning", "Rivers", "café", "x_y", "__")] == [
        "plan", "river", "cafe", None, None]
    assert bm25.totals(store.conn)[0] == 1


def test_varints_past_one_byte():
    assert bm25._varints(bytes([0x81, 0x00, 0x05, 0xFF, 0x7F])) == [128, 5, 16383]
    assert bm25.size(bytes([0x81, 0x00, 0x05, 0xFF, 0x7F])) == 128 + 5 + 16383
    assert bm25.size(bytes([3, 0x57, 2])) == 3 + 0x57 + 2


def _write(store: IndexStore, docs, edits, common: int | None = None) -> None:
    """Save ``docs`` as m0, m1, ..., build the kept postings when ``common`` is given, then apply ``edits``
    (index, None to delete or a new doc), each in a transaction of its own."""
    with store.transaction():
        for i, (title, content, keywords) in enumerate(docs):
            store.upsert(_item(i, title, content, keywords), f"context/m{i}.md", 0, 0)
    if common is not None:
        _with_base(store, common)
    for i, new in edits:
        with store.transaction():
            if new is None:
                store.delete(f"m{i}")
            else:
                store.upsert(_item(i, *new), f"context/m{i}.md", 0, 0)


text = st.lists(st.sampled_from(WORDS + FILLER), min_size=0, max_size=12).map(" ".join)
doc = st.tuples(text, text, st.lists(st.sampled_from(WORDS), max_size=2).map(tuple))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(doc, min_size=1, max_size=60),
       edits=st.lists(st.tuples(st.integers(0, 59), st.one_of(st.none(), doc)), max_size=15),
       words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True),
       weights=st.sampled_from([BM25_WEIGHTS, (1.0, 1.0, 1.0, 1.0), (0.3, 1.7, 2.9, 0.0), (5.0, 0.1, 0.7, 3.0)]))
def test_scores_from_postings_are_fts5s_own(docs, edits, words, weights):
    """Random corpora (repeated rows give tied scores; stems, case and diacritics fold words together), then
    updates and deletes through the store: every row holding a query word, float for float."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = IndexStore.open(root / "index.db", root)
        try:
            _write(store, docs, edits)
            assert bm25.ranked(store.conn, words, weights) == _plain(store, words, weights)
            assert bm25.ranked(store.conn, words, weights, depth=3) == _plain(store, words, weights)[:3]
        finally:
            store.close()


def _with_base(store: IndexStore, common: int) -> None:
    with store.transaction():
        postings.build(store.conn, common=common, min_rows=0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(doc, min_size=1, max_size=60),
       edits=st.lists(st.tuples(st.integers(0, 69), st.one_of(st.none(), doc)), max_size=15),
       added=st.lists(doc, max_size=5),
       words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True),
       common=st.sampled_from([1, 3, 10]), depth=st.sampled_from([1, 3, 10, 100]),
       weights=st.sampled_from([BM25_WEIGHTS, (1.0, 1.0, 1.0, 1.0), (0.3, 1.7, 2.9, 0.0)]))
def test_kept_postings_rank_as_fts5_after_every_kind_of_write(docs, edits, added, words, common, depth, weights):
    """The base built, then saves (new ids and existing ones), deletes and a bulk insert through the store:
    the ranking from the kept postings is ORDER BY bm25's top, row for row and float for float."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = IndexStore.open(root / "index.db", root)
        try:
            _write(store, docs, [], common)
            _write(store, [], edits)
            with store.transaction():
                store.insert_rows([memory_row(_item(100 + j, *d), f"context/m{100 + j}.md", 0, 0)
                                   for j, d in enumerate(added)])
            kept = postings.ranked(store.conn, words, weights, depth)
            if postings.has_base(store.conn):
                assert kept == _plain(store, words, weights)[:depth]
        finally:
            store.close()


def test_keyword_search_reads_kept_postings_and_a_rebuild_clears_them(tmp_path):
    store = IndexStore.open(tmp_path / "index.db", tmp_path)
    with store.transaction():
        for i in range(40):
            store.upsert(_item(i, "note", f"river stone {FILLER[i % 4]}" + " quokka" * (i % 3), ()),
                         f"context/m{i}.md", 0, 0)
    _with_base(store, 5)
    assert postings.has_base(store.conn)
    words = ["quokka", "river"]
    plain = search_rows.fts_top(store, tokens.fts_match(words), BM25_WEIGHTS, Filters(), 10)
    via = maxscore.fts_top_pruned(store, words, BM25_WEIGHTS, Filters(), 10)
    assert [tuple(r) for r in via] == [tuple(r) for r in plain]
    store.clear_all_at_once()
    assert not postings.has_base(store.conn)
    assert postings.ranked(store.conn, words, BM25_WEIGHTS, 10) is None


def test_no_base_below_min_rows(tmp_path):
    store = IndexStore.open(tmp_path / "index.db", tmp_path)
    with store.transaction():
        store.upsert(_item(0, "note", "river", ()), "context/m0.md", 0, 0)
        postings.build(store.conn, common=1)
    assert not postings.has_base(store.conn)


def test_deleted_updated_and_bulk_rows_leave_the_kept_postings_right(tmp_path):
    store = IndexStore.open(tmp_path / "index.db", tmp_path)
    with store.transaction():
        for i in range(10):
            store.upsert(_item(i, "note", "river stone" if i % 2 else "river", ()), f"context/m{i}.md", 0, 0)
    _with_base(store, 1)
    with store.transaction():
        store.delete("m3")
        store.upsert(_item(4, "river", "river river planning", ("stone",)), "context/m4.md", 0, 0)
        store.insert_rows([memory_row(_item(20, "stone", "rivers", ()), "context/m20.md", 0, 0)])
    for words in (["river"], ["stone", "river"], ["plans"]):
        assert postings.ranked(store.conn, words, BM25_WEIGHTS, 100) == _plain(store, words, BM25_WEIGHTS)


def test_an_index_from_before_migration_14_gains_the_tables_and_still_ranks(tmp_path):
    write_old_index(tmp_path, 13, "mem_1", "context/a.md", "River plans", "The river was planned.", ["river"])
    store = IndexStore.open(tmp_path / "index.db", tmp_path)
    assert store.conn.execute("SELECT count(*) FROM fts_postings").fetchone()[0] == 0  # a small index: no base
    assert postings.ranked(store.conn, ["river"], BM25_WEIGHTS, 10) is None
    assert bm25.ranked(store.conn, ["river", "plans"], BM25_WEIGHTS) == _plain(store, ["river", "plans"], BM25_WEIGHTS)
    with store.transaction():
        postings.build(store.conn, common=1, min_rows=0)
    assert postings.ranked(store.conn, ["plans"], BM25_WEIGHTS, 10) == _plain(store, ["plans"], BM25_WEIGHTS)


def test_the_first_rows_alone_are_checked_against_the_filters_when_enough_pass(tmp_path):
    """With ``want``, the kept ranking's first rows are checked against the filters and returned alone when all
    pass; when one of them does not, every row is checked: the search's rows are the plain ranking's either way."""
    store = IndexStore.open(tmp_path / "index.db", tmp_path)
    with store.transaction():
        for i in range(40):
            item = _item(i, "note", "river stone" + " quokka" * (i % 4), ())
            item = MemoryItem(**{**item.__dict__, "category": "decisions" if i % 7 == 0 else "context"})
            store.upsert(item, f"{item.category}/m{i}.md", 0, 0)
    _with_base(store, 5)
    words = ["quokka", "river"]
    for filters in (Filters(), Filters(category="context")):
        plain = [tuple(r) for r in search_rows.fts_top(store, tokens.fts_match(words), BM25_WEIGHTS, filters, 30)]
        via = maxscore.fts_top_pruned(store, words, BM25_WEIGHTS, filters, 30, want=10)
        assert [tuple(r) for r in via] == (plain[:10] if filters.category is None else plain)
        assert search.keyword_ranked(store, words, filters, 10) == [(pk, r) for pk, r, ok in plain if ok][:10]
