"""FTS5's bm25 computed from postings (core/index/bm25.py) is FTS5's own ranking: the same rows, in the same
order, with the same floats as ORDER BY bm25, on real FTS5 indexes after saves, updates and deletes."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_curator.core.index import bm25
from memory_curator.core.index.store import IndexStore
from memory_curator.core.model import MemoryItem, utcnow
from memory_curator.core.search import BM25_WEIGHTS
from memory_curator.core.text import tokens

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
    assert [bm25.stored_token(store, w) for w in ("planning", "Rivers", "café", "x_y", "__")] == [
        "plan", "river", "cafe", None, None]
    assert bm25.totals(store)[0] == 1


def test_varints_past_one_byte():
    assert bm25._varints(bytes([0x81, 0x00, 0x05, 0xFF, 0x7F])) == [128, 5, 16383]


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
            with store.transaction():
                for i, (title, content, keywords) in enumerate(docs):
                    store.upsert(_item(i, title, content, keywords), f"context/m{i}.md", 0, 0)
            for i, new in edits:
                with store.transaction():
                    if new is None:
                        store.delete(f"m{i}")
                    else:
                        store.upsert(_item(i, *new), f"context/m{i}.md", 0, 0)
            assert bm25.ranked(store, words, weights) == _plain(store, words, weights)
            assert bm25.ranked(store, words, weights, depth=3) == _plain(store, words, weights)[:3]
        finally:
            store.close()
