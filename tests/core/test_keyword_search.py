"""Keyword search (FTS5): user input is text, never syntax; filters and sorting."""

from __future__ import annotations

import pytest

from memory_curator.core.errors import ValidationError


@pytest.fixture
def filled(svc):
    svc.save("We chose SQLite with sqlite-vec for the vector index", category="decisions", keywords=["database"],
             session_id="s1", salience=0.9, title="Vector index choice")
    svc.save("Session summary: tested the SPEC process", category="summaries", session_id="s1", salience=0.5)
    svc.save("Currently debugging the NEAR query parser", category="context", session_id="s2", salience=0.2)
    return svc


@pytest.mark.parametrize("query", ['"unbalanced', "AND", "OR OR", "NEAR(", "a*b", "col:value", "(((", "^", "-", "'; DROP TABLE memories; --"])
def test_fts_syntax_in_queries_never_breaks(filled, query):
    filled.search(query, mode="keyword")  # must not raise
    assert filled.count() == 3


def test_near_is_searched_as_a_word(filled):
    (hit,) = filled.search("NEAR", mode="keyword")
    assert "NEAR" in hit.memory.content


def test_filters(filled):
    assert {r.memory.category for r in filled.search("the", mode="keyword", limit=10)} == {"decisions", "summaries", "context"}
    assert [r.memory.category for r in filled.search("the", mode="keyword", category="summaries")] == ["summaries"]
    assert {r.memory.session_id for r in filled.search("the", mode="keyword", session_id="s1", limit=10)} == {"s1"}
    assert [r.memory.salience for r in filled.search("the", mode="keyword", min_salience=0.6)] == [0.9]


def test_result_fields(filled):
    (r,) = filled.search("vector database", mode="keyword", limit=1)
    assert r.memory.title == "Vector index choice" and 0 < r.score <= 1 and r.distance is None
    assert "database" in r.matched_keywords and "vector" in r.matched_snippet
    assert r.explanation.keyword_rank == 1 and r.explanation.semantic_rank is None


def test_sort_by_recency_and_importance(filled):
    rec = filled.search("the", mode="keyword", limit=10, sort_by="recency")
    assert [r.memory.updated_at for r in rec] == sorted((r.memory.updated_at for r in rec), reverse=True)
    imp = filled.search("the", mode="keyword", limit=10, sort_by="importance")
    assert imp[0].memory.salience == 0.9


def test_prefix_matches_inflections(svc):
    svc.save("Muistipalvelu tallentaa muistit markdown-tiedostoihin", title="Muistipalvelu")
    assert svc.search("muisti", mode="keyword")


def test_a_word_found_nowhere_is_read_as_a_prefix(svc):
    # 60 memories match "deploy" as typed: more than a search gathers (limit x 5), so the prefix round
    # never runs, and only reading the unknown word "kube" as a prefix can find the Kubernetes note.
    svc.save_batch([{"content": f"Deploy step {i} for the web app."} for i in range(60)])
    target = svc.save("Deploy everything on Kubernetes with helm charts.")
    assert svc.search("kube deploy", mode="keyword", limit=10)[0].memory.id == target.id
    # A word that does occur as typed is not widened: "chart" (stemmed "charts") must not pull in "chartreuse".
    svc.save("The wall is painted chartreuse.")
    assert all("chartreuse" not in r.memory.content for r in svc.search("chart deploy", mode="keyword", limit=10))


@pytest.mark.parametrize("kwargs", [dict(mode="fuzzy"), dict(sort_by="size"), dict(limit=0), dict(keyword_weight=2)])
def test_bad_search_arguments(filled, kwargs):
    with pytest.raises(ValidationError):
        filled.search("x", **kwargs)


def test_empty_query_is_refused(filled):
    with pytest.raises(ValidationError):
        filled.search("   ")


def test_search_by_keywords(svc):
    a = svc.save("alpha", keywords=["Python", "backend"])
    b = svc.save("beta", keywords=["python"])
    svc.save("gamma", keywords=["rust"])
    assert {m.id for m in svc.search_by_keywords(["PYTHON"])} == {a.id, b.id}
    assert [m.id for m in svc.search_by_keywords(["python", "backend"], match_all=True)] == [a.id]


def test_semantic_without_embedder_falls_back_with_warning(filled):
    results = filled.search("vector", mode="semantic")
    assert results and results[0].explanation.mode == "keyword"
    assert any("keyword" in w for w in results.warnings)


def test_hybrid_in_a_keyword_only_vault_is_quiet(filled):
    results = filled.search("vector", mode="hybrid")
    assert results and results.warnings == ()


def test_a_memory_deleted_after_ranking_gives_its_place_to_the_next(svc):
    # Another process can delete a memory between the ranking and the loading of results: it drops out
    # instead of failing the search.
    from memory_curator.core import search

    a, b, c = (svc.save(f"note {i}") for i in range(3))
    pks = [svc.store.pk_of(m.id) for m in (a, b, c)]
    svc.delete(b.id)
    shown, items = search._load_items(svc.store, [search._Candidate(pk) for pk in pks], 2)
    assert [cand.pk for cand in shown] == [pks[0], pks[2]] and set(items) == {pks[0], pks[2]}
