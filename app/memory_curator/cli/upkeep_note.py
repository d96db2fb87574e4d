"""What a command says about the index's pending upkeep (core/index/upkeep.py), and the command that finishes it.

A command-line process never runs that upkeep in the background, so a vault used only from here keeps it
pending until `memory-curator maintain`. Every command that searches (search, consolidate --query, and add
--on-duplicate where the check compares by keywords) says so through ``slower_search``, once, on stderr (with
--json too: stdout is the answer), when the upkeep made that search measurably slower (``Pending.slowing``)."""

from __future__ import annotations

from memory_curator.cli import output
from memory_curator.core.service import MemoryService

MAINTAIN = ". Run `memory-curator maintain` to finish it now (the app and the servers do it in the background)."


def slower_search(svc: MemoryService, mode: str, what: str = "this search") -> None:
    """The note after a search that ran in ``mode`` (keyword for a hybrid one in a vault without an embedder):
    what of the pending upkeep slowed it, if anything."""
    english_only = svc.embedder is not None and not svc.embedder.multilingual
    if slower := svc.upkeep.pending().slowing(mode, reads_shares=english_only):
        output.note(f"{what} is slower until the index's upkeep is done: " + "; ".join(slower) + MAINTAIN)
