"""The index's background upkeep, run to the end where nothing runs it in the background.

Two units keep an index in shape after a migration or many writes: the unreadable shares' fill (unreadable.py:
an index older than migration 17 computes them from the text at every hybrid search until it is done) and the
keyword postings (postings_unit.py: built once a vault has ``postings_min_rows`` memories, folded back after
``postings_fold_at`` writes; keyword search ranks with FTS5 alone meanwhile, slower at 1,000,000 memories).
Long-running processes (the app, serve, mcp) kick both from their polls. A command-line process never polls,
and a one-shot command must stay quick (an `add` at 1,000,000 memories cannot wait the ~4 s of reading and the
minutes of building they take there), so a vault used only from the command line asks for them:
``memory-curator maintain`` runs ``Upkeep.run`` (``stats`` says when some is pending, and every command that
searches, when it makes that search measurably slower: ``Pending.slowing``, said by cli/upkeep_note.py). Ctrl-C (a cancel) keeps
every step done: each is a transaction of its own, and the next run, or the app, goes on from there.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from memory_curator.core.config import MemoryConfig
from memory_curator.core.index import bm25, postings, unreadable
from memory_curator.core.index.postings_unit import BUILDING, FOLDING, PostingsUnit
from memory_curator.core.index.store import IndexStore
from memory_curator.core.kicked import Pacer
from memory_curator.core.progress import CancelToken, ProgressFn

FILL_STEP_S = 0.2  # a fill step's write transaction here (the app's unit: 0.05 s, with as long a pause after)
NAP_S = 0.02  # how often a wait for the lock to be free again hears a cancel
WAIT_S = 0.2  # how often the postings' progress is passed on while their unit builds
WHAT = {BUILDING: "building the keyword postings (words)",
        FOLDING: "folding written rows into the keyword postings (words)"}
# When a pending upkeep slows a search enough that a one-shot command says so (``Pending.slowing``): the search
# 1.5 times its time once the upkeep is done, or 10 ms more. Measured per query, pending and done alternating in
# one process (the bench's 200 queries; tidy's notes, 12:30-13:05 UTC 2026-11-27, load 5-6):
# - the postings not built: keyword search 1.57 x at 100,000 memories (+20 ms a query), 5.45 x at 1,000,000
#   (p50 17 -> 100 ms); hybrid 1.12 x at 100,000 (+6 ms), 1.56 x at 1,000,000 (+79 ms): said for hybrid from
#   HYBRID_BUILD_ROWS;
# - rows written since the postings were built (a command-line process never folds them; each query reads them):
#   keyword search at 100,000 memories 1.78 x with 1,000 of them (+3.6 ms), 6.7 x with 5,000 (+30 ms), 16.6 x
#   with 20,000 (+83 ms): said for keyword from postings_fold_at (1,000), for hybrid from HYBRID_FOLD_ROWS;
# - the unreadable shares' fill, with an English-only model (a multilingual one never reads them): the step
#   reading the text of a hybrid search's members 2.1 ms p50 (vs 0.24) at 100,000 memories, the search 1.09 x
#   (+5 ms); 15.7 ms p50 (vs 0.21) at 1,000,000, the search 1.09 x at load 5-6 (+15 ms: 40 % of its ~36 ms near
#   idle): said from HYBRID_FILL_LEFT memories not filled.
# The duplicate check's keyword search (up to 64 words) follows keyword search's rule: 4.5-5.0 x at 100,000
# memories with the postings not built (p50 6.7-11.3 -> 33.8-50.6 ms, load 4-5; tidy2's notes 15:56 UTC).
HYBRID_BUILD_ROWS = 500_000
HYBRID_FOLD_ROWS = 5_000
HYBRID_FILL_LEFT = 500_000


@dataclass(frozen=True)
class Pending:
    """What upkeep an index has left: the unreadable ``shares`` of that many memories not stored yet, and the
    keyword postings' need (``postings``: "build", "fold" or None)."""

    shares: int = 0
    postings: str | None = None
    rows: int = field(default=0, compare=False)  # the memories the full-text index holds
    written: int = field(default=0, compare=False)  # rows written since the postings' build (up to HYBRID_FOLD_ROWS)

    def __bool__(self) -> bool:
        return bool(self.shares or self.postings)

    def describe(self) -> list[str]:
        out = []
        if self.shares:
            out.append(f"the unreadable shares of about {_memories(self.shares)} are not stored yet (hybrid search "
                       "computes them from the text meanwhile)")
        if self.postings == "build":
            out.append("the keyword postings are not built (keyword search ranks with the full-text index alone "
                       "meanwhile, more slowly)")
        elif self.postings == "fold":
            out.append("rows written since the keyword postings were built are to be folded back in")
        return out

    def slowing(self, mode: str, *, reads_shares: bool = False) -> list[str]:
        """What of this upkeep makes a search in ``mode`` measurably slower (see HYBRID_BUILD_ROWS): a one-shot
        command says it, with the command that finishes it. ``reads_shares``: the embedder reads English only,
        so hybrid search reads the unreadable shares."""
        keyword, hybrid = mode == "keyword", mode == "hybrid"
        due = {"build": keyword or (hybrid and self.rows >= HYBRID_BUILD_ROWS),
               "fold": keyword or (hybrid and self.written >= HYBRID_FOLD_ROWS)}
        fill = reads_shares and hybrid and self.shares >= HYBRID_FILL_LEFT
        return Pending(self.shares if fill else 0, self.postings if due.get(self.postings or "") else None).describe()

    def finished(self) -> list[str]:
        """What running this upkeep did, said once it is done."""
        return [what for what, due in (
            (f"the unreadable shares of about {_memories(self.shares)} stored", self.shares),
            ("the keyword postings built", self.postings == "build"),
            ("the rows written since folded into the keyword postings", self.postings == "fold")) if due]


