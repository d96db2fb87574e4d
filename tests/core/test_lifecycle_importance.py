"""Importance from the access log: formula, logging on get/search/batch get, retention, manual override."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memory_curator.core.errors import MemoryNotFoundError, ValidationError
from memory_curator.core.lifecycle import access, importance
from memory_curator.core.model import utcnow
from memory_curator.core.service import MemoryService
from memory_curator.core.vault.codec import split_frontmatter

NOW = datetime(2025, 6, 1, tzinfo=timezone.utc)


def test_formula_parts_and_bounds():
    fresh = importance.score("x", recent_accesses=0, last_accessed=None, created_at=NOW, now=NOW)
    assert (fresh.access_frequency, fresh.recency, fresh.age_factor) == (0.0, 0.0, 1.0)
    assert fresh.importance == pytest.approx(0.3)
    hot = importance.score("x", recent_accesses=500, last_accessed=NOW, created_at=NOW, now=NOW)
    assert hot.importance == pytest.approx(1.0)
    week = importance.score("x", recent_accesses=1, last_accessed=NOW - timedelta(days=7),
                            created_at=NOW - timedelta(days=90), now=NOW)
    assert week.recency == pytest.approx(0.5) and week.age_factor == pytest.approx(0.5)
    assert 0.0 <= week.importance <= 1.0
    more = importance.score("x", recent_accesses=5, last_accessed=NOW - timedelta(days=7),
                            created_at=NOW - timedelta(days=90), now=NOW)
    assert more.importance > week.importance  # frequency counts
    older = importance.score("x", recent_accesses=1, last_accessed=NOW - timedelta(days=7),
                             created_at=NOW - timedelta(days=400), now=NOW)
    assert 0 < older.age_factor < week.age_factor  # ages gracefully, never to zero


def test_get_search_and_batch_get_are_logged(svc):
    a = svc.save("Postgres is our database", title="db")
    b = svc.save("Redis caches sessions", title="cache")
    svc.get(a.id)
    svc.search("Postgres", mode="keyword")
    got = svc.get_batch([b.id, "missing", a.id])
    assert [it.id for it in got] == [b.id, a.id]
    kinds = svc.store.conn.execute("SELECT memory_id, kind FROM access_log ORDER BY rowid").fetchall()
    assert kinds == [(a.id, "get"), (a.id, "search"), (b.id, "batch_get"), (a.id, "batch_get")]
    assert svc.get(a.id, record_access=False).access_count == 3
    score_a, score_b = svc.get_score(a.id), svc.get_score(b.id)
    assert score_a.recent_accesses == 3 and score_b.recent_accesses == 1
    assert score_a.importance > score_b.importance > 0.3


def test_log_is_kept_for_the_window_only(svc):
    item = svc.save("An old favourite")
    old = utcnow() - timedelta(days=svc.config.access_log_days + 5)
    with svc.store.transaction():
        svc.store.record_access([item.id], old, "get")
        svc.store.record_access([item.id], utcnow(), "get")
    assert svc.get_score(item.id).recent_accesses == 1  # the old recall is outside the window
    svc.refresh_importance()
    assert svc.store.conn.execute("SELECT COUNT(*) FROM access_log").fetchone()[0] == 1
    with svc.store.transaction():
        svc.store.record_access([item.id], old, "get")
        svc.store.set_meta(access.PRUNED_KEY, None)
    svc.get(item.id)  # the first recall of a day prunes the log too
    assert svc.store.conn.execute("SELECT COUNT(*) FROM access_log").fetchone()[0] == 2


def test_manual_override_wins_and_lives_in_the_file(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        item = svc.save("Never forget the backup key location")
        other = svc.save("Some backup trivia")
        for _ in range(5):
            svc.get(other.id)
        score = svc.set_score(item.id, 0.95)
        assert score.importance == 0.95 and score.override == 0.95 and score.computed < 0.95
        meta, _ = split_frontmatter(Path(item.file_path).read_text())
        assert meta["importance_override"] == 0.95
        ranked = svc.search("backup", mode="keyword", sort_by="importance")
        assert [r.memory.id for r in ranked] == [item.id, other.id]
    for p in vault_dir.glob("index.db*"):
        p.unlink()  # the override is user intent: it survives losing the index
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert svc.get_score(item.id).importance == 0.95
        cleared = svc.set_score(item.id, None)
        assert cleared.override is None and cleared.importance == cleared.computed
        assert "importance_override" not in Path(item.file_path).read_text()


def test_score_errors(svc):
    item = svc.save("x")
    with pytest.raises(ValidationError):
        svc.set_score(item.id, 1.5)
    with pytest.raises(MemoryNotFoundError):
        svc.get_score("nope")
    with pytest.raises(MemoryNotFoundError):
        svc.set_score("nope", 0.5)


def test_refresh_scores_all_memories(svc):
    items = [svc.save(f"note {i}") for i in range(3)]
    assert svc.refresh_importance() == 3
    scores = access.scores(svc.store, svc.config)
    assert {s.memory_id for s in scores} == {it.id for it in items}
    assert all(svc.get(it.id, record_access=False).importance == pytest.approx(0.3) for it in items)


def test_a_new_memory_starts_with_the_formula_and_tag_search_hides_retired_ones(svc):
    item = svc.save("fresh note", keywords=["tag"])
    assert svc.get(item.id, record_access=False).importance == pytest.approx(0.3)  # not the 0.5 placeholder
    old = svc.save("old note", keywords=["tag"])
    svc.supersede(old.id, item.id)
    assert [it.id for it in svc.search_by_keywords(["tag"])] == [item.id]


def test_a_file_from_another_program_is_scored_at_open(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config):
        pass
    (vault_dir / "context").mkdir(exist_ok=True)
    (vault_dir / "context" / "written_elsewhere.md").write_text("# Elsewhere\n\nAdded by another tool.\n")
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        [item] = svc.list_memories()
        assert item.importance == pytest.approx(0.3, abs=0.01)


def test_unscored_memories_are_scored_part_by_part_as_all_at_once(vault_dir, config):
    """The first sync after a rebuild scores every memory (1,000,000 at once was ~0.5 GB of the app's peak): in
    parts, each memory gets the score it would get alone, whatever part it falls in, and none is left out."""
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        items = [svc.save(f"note {i}", salience=i / 10) for i in range(7)]
        svc.get(items[2].id)  # one recall: a score apart from the others'
        svc.set_score(items[4].id, 0.9)  # an override: the computed score is stored all the same
        before = {s.memory_id: s.computed for s in access.scores(svc.store, svc.config)}
        svc.store.conn.execute("UPDATE access_stats SET importance = NULL")
        assert access.score_unscored(svc.store, svc.config, part=3) == 7
        assert access.score_unscored(svc.store, svc.config, part=3) == 0
        after = dict(svc.store.conn.execute("SELECT memory_id, importance FROM access_stats"))
    assert after == pytest.approx(before, abs=1e-6)
    assert len({round(v, 6) for v in after.values()}) > 1
