"""Session neighbours lend context in ranking (core/fusion.py, core/index/neighbours.py), on real vaults."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from embed_helpers import embedded
from memory_curator.core import fusion
from memory_curator.core.index.filters import Filters
from memory_curator.core.index.neighbours import neighbours_sql, session_neighbours


def _batch(svc, contents, session="s1", **extra):
    return [it for it in svc.save_batch([{"content": c, "session_id": session, **extra} for c in contents])]


def test_neighbours_are_the_turns_around_a_memory_in_its_session(svc):
    turns = _batch(svc, [f"turn {i}" for i in range(5)])  # one batch: one timestamp, save order decides
    other = _batch(svc, ["elsewhere 0", "elsewhere 1"], session="s2")
    alone = svc.save("no session at all")
    pk = {it.id: svc.store.pk_of(it.id) for it in [*turns, *other, alone]}
    found = session_neighbours(svc.store, [pk[turns[2].id], pk[turns[0].id], pk[alone.id]], 2)
    assert sorted(found[pk[turns[2].id]], key=lambda x: x[1]) == [
        (pk[turns[0].id], -2), (pk[turns[1].id], -1), (pk[turns[3].id], 1), (pk[turns[4].id], 2)]
    assert sorted(found[pk[turns[0].id]], key=lambda x: x[1]) == [(pk[turns[1].id], 1), (pk[turns[2].id], 2)]
    assert pk[alone.id] not in found  # no session, no neighbours
    assert all(nb not in {pk[o.id] for o in other} for w in found.values() for nb, _ in w)


def test_neighbours_follow_the_time_a_memory_was_made_not_the_save_order(svc):
    late, early, middle = svc.save_batch([
        {"content": "late", "session_id": "s", "created_at": "2024-01-03T00:00:00Z"},
        {"content": "early", "session_id": "s", "created_at": "2024-01-01T00:00:00Z"},
        {"content": "middle", "session_id": "s", "created_at": "2024-01-02T00:00:00Z"},
    ])
    pk = svc.store.pk_of
    found = session_neighbours(svc.store, [pk(middle.id)], 1)
    assert sorted(found[pk(middle.id)], key=lambda x: x[1]) == [(pk(early.id), -1), (pk(late.id), 1)]


def test_neighbours_the_filters_hide_are_left_out_but_keep_their_place(svc):
    turns = _batch(svc, [f"turn {i}" for i in range(5)])
    hidden = turns[1]
    svc.update(hidden.id, category="decisions")
    pk = {it.id: svc.store.pk_of(it.id) for it in turns}
    middle = pk[turns[2].id]
    only_context = Filters(category="context")
    found = session_neighbours(svc.store, [middle], 2, only_context)
    # turn 1 is hidden, and turn 0 stays two places away: offsets count the hidden memory
    assert sorted(found[middle], key=lambda x: x[1]) == [(pk[turns[0].id], -2), (pk[turns[3].id], 1),
                                                         (pk[turns[4].id], 2)]
    # a hidden memory that is itself a candidate keeps its place in the other's window
    both = session_neighbours(svc.store, [middle, pk[hidden.id]], 2, only_context)
    assert (pk[hidden.id], -1) in both[middle]
    assert (pk[hidden.id], -1) in session_neighbours(svc.store, [middle], 2)[middle]  # no filters: all


def test_neighbours_read_the_default_filters_from_the_session_index(svc):
    # Migration 16: each branch is a seek on the covering index; no neighbour's row is read (cold pages at
    # 1,000,000 memories), only the candidates' own.
    where, params = Filters().sql()
    plan = [row[3] for row in svc.store.conn.execute("EXPLAIN QUERY PLAN " + neighbours_sql(2, where),
                                                     [*params * 4, "[]"])]
    seeks = [p for p in plan if p.startswith("SEARCH m ")]
    assert len(seeks) == 4 and all("USING COVERING INDEX idx_memories_session_filters" in p for p in seeks), plan
    assert not any("TEMP B-TREE" in p for p in plan), plan  # a session saved under one timestamp is not walked


def test_a_reply_is_lifted_by_the_question_before_it(svc):
    """The reply names only one of the query's words; the question before it names the rest. A memory
    elsewhere with that one word (and shorter, so BM25 alone prefers it) comes after the reply."""
    question, reply = _batch(svc, ["Did you finish the painting of the lake?", "Yes, the sunrise came out gorgeous."])
    elsewhere = svc.save("Sunrise yoga.", session_id="gym")
    results = svc.search("lake painting sunrise", mode="keyword", limit=5)
    ids = [r.memory.id for r in results]
    assert ids[:3] == [question.id, reply.id, elsewhere.id]
    assert results[1].explanation.context_contribution > 0
    assert results[2].explanation.context_contribution == 0


def test_keyword_search_returns_only_memories_holding_a_query_word(svc):
    _batch(svc, ["The deploy script lives in the ops repository.", "Thanks, noted!", "Anything else?"])
    results = svc.search("deploy script", mode="keyword", limit=10)
    assert [r.memory.content for r in results] == ["The deploy script lives in the ops repository."]


def test_a_filtered_out_neighbour_is_neither_a_result_nor_context(svc):
    svc.save_batch([
        {"content": "Budget talk: the offsite costs too much.", "session_id": "s", "category": "decisions"},
        {"content": "Agreed about the offsite budget.", "session_id": "s", "category": "context"},
    ])
    results = svc.search("offsite budget", mode="keyword", category="context")
    assert [r.memory.category for r in results] == ["context"]
    assert results[0].explanation.context_contribution == 0


@pytest.mark.model
def test_hybrid_lifts_the_turn_that_shows_what_the_next_one_names(svc_local):
    """LoCoMo's shape: a picture is shared in one turn and named in the next."""
    shown, named = _batch(svc_local, [
        "Melanie: By the way, take a look at this. [image: a photo of a painting on an easel]",
        "Melanie: Yeah, I painted that lake sunrise last year! It's special to me.",
    ])
    for i, text in enumerate([
        "Caroline: I painted my bedroom walls blue last weekend.",
        "Melanie: We went hiking to the lake and had a picnic.",
        "Caroline: This is a photo of my new bike.",
        "Melanie: The sunrise over the mountains was beautiful on our trip.",
        "Caroline: Take a look at the poster I designed for the pride parade.",
    ]):
        svc_local.save(text, session_id=f"other-{i}")
    embedded(svc_local)
    results = svc_local.search("When did Melanie paint a sunrise?", mode="hybrid", limit=3)
    ids = [r.memory.id for r in results]
    assert ids[0] == named.id and shown.id in ids
    assert next(r for r in results if r.memory.id == shown.id).explanation.context_contribution > 0


