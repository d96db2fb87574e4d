"""Conflicted files are untrusted input too: whatever git-marker-laced text a file holds, syncing, listing,
showing and resolving never raise anything but the engine's errors, and never stop the vault."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_curator.core.config import MemoryConfig
from memory_curator.core.errors import CuratorError
from memory_curator.core.service import MemoryService

PIECES = st.sampled_from(["---\n", "id: m1\n", "title: T\n", "category: context\n", "updated_at: 2026-11-23\n",
                          "<<<<<<< HEAD\n", "||||||| base\n", "=======\n", ">>>>>>> o\n", "```\n", "text\n",
                          "keywords: [a\n", ": {\n", "\n", "category: ../etc\n", "id: other\n"])
CLOSED_OLLAMA = MemoryConfig(ollama_host="http://127.0.0.1:9", ollama_timeout_s=2.0)  # as conftest's


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=25), st.sampled_from(["ours", "theirs", "both", "merged"]))
def test_any_conflicted_text_never_stops_the_vault(pieces, keep):
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        with MemoryService.open(vault, embedder="none", config=CLOSED_OLLAMA) as svc:
            svc.save("A memory that must stay.", title="Keep me")
            (vault / "context").mkdir(exist_ok=True)
            (vault / "context" / "x.md").write_text("".join(pieces))
            (vault / "context" / "x.sync-conflict-20261123-082800-ABCDEFG.md").write_text("".join(reversed(pieces)))
            svc.sync()
            for c in svc.conflicts.list():
                try:
                    sides = svc.conflicts.sides(c.key)
                    svc.conflicts.resolve(c.key, keep, sides.proposal if keep == "merged" else None)
                except CuratorError:
                    pass
            assert [r.memory.title for r in svc.search("must stay")] == ["Keep me"]
            assert svc.count() >= 1
