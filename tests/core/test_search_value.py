"""A search answers with one value: the hits, the query as asked, the mode used and the warnings (no state left
on the service); ``min_score`` drops weaker hits before the limit is taken."""

from __future__ import annotations

import pytest

from memory_curator.core.errors import ValidationError
from memory_curator.core.model import SearchResults


def test_the_value_carries_query_mode_and_warnings(svc):
    svc.save("Vector search with sqlite-vec", title="Vectors")
    found = svc.search("vector", mode="semantic")
    assert isinstance(found, SearchResults) and found.query == "vector"
    assert found.mode_used == "keyword" and any("keyword" in w for w in found.warnings)
    assert not hasattr(svc, "last_warnings")
    quiet = svc.search("vector", mode="keyword")
    assert quiet.warnings == () and quiet.results == list(quiet)


def test_min_score_is_a_floor_taken_before_the_limit(svc):
    for i in range(6):
        svc.save(("deploy " * (6 - i)) + f"and other words {i}", title=f"Note {i}")
    everything = svc.search("deploy", mode="keyword", limit=6)
    scores = [h.score for h in everything]
    assert len(scores) == 6 and scores == sorted(scores, reverse=True) and scores[0] > scores[-1]
    floor = scores[2]
    kept = svc.search("deploy", mode="keyword", limit=6, min_score=floor)
    assert [h.memory.id for h in kept] == [h.memory.id for h in everything if h.score >= floor]
    assert all(h.score >= floor for h in kept)
    assert all(h.score >= 1.0 for h in svc.search("deploy", mode="keyword", min_score=1.0))


def test_min_score_out_of_range(svc):
    with pytest.raises(ValidationError) as err:
        svc.search("x", min_score=1.5)
    assert err.value.field == "min_score"
