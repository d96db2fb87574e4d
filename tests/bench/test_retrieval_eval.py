"""The eval's metric functions, and one LoCoMo conversation through the real product with the bundled model."""

from __future__ import annotations

import math

import pytest
from eval_locomo import DATA, evaluate, load
from retrieval_metrics import mrr_at, ndcg_at, recall_at, score


def test_recall_counts_a_hit_only_inside_k():
    ranked = ["a", "b", "c", "d"]
    assert recall_at(ranked, {"c"}, 2) == 0.0
    assert recall_at(ranked, {"c"}, 3) == 1.0
    assert recall_at(ranked, {"x"}, 10) == 0.0
    assert recall_at(ranked, {"x", "a"}, 1) == 1.0


def test_mrr_uses_the_first_relevant_rank():
    assert mrr_at(["a", "b", "c"], {"b", "c"}) == 0.5
    assert mrr_at(["a"] * 10 + ["z"], {"z"}) == 0.0  # rank 11 is outside @10
    assert mrr_at([], {"a"}) == 0.0


def test_ndcg_discounts_by_rank_and_normalises_by_the_ideal():
    assert ndcg_at(["a", "b"], {"a"}) == 1.0
    assert ndcg_at(["x", "a"], {"a"}) == pytest.approx(1 / math.log2(3))
    # two relevant, one found at rank 1: DCG 1, ideal 1 + 1/log2(3)
    assert ndcg_at(["a", "x"], {"a", "b"}) == pytest.approx(1 / (1 + 1 / math.log2(3)))
    # more relevant ids than k: the ideal counts only k of them
    assert ndcg_at([str(i) for i in range(10)], {str(i) for i in range(20)}) == pytest.approx(1.0)


def test_score_is_the_mean_over_queries():
    got = score([(["a", "b"], {"b"}), (["c"], {"z"})])
    assert got["R@1"] == 0.0
    assert got["R@5"] == 0.5
    assert got["MRR@10"] == 0.25


@pytest.mark.slow
@pytest.mark.model
def test_hybrid_beats_keyword_on_one_conversation(local_embedder, tmp_path):
    if not (DATA / "locomo_dev.memories.jsonl").exists():
        pytest.fail(f"The retrieval eval data is missing from {DATA}.")
    memories, queries = load(DATA)
    result = evaluate(memories, queries, local_embedder, ("keyword", "hybrid"), ["conv-26"], tmp_path)
    keyword, hybrid = result.metrics("keyword"), result.metrics("hybrid")
    assert len(result.modes["hybrid"].runs) > 100
    assert hybrid["R@10"] > keyword["R@10"]
