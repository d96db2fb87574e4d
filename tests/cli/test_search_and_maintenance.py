"""search / list / stats / rebuild / reindex through the CLI, text and JSON."""

from __future__ import annotations

import pytest


@pytest.fixture
def three(added):
    return [
        added("We chose SQLite with sqlite-vec for vectors.", "--title", "Vector store", "-c", "decisions",
              "-k", "sqlite", "-s", "s1", "--salience", "0.9"),
        added("The backend is written in Python with FastAPI.", "--title", "Backend", "-c", "decisions", "-s", "s1"),
        added("Standup moved to 10:00 on Mondays.", "--title", "Standup", "-s", "s2", "--salience", "0.2"),
    ]


def test_search_text_lists_ranked_results_and_warns_on_stderr(cli, three):
    r = cli("search", "sqlite vectors")
    assert r.code == 0
    assert r.out.splitlines()[0].startswith(" 1. ") and three[0]["id"] in r.out.splitlines()[0]
    assert r.err == ""  # hybrid in a keyword-only vault is keyword search: nothing to warn about
    r = cli("search", "sqlite vectors", "--mode", "semantic")
    assert "warning: Semantic search unavailable" in r.err  # asked for meaning, got keywords: say so


def test_search_json_parses_with_results_and_warnings(cli, three):
    r = cli("search", "python", "--mode", "keyword", "--json")
    assert r.code == 0
    data = r.json
    assert [x["memory"]["id"] for x in data["results"]] == [three[1]["id"]]
    assert data["warnings"] == [] and data["results"][0]["explanation"]["mode"] == "keyword"


def test_search_filters(cli, three):
    everything = cli("search", "with", "-m", "keyword", "--json").json["results"]
    assert sorted(x["memory"]["id"] for x in everything) == sorted([three[0]["id"], three[1]["id"]])
    in_s2 = cli("search", "with", "-m", "keyword", "-s", "s2", "--json")
    assert in_s2.code == 1 and in_s2.json["results"] == []
    decisions = cli("search", "standup", "-m", "keyword", "-c", "decisions", "--json").json["results"]
    assert decisions == []
    low = cli("search", "standup", "-m", "keyword", "--min-salience", "0.5", "--json").json
    assert low["results"] == []


@pytest.mark.parametrize("query", ['"unbalanced', "NEAR(a b", "a AND OR b", "col:on", "*", "sql*", "(", "-x",
                                   "{keywords} : sqlite", "'; DROP TABLE memories; --"])
def test_fts_syntax_in_a_query_is_plain_text(cli, three, query):
    r = cli("search", "--mode", "keyword", "--json", "--", query)
    assert r.code in (0, 1) and "results" in r.json
    assert cli("list", "--json").code == 0 and len(cli("list", "--json").json) == 3


def test_no_matches_is_exit_1_in_both_forms(cli, three):
    r = cli("search", "zebra", "-m", "keyword")
    assert r.code == 1 and r.out.strip() == "no matches"
    j = cli("search", "zebra", "-m", "keyword", "--json")
    assert j.code == 1 and j.json == {"query": "zebra", "results": [], "warnings": []}


@pytest.mark.parametrize("args", [("-n", "0"), ("-n", "1000"), ("--keyword-weight", "2")])
def test_bad_search_options_are_exit_2(cli, three, args):
    r = cli("search", "sqlite", *args)
    assert r.code == 2 and r.err.startswith("memory-curator: ")


def test_empty_query_is_exit_2(cli, three):
    assert cli("search", "  ").code == 2


def test_list_text_json_filters_and_order(cli, three):
    r = cli("list")
    assert r.code == 0 and len(r.out.splitlines()) == 3
    by_salience = cli("list", "--order", "salience", "--json").json
    assert [x["id"] for x in by_salience] == [three[0]["id"], three[1]["id"], three[2]["id"]]
    assert [x["id"] for x in cli("list", "-c", "context", "--json").json] == [three[2]["id"]]
    assert len(cli("list", "-s", "s1", "--json").json) == 2
    assert len(cli("list", "-n", "1", "--offset", "1", "--json").json) == 1
    empty = cli("list", "-c", "summaries")
    assert empty.code == 0 and empty.out == ""


def test_stats_text_and_json(cli, three):
    r = cli("stats")
    assert r.code == 0 and "memories:     3  (context 1, decisions 2)" in r.out
    assert "embedder:     keyword only" in r.out
    data = cli("stats", "--json").json
    assert data["stats"]["total_count"] == 3 and data["stats"]["unembedded_count"] == 3
    assert data["embedder"]["available"] is False and data["problems"] == []


def test_rebuild_reads_the_files_again_and_reports_broken_ones(cli, three, vault_dir):
    (vault_dir / "context" / "broken.md").write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    (vault_dir / "index.db").unlink()
    r = cli("rebuild")
    assert r.code == 0 and r.out.strip() == "indexed 3 memories" and "skipped context/broken.md" in r.err
    data = cli("rebuild", "--json").json
    assert data["memories"] == 3 and [p["path"] for p in data["problems"]] == ["context/broken.md"]
    assert (vault_dir / "context" / "broken.md").read_text(encoding="utf-8").startswith("---\ntitle: [unclosed")
    assert "unreadable file context/broken.md" in cli("stats").err


def test_an_open_that_leaves_a_new_index_empty_for_the_rebuild(three, vault_dir):
    """The CLI's rebuild opens without filling a missing index: it reads every file once, in the rebuild."""
    from memory_curator.core.service import MemoryService  # noqa: PLC0415

    (vault_dir / "index.db").unlink()
    with MemoryService.open(vault_dir, embedder="none", sync=False, fill=False) as svc:
        assert svc.count() == 0
        assert svc.rebuild_index(embed=False).added == 3
        assert svc.count() == 3


def test_reindex_without_an_embedder_is_exit_3(cli, three):
    r = cli("reindex")
    assert r.code == 3 and "No embedder is configured" in r.err
    assert cli("reindex", "--json").json["error"]["code"] == "EMBEDDING_ERROR"


def test_reindex_model_with_an_unknown_provider_is_exit_2(cli, three):
    r = cli("reindex", "--model", "openai:text-embedding-3")
    assert r.code == 2 and "Unknown embedding provider 'openai'" in r.err


def test_rebuild_builds_the_kept_keyword_postings_itself(tmp_path):
    """A command-line process never polls, so its rebuild builds the postings a background unit would."""
    from memory_curator.cli.commands import _run_upkeep  # noqa: PLC0415
    from memory_curator.core.config import MemoryConfig  # noqa: PLC0415
    from memory_curator.core.index import postings  # noqa: PLC0415
    from memory_curator.core.index.upkeep import Pending  # noqa: PLC0415
    from memory_curator.core.service import MemoryService  # noqa: PLC0415

    config = MemoryConfig(ollama_host="http://127.0.0.1:9", postings_min_rows=20, postings_common=3)
    with MemoryService.open(tmp_path / "v", embedder="none", config=config, sync=False) as svc:
        svc.save_batch([{"content": f"river stone garden note {i}", "category": "context"} for i in range(30)])
        svc.rebuild_index(embed=False)
        assert not postings.has_base(svc.store.conn)  # left to the background: nothing kicked it here
        assert _run_upkeep(svc) == (Pending(), False)
        assert postings.has_base(svc.store.conn)
        assert len(svc.search("river stone", limit=5, mode="keyword")) == 5
