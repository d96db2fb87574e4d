"""Keyword ranking that skips rows (core/index/maxscore.py) returns what ranking every match returns: the same
rows in the same order with the same bm25 floats, on real FTS5 indexes."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_curator.core.index import maxscore, search_rows
from memory_curator.core.index.filters import Filters
from memory_curator.core.index.store import IndexStore
from memory_curator.core.model import MemoryItem, utcnow
from memory_curator.core.search import BM25_WEIGHTS
from memory_curator.core.text import tokens

RARE = ["zanzibar", "quokka", "xylophone"]
COMMON = ["river", "stone", "garden", "window"]
FILLER = ["lorem", "ipsum", "dolor", "amet", "tempor", "magna"]


def _index(root: Path, docs: list[tuple[str, str, tuple[str, ...]]], superseded: set[int] = frozenset()) -> IndexStore:
    store = IndexStore.open(root / "index.db", root)
    now = utcnow()
    with store.transaction():
        for i, (title, content, keywords) in enumerate(docs):
            item = MemoryItem(id=f"m{i}", content=content, title=title, category="context", created_at=now,
                              updated_at=now, keywords=keywords, superseded_by="m0" if i in superseded else None)
            store.upsert(item, f"context/m{i}.md", 0, 0)
    return store


def _both(store: IndexStore, terms: list[str], depth: int):
    filters = Filters()
    plain = search_rows.fts_top(store, tokens.fts_match(terms), BM25_WEIGHTS, filters, depth)
    return [tuple(r) for r in plain], maxscore.fts_top_pruned(store, terms, BM25_WEIGHTS, filters, depth, min_rows=0)


def test_common_words_are_pruned_yet_a_row_holding_them_often_enters_the_top(tmp_path):
    # 300 rows hold "river" once, 40 hold the rare "quokka" with "river": the top 10 of "quokka river" is
    # theirs and rows holding "river" alone are never scored. A row with "river" many times in its title,
    # body and tags is still below them: a common word's part never reaches its bound.
    docs = [("note", f"river {FILLER[i % 6]} {FILLER[(i + 1) % 6]}", ()) for i in range(300)]
    docs += [("note", f"quokka river {FILLER[i % 6]}", ()) for i in range(40)]
    docs += [("river river", "river " * 30, ("river",))]
    store = _index(tmp_path, docs)
    plain, pruned = _both(store, ["quokka", "river"], 10)
    assert pruned is not None, "the pruned path must be taken here"
    assert [tuple(r) for r in pruned] == plain
    assert all(pk > 300 for pk, _, _ in plain)


def test_a_row_holding_only_a_common_word_enters_the_top_when_it_scores_high_enough(tmp_path):
    # "river" in a tenth of the rows is no stop word: one row holding it in its title, body and tags beats
    # every long row holding "quokka" and "river" once. Its word's bound is above the 10th best score, so
    # the common word must not be pruned (a tighter bound than idf * (k1 + 1) would lose this row).
    docs = [("note", f"river {FILLER[i % 6]}", ()) for i in range(60)]
    docs += [("note", " ".join(FILLER[j % 6] for j in range(i, i + 4)), ()) for i in range(900)]
    docs += [("note", "quokka river " + " ".join(FILLER * 2), ()) for _ in range(40)]
    docs += [("river", "river river river", ("river",))]
    store = _index(tmp_path, docs)
    plain, pruned = _both(store, ["quokka", "river"], 10)
    assert plain[0][0] == len(docs)
    assert pruned is None or [tuple(r) for r in pruned] == plain


def test_a_rare_word_alone_can_beat_rows_with_both_words(tmp_path):
    # Rows with the rare word only (no common word) must be ranked too: here they are the best.
    docs = [("note", f"river {FILLER[i % 6]}", ()) for i in range(300)]
    docs += [("quokka", "quokka quokka quokka", ("quokka",)) for _ in range(15)]
    docs += [("note", f"quokka river {FILLER[i % 6]} {FILLER[(i + 2) % 6]} tempor magna", ()) for i in range(30)]
    store = _index(tmp_path, docs)
    plain, pruned = _both(store, ["quokka", "river"], 10)
    assert pruned is not None
    assert [tuple(r) for r in pruned] == plain
    assert {pk for pk, _, _ in plain} <= set(range(301, 316))


def test_filters_are_applied_to_the_pruned_top(tmp_path):
    docs = [("note", f"river {FILLER[i % 6]}", ()) for i in range(300)]
    docs += [("note", f"quokka river {FILLER[i % 6]}", ()) for i in range(40)]
    store = _index(tmp_path, docs, superseded={304, 310})  # pks 305 and 311
    plain, pruned = _both(store, ["quokka", "river"], 10)
    assert pruned is not None and [tuple(r) for r in pruned] == plain
    assert [bool(allowed) for pk, _, allowed in pruned if pk in (305, 311)] == [False, False]


WORDS = ["quokka", "zanzibar", "river", "stone", "garden"]
SKEWED = ["quokka"] + ["zanzibar"] * 2 + ["river", "stone", "garden"] * 4 + FILLER * 3
doc = st.tuples(
    st.lists(st.sampled_from(SKEWED), max_size=2).map(" ".join),
    st.lists(st.sampled_from(SKEWED), min_size=1, max_size=10).map(" ".join),
    st.lists(st.sampled_from(WORDS + FILLER), max_size=2).map(tuple),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(doc, min_size=60, max_size=150), padding=st.integers(100, 300),
       terms=st.lists(st.sampled_from(WORDS), min_size=2, max_size=4, unique=True),
       depth=st.sampled_from([1, 2, 3, 5]))
def test_pruned_top_is_the_full_ranking_top(docs, padding, terms, depth):
    """Random small corpora (words of skewed frequencies, rows repeated, so tied scores; rows of filler words
    to make the query's words rarer): whenever the pruned path answers, it is the full ORDER BY bm25 top,
    row for row and float for float."""
    with tempfile.TemporaryDirectory() as tmp:
        store = _index(Path(tmp), docs + [("note", " ".join(FILLER[: 1 + i % 6]), ()) for i in range(padding)])
        try:
            plain, pruned = _both(store, terms, depth)
            if pruned is not None:
                assert [tuple(r) for r in pruned] == plain
        finally:
            store.close()


def test_a_small_index_is_ranked_the_plain_way(tmp_path):
    docs = [("note", f"river {FILLER[i % 6]}", ()) for i in range(300)]
    docs += [("note", f"quokka river {FILLER[i % 6]}", ()) for i in range(40)]
    store = _index(tmp_path, docs)
    assert maxscore.fts_top_pruned(store, ["quokka", "river"], BM25_WEIGHTS, Filters(), 20) is None
