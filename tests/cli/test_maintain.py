"""`memory-curator maintain` runs the upkeep the app and the servers do in the background; `stats` says when some
is pending and which command finishes it."""

from __future__ import annotations

from dataclasses import replace

from memory_curator.core.index.upkeep import Pending
from memory_curator.core.service import MemoryService
from old_index import old_vault


def test_stats_says_upkeep_is_pending_and_maintain_finishes_it(cli, vault_dir, config):
    old_vault(vault_dir, config, version=16)  # migration 17 at the next opening: its shares to fill
    r = cli("stats")
    assert r.code == 0
    assert ("upkeep:       the unreadable shares of about 1 memory are not stored yet (hybrid search computes them "
            "from the text meanwhile). Run `memory-curator maintain` to finish it now") in r.out
    assert cli("stats", "--json").json["upkeep"]["pending"] == [
        "the unreadable shares of about 1 memory are not stored yet (hybrid search computes them from the text "
        "meanwhile)"]
    r = cli("maintain")
    assert (r.code, r.out) == (0, "done: the unreadable shares of about 1 memory stored\n")
    assert "upkeep:       none pending" in cli("stats").out
    assert cli("maintain").out == "nothing to do: no upkeep is pending\n"
    assert cli("maintain", "--json").json == {"done": [], "pending": [], "stopped": False}
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert not svc.upkeep.pending()


SLOWER_UNTIL_FOLDED = ("note: this search is slower until the index's upkeep is done: rows written since the "
                       "keyword postings were built are to be folded back in. Run `memory-curator maintain` to "
                       "finish it now (the app and the servers do it in the background).\n")


def _written_since_postings(vault_dir, config) -> None:
    """Rows written since the keyword postings were built, which a command-line process never folds back: a
    keyword search reads them all (1.8 x its time at 100,000 memories with 1,000 of them, 6.7 x with 5,000)."""
    built = replace(config, postings_min_rows=20, postings_common=3)
    with MemoryService.open(vault_dir, embedder="none", config=built) as svc:
        svc.save_batch([{"content": f"river stone garden note {i}"} for i in range(30)])
        assert svc.upkeep.run() == Pending()  # the postings built
        svc.save_batch([{"content": f"river stone path {i}"} for i in range(1000)])


def test_a_search_slowed_by_pending_upkeep_says_once_on_stderr_which_command_finishes_it(cli, vault_dir, config):
    _written_since_postings(vault_dir, config)
    r = cli("search", "river stone", "-m", "keyword", "--json")
    assert r.code == 0 and len(r.json["results"]) == 5  # stdout is the results alone
    assert r.err == SLOWER_UNTIL_FOLDED
    assert cli("search", "river stone", "-m", "hybrid").err == r.err  # without an embedder it ran as keyword
    assert cli("maintain").code == 0
    r = cli("search", "river stone", "-m", "keyword")
    assert r.code == 0 and r.err == ""  # nothing pending: nothing said


def test_consolidating_a_querys_hits_says_as_search_does_when_pending_upkeep_slowed_its_search(cli, vault_dir,
                                                                                                config):
    _written_since_postings(vault_dir, config)
    r = cli("consolidate", "--query", "river stone", "-n", "3", "--preview", "--json")
    assert r.code == 0 and len(r.json["source_ids"]) == 3  # stdout is the preview alone
    assert r.err == SLOWER_UNTIL_FOLDED
    r = cli("consolidate", "--query", "river stone", "-n", "3")
    assert r.code == 0 and "from 3 memories (kept)" in r.out
    assert r.err == SLOWER_UNTIL_FOLDED
    ids = [hit["memory"]["id"] for hit in cli("search", "garden note", "-n", "2", "--json").json["results"]]
    assert cli("consolidate", *ids, "--preview").err == ""  # by id: no search, nothing said
    assert cli("maintain").code == 0
    r = cli("consolidate", "--query", "river stone", "-n", "3", "--preview")
    assert r.code == 0 and r.err == ""  # nothing pending: nothing said


def test_a_duplicate_check_by_keywords_says_it_too(cli, vault_dir, config):
    """Without vectors a duplicate check compares the keyword search's candidates: the same note, saying whose."""
    _written_since_postings(vault_dir, config)
    r = cli("add", "river stone path 7", "--on-duplicate", "skip", "--json")
    assert r.code == 0 and (r.json["action"], r.json["checked_by"]) == ("skipped", "keyword")
    assert r.err == SLOWER_UNTIL_FOLDED.replace("this search", "the duplicate check's search")
    assert cli("add", "a new river note").err == ""  # no check, no search
    assert cli("maintain").code == 0
    r = cli("add", "river stone path 8", "--on-duplicate", "skip", "--json")
    assert r.code == 0 and r.json["action"] == "skipped" and r.err == ""  # nothing pending: nothing said


def test_which_pending_upkeep_slows_which_search():
    build = Pending(postings="build", rows=100_000)
    assert build.slowing("keyword") == build.describe() and build.slowing("hybrid") == []
    assert Pending(postings="build", rows=1_000_000).slowing("hybrid") == build.describe()
    fold = Pending(postings="fold", written=1_000)
    assert fold.slowing("keyword") == fold.describe() and fold.slowing("hybrid") == []
    assert Pending(postings="fold", written=5_000).slowing("hybrid") == fold.describe()
    fill = Pending(shares=1_000_000)  # read by hybrid search with an English-only model: +15 ms at 1,000,000
    assert fill.slowing("hybrid", reads_shares=True) == fill.describe()
    assert Pending(shares=100_000).slowing("hybrid", reads_shares=True) == []  # +5 ms at 100,000
    assert all(fill.slowing(mode) == [] for mode in ("keyword", "semantic", "hybrid"))  # a multilingual model
    both = Pending(shares=1_000_000, postings="build", rows=1_000_000)
    assert both.slowing("hybrid", reads_shares=True) == both.describe() and len(both.describe()) == 2
    assert Pending(postings="build", rows=10**6).slowing("semantic") == []
