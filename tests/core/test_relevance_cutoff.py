"""The relevance cut-off: semantic ranking orders the whole vault, so search marks which hits are relevant
(the query's words held strongly, or a meaning close to it) and which are the weaker tail. And the score's
arithmetic adds up from the explanation's parts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory_curator.core import search
from memory_curator.core.service import MemoryService
from memory_curator.gui import resources

values = st.lists(st.floats(min_value=-50, max_value=2, allow_nan=False), min_size=1, max_size=200)


@given(values, st.floats(min_value=0.0, max_value=1.0))
def test_the_best_hit_is_always_kept_and_the_cutoff_stays_below_the_median(vals, share):
    cut = search.relevance_cutoff(vals, share)
    ordered = sorted(vals)
    assert cut >= ordered[0]
    if len(vals) >= search.MIN_SAMPLE:
        assert cut <= ordered[len(ordered) // 2] + 1e-9
    else:
        assert cut == ordered[-1]  # too few to tell a typical hit: all are kept


def test_no_values_no_cutoff():
    assert search.relevance_cutoff([], 0.5) is None


@pytest.fixture(scope="module")
def sample(tmp_path_factory, local_embedder):
    vault = tmp_path_factory.mktemp("sample") / "vault"
    resources.copy_sample_vault(vault)
    with MemoryService.open(vault, embedder=local_embedder) as svc:
        svc.reindex_missing()
        yield svc


@pytest.mark.model
def test_a_question_on_the_sample_vault_keeps_the_relevant_few(sample):
    results = sample.search("which database do we use", limit=50, mode="hybrid", record_access=False)
    assert len(results) == sample.count()  # semantic ranking lists every memory...
    kept = [r.memory.title for r in results if r.explanation.relevant]
    assert "Vector store: SQLite with sqlite-vec" in kept  # ...the answer is kept...
    assert len(kept) <= len(results) // 3, kept  # ...and the tail is not
    for r in results:
        e = r.explanation
        assert e.relevant == ((e.bm25 is not None and e.bm25 <= e.bm25_cutoff)
                              or (e.distance is not None and e.distance <= e.cutoff_distance))


@pytest.mark.model
@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
def test_the_score_is_the_sum_of_the_contributions_over_the_best_possible(sample, mode):
    for r in sample.search("Ollama embeddings", limit=20, mode=mode, record_access=False):
        e = r.explanation
        total = e.keyword_contribution + e.semantic_contribution + e.graph_contribution
        assert e.best_possible == pytest.approx(1 + e.graph_weight)
        assert r.score == pytest.approx(min(1.0, max(0.0, total / e.best_possible)), abs=1e-5)


def test_a_short_keyword_list_keeps_every_hit(svc):
    for text in ("We chose SQLite for storage.", "データベースはSQLiteを使うことに決めました。", "Unrelated note."):
        svc.save(text, category="decisions")
    results = svc.search("sqlite", mode="keyword", record_access=False)
    assert len(results) == 2 and all(r.explanation.relevant for r in results)