def test_windows_tell_how_far_apart_neighbours_are():
    pairs = fusion.context_pairs({10: [(9, -1), (8, -2), (11, 1), (12, 2)]})
    assert pairs == {(9, 10): 1, (8, 10): 2, (10, 11): 1, (10, 12): 2, (8, 9): 1, (9, 11): 2, (11, 12): 1}
    # 9 and 12 are three apart (beyond the width); windows of two candidates agree on a shared pair
    assert fusion.context_pairs({10: [(11, 1)], 11: [(10, -1), (12, 1)]}) == {(10, 11): 1, (11, 12): 1, (10, 12): 2}


def test_without_neighbours_fusion_is_each_side_on_its_own_scale():
    q = np.array([1.0, 0.0], dtype=np.float32)
    vecs = {1: np.array([1.0, 0.0], np.float32), 2: np.array([0.6, 0.8], np.float32)}
    scored = fusion.fuse([1, 2, 3], {1: 2.0, 3: 4.0}, _rows([1, 2, 3], vecs), q, np.array([0.5, 0.5], np.float32), {},
                         0.5, 0.5)
    assert scored[3].keyword == pytest.approx(0.5) and scored[1].keyword == pytest.approx(0.25)
    # mean similarity 0.5, best 1.0: memory 1 is the top of the semantic scale, memory 2 a fifth of it
    assert scored[1].semantic == pytest.approx(0.5) and scored[2].semantic == pytest.approx(0.1)
    assert scored[3].cosine is None and scored[3].semantic == 0
    assert all(s.context == pytest.approx(0) for s in scored.values())


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0.0, 50.0), min_size=1, max_size=12), st.floats(0.0, 1.0))
def test_fused_scores_never_exceed_one_and_keep_their_parts(bm, kw_weight):
    members = list(range(len(bm)))
    rng = np.random.default_rng(len(bm))
    vecs = {pk: (v / np.linalg.norm(v)).astype(np.float32) for pk, v in zip(members, rng.standard_normal((len(bm), 8)), strict=True)}
    q = vecs[0]
    pairs = fusion.context_pairs({pk: [(pk + 1, 1)] for pk in members[:-1]})
    scored = fusion.fuse(members, dict(zip(members, bm, strict=True)), _rows(members, vecs), q, None, pairs, kw_weight,
                         1 - kw_weight)
    for s in scored.values():
        assert s.score <= 1.0 + 1e-9
        assert s.score == pytest.approx(s.keyword + s.semantic)
        assert 0.0 <= s.keyword <= kw_weight + 1e-9


