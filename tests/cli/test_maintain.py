"""`memory-curator maintain` runs the upkeep the app and the servers do in the background; `stats` says when some
is pending and which command finishes it."""

from __future__ import annotations

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
