"""Seed 001 (llm-memory v1.1.0) through the Python API: importance_weight blends importance into the search
score (default 0: relevance only), and batch store in skip mode reports a bad item by its index."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_curator.core.errors import ValidationError


def _two(svc):
    """Two memories the query matches, the weaker match made important by hand."""
    strong = svc.save("Deploy checklist: deploy the deploy scripts, then verify the deploy.", title="Deploy deploy")
    weak = svc.save("Notes from the meeting; one line mentions the deploy.", title="Meeting notes")
    svc.set_score(strong.id, 0.0)
    svc.set_score(weak.id, 1.0)
    return strong, weak


def test_importance_weight_zero_is_relevance_only(svc):
    strong, weak = _two(svc)
    hits = svc.search("deploy", mode="keyword")
    assert [h.memory.id for h in hits] == [strong.id, weak.id]
    for h in hits:
        assert h.explanation.importance_weight == 0.0 and h.score == h.explanation.relevance


def test_importance_weight_blends_and_can_reorder(svc):
    strong, weak = _two(svc)
    hits = svc.search("deploy", mode="keyword", importance_weight=0.9)
    assert [h.memory.id for h in hits] == [weak.id, strong.id]
    for h in hits:
        e = h.explanation
        assert e.importance_weight == 0.9
        assert h.score == pytest.approx(0.1 * e.relevance + 0.9 * h.memory.importance, abs=1e-5)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.floats(max_value=-1e-9), st.floats(min_value=1.0000001), st.just(float("nan"))))
def test_importance_weight_outside_0_1_is_refused(svc, weight):
    with pytest.raises(ValidationError) as err:
        svc.search("deploy", importance_weight=weight)
    assert err.value.field == "importance_weight" and err.value.code == "OUT_OF_RANGE"


def test_batch_store_skip_reports_the_bad_item_by_index(svc):
    result = svc.save_batch([{"content": "first"}, {"content": "   "}, {"content": "third", "salience": 3}],
                            mode="skip")
    assert result.success_count == 1 and result.error_count == 2
    assert [e["index"] for e in result.errors] == [1, 2]
    assert all(e["code"] == "VALIDATION_ERROR" for e in result.errors)
    assert result.as_dict()["created_ids"] == [result[0].id] and svc.count() == 1


def test_batch_store_rollback_stores_nothing(svc):
    with pytest.raises(ValidationError, match="Item 1"):
        svc.save_batch([{"content": "first"}, {"content": ""}], mode="rollback")
    assert svc.count() == 0
