"""The keyword counts (the browse pane's Keywords group) are kept by the writes (migration 11): they must say what
counting every memory's keywords says after saves, edits, deletes, files changed by other programs and rebuilds."""

from __future__ import annotations

from collections import Counter

from memory_curator.core.service import MemoryService


def _counted(svc: MemoryService) -> dict[str, int]:
    """Every memory's keywords counted here, ordered as ``keywords()`` orders them."""
    counts = Counter(k for item in svc.list_memories(limit=10_000) for k in item.keywords)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def test_keyword_counts_follow_saves_edits_deletes_and_rebuilds(svc):
    a = svc.save("Postgres for the backend.", title="DB", keywords=["postgres", "backend"])
    b = svc.save("FastAPI for the API.", title="API", keywords=["python", "backend"])
    c = svc.save("Python 3.11.", title="Version", keywords=["python"])
    assert svc.keywords() == {"backend": 2, "python": 2, "postgres": 1} == _counted(svc)

    svc.update(a.id, keywords=["postgres", "sql", "backend"])
    svc.update(c.id, content="Python 3.12.")  # keywords unchanged
    assert svc.keywords() == _counted(svc)
    assert svc.keywords()["sql"] == 1

    svc.delete(b.id)
    assert svc.keywords() == {"backend": 1, "postgres": 1, "python": 1, "sql": 1} == _counted(svc)

    svc.delete(a.id)
    assert svc.keywords() == {"python": 1} == _counted(svc)  # a keyword no memory names is gone, not 0

    svc.save("Ruff.", title="Lint", keywords=["python", "lint"])
    svc.rebuild_index(embed=False)
    assert svc.keywords() == {"python": 2, "lint": 1} == _counted(svc)


def test_keyword_counts_follow_files_changed_by_other_programs(svc):
    item = svc.save("Decided on SQLite.", title="Store", keywords=["sqlite", "storage"])
    path = item.file_path
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace("- storage", "- storage\n- local-first"))
    svc.sync()
    assert svc.keywords() == {"local-first": 1, "sqlite": 1, "storage": 1} == _counted(svc)


def test_a_new_index_counts_the_keywords_of_an_existing_vault(tmp_path, config):
    folder = tmp_path / "decisions"
    folder.mkdir()
    for i, words in enumerate((["a", "b"], ["b"], ["b", "c", "c"])):
        (folder / f"2025-01-01_n{i}.md").write_text(
            "---\ntitle: N\nkeywords:\n" + "".join(f"- {w}\n" for w in words) + "---\n\nText.\n", encoding="utf-8")
    with MemoryService.open(tmp_path, embedder="none", config=config) as svc:
        assert svc.keywords() == {"b": 3, "c": 2, "a": 1} == _counted(svc)


def test_label_counts_follow_relabelling_edits_deletes_and_rebuilds(svc):
    """The Labels group's counts (migration 12) say what counting every memory's labels says."""
    a, b = svc.save("The quest.", title="Q"), svc.save("The party.", title="P")
    svc.save("No labels.", title="N")
    svc.graph.labels.set(a.id, {"quest": 0.9, "event": 0.6})
    svc.graph.labels.set(b.id, {"event": 0.8})

    def counted():
        counts = Counter(k for it in svc.list_memories(limit=100) for k in (it.extra or {}).get("labels", {}))
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    assert svc.graph.labels.counts() == {"event": 2, "quest": 1} == counted()
    svc.graph.labels.set(b.id, {"npc": 0.7})
    assert svc.graph.labels.counts() == {"event": 1, "npc": 1, "quest": 1} == counted()
    svc.update(b.id, content="The party, again.")  # labels unchanged
    assert svc.graph.labels.counts() == counted()
    svc.delete(a.id)
    assert svc.graph.labels.counts() == {"npc": 1} == counted()
    svc.rebuild_index(embed=False)
    assert svc.graph.labels.counts() == {"npc": 1} == counted()


def test_category_and_session_counts_follow_saves_moves_and_deletes(svc):
    """The Categories and Sessions groups' counts (migration 12) say what counting every memory says."""
    def counted(attr):
        return dict(sorted(Counter(getattr(it, attr) for it in svc.list_memories(limit=100)
                                   if getattr(it, attr) is not None).items()))

    a = svc.save("One.", category="decisions", session_id="s1")
    b = svc.save("Two.", category="decisions", session_id="s2")
    svc.save("Three.", category="context")
    assert svc.categories() == {"context": 1, "decisions": 2, "summaries": 0}
    assert svc.sessions() == {"s1": 1, "s2": 1} == counted("session_id")
    svc.update(a.id, category="summaries", session_id="s2")
    assert svc.categories() == {"context": 1, "decisions": 1, "summaries": 1}
    assert svc.sessions() == {"s2": 2} == counted("session_id")
    svc.delete(b.id)
    assert svc.categories() == {"context": 1, "decisions": 0, "summaries": 1}
    assert svc.sessions() == {"s2": 1} == counted("session_id")
    svc.rebuild_index(embed=False)
    assert svc.sessions() == {"s2": 1} and svc.categories()["summaries"] == 1