def _rows(members, vecs):
    """fuse's vectors: rows in members order and which members have one (as VectorTable.memory_vectors gives)."""
    dim = len(next(iter(vecs.values())))
    rows = np.array([vecs.get(pk, np.zeros(dim, np.float32)) for pk in members], dtype=np.float32)
    return rows, np.array([pk in vecs for pk in members])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 5), st.sampled_from([None, 0, 1])), min_size=1, max_size=14),
       st.integers(0, 2**32 - 1))
def test_lent_context_is_each_members_neighbours_over_their_distance(layout, seed):
    """fuse lends slot by slot on arrays; here the same sums one member at a time: a neighbour's BM25 and vector
    over its distance, only from members (a pair naming a pk outside them lends nothing), members without a
    vector have no cosine."""
    members = list(dict.fromkeys(10 * s + p for s, p, _ in layout))
    sessions = {10 * s + p: s for s, p, _ in layout}
    rng = np.random.default_rng(seed)
    bm = {pk: float(rng.uniform(0, 9)) for pk in members if rng.random() < 0.7}
    vecs = {pk: (v / np.linalg.norm(v)).astype(np.float32) for pk, v in zip(members, rng.standard_normal((len(members), 6)), strict=True)
            if rng.random() < 0.8}
    windows = {pk: [(o, o - pk) for o in members if o != pk and sessions[o] == sessions[pk] and abs(o - pk) <= 2]
               for pk in members}
    windows[members[0]] = [*windows[members[0]], (999, 1)]  # a neighbour that is not a member
    pairs = fusion.context_pairs(windows)
    q = rng.standard_normal(6)
    q /= np.linalg.norm(q)
    scored = fusion.fuse(members, bm, _rows(members, vecs) if vecs else None, q, None, pairs, 0.5, 0.5)
    near = {pk: [(b if a == pk else a, d) for (a, b), d in pairs.items() if pk in (a, b) and {a, b} <= set(members)]
            for pk in members}
    ctx_k = {pk: bm.get(pk, 0.0) + fusion.KEYWORD_CONTEXT * sum(bm.get(o, 0.0) / d for o, d in near[pk]) for pk in members}
    top = max(ctx_k.values())
    for pk in members:
        assert scored[pk].keyword == pytest.approx(0.5 * ctx_k[pk] / top if top > 0 else 0.0, abs=1e-6)
        if pk not in vecs:
            assert scored[pk].cosine is None
            continue
        ctx = vecs[pk] + fusion.VECTOR_CONTEXT * sum((vecs.get(o, np.zeros(6)) / d for o, d in near[pk]), np.zeros(6))
        assert scored[pk].cosine == pytest.approx(float(ctx @ q / np.linalg.norm(ctx)), abs=1e-5)
