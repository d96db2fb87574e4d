"""What a command says about the index's pending upkeep (core/index/upkeep.py), and the command that finishes it.

A command-line process never runs that upkeep in the background, so a vault used only from here keeps it
pending until `memory-curator maintain`. Every command that searches (search, consolidate --query) says so
through ``slower_search``, once, on stderr (with --json too: stdout is the answer), when the upkeep made that
search measurably slower (``Pending.slowing``)."""

from __future__ import annotations

from memory_curator.cli import output
from memory_curator.core.model import SearchResults
from memory_curator.core.service import MemoryService

MAINTAIN = ". Run `memory-curator maintain` to finish it now (the app and the servers do it in the background)."


def slower_search(svc: MemoryService, results: SearchResults, mode: str) -> None:
    """The note after a search asked in ``mode``: it says what of the pending upkeep slowed the mode the search
    ran in (keyword in a vault without an embedder), if any."""
    english_only = svc.embedder is not None and not svc.embedder.multilingual
    if slower := svc.upkeep.pending().slowing(results.mode_used or mode, reads_shares=english_only):
        output.note("this search is slower until the index's upkeep is done: " + "; ".join(slower) + MAINTAIN)