def _memories(n: int) -> str:
    return f"{n:,} memor{'y' if n == 1 else 'ies'}"


class Upkeep:
    """An open service's upkeep: the fill on its own connection, the postings through its PostingsUnit (None in a
    process without one: a reader lane)."""

    def __init__(self, store: IndexStore, unit: PostingsUnit | None, config: MemoryConfig, *,
                 step_s: float = FILL_STEP_S):
        self._store, self._unit, self._config, self._step_s = store, unit, config, step_s

    def pending(self) -> Pending:
        conn = self._store.conn
        need = postings.pending(conn, min_rows=self._config.postings_min_rows, fold_at=self._config.postings_fold_at)
        if self._unit is None:
            need = None
        return Pending(unreadable.left(conn), need, bm25.totals(conn)[0] if need == "build" else 0,
                       postings.written_count(conn, HYBRID_FOLD_ROWS) if need == "fold" else 0)

    def run(self, progress: ProgressFn | None = None, cancel: CancelToken | None = None) -> Pending:
        """The shares filled, then the postings built or folded, saying how far; returns what is left (a cancel
        stops at the next step, keeping those done). Someone waits for it: the steps leave the write lock free
        only as long as other processes' writes need (kicked.Pacer's foreground), not as long again; the fill's
        steps left it no time at all (another process's save waited for the whole fill: 11 s at 1,000,000
        memories, or failed as busy after 15 s; then at most 1.2 s there, at the last step, which made an index;
        since migration 19 no step makes one)."""
        say = progress or (lambda done, total, message: None)
        stop = cancel or CancelToken()
        conn, pacer = self._store.conn, Pacer(0.0, foreground=True)
        while not stop.cancelled and (reach := unreadable.reach(conn)) is not None:
            say(*reach, "storing the unreadable shares (memories)")
            since = time.monotonic()
            unreadable.fill_step(conn, self._step_s)
            until = time.monotonic() + pacer.free_for(since)
            while not stop.cancelled and (left := until - time.monotonic()) > 0:
                time.sleep(min(NAP_S, left))
        if not stop.cancelled and self.pending().postings is not None:
            self._unit.pacer.foreground = True
            try:
                self._build(say, stop)
            finally:
                self._unit.pacer.foreground = False
        return self.pending()

    def _build(self, say: ProgressFn, stop: CancelToken) -> None:
        self._unit.kick()
        while not self._unit.wait_idle(WAIT_S):
            now = self._unit.progress
            say(now.done, now.total, WHAT.get(now.state, "looking at the keyword postings"))
            if stop.cancelled:
                self._unit.close()  # the step under way rolls back; the words written stay
                break
