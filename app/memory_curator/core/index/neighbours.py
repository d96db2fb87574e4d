"""Session neighbours: the memories saved just before and after a memory in the same session.

A conversation saved turn by turn, or a document saved part by part, spreads one subject over neighbouring
memories: the answer follows the question, the picture follows the sentence that names it. Search lets a
memory borrow some of its neighbours' scores (core/fusion.py); this finds the neighbours.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from memory_curator.core.index.filters import Filters
from memory_curator.core.index.store import IndexStore

# The neighbours on one side of each candidate c, as rows (c, side, neighbour pk, its created_at, whether it
# passes the filters). Those sharing c's created_at come by pk, then the earlier (or later) ones; each branch
# is a seek on the (session_id, created_at) index (a row-value comparison was not: with one timestamp over a
# whole session, as a batch save gives, it walked the session). The neighbour's row is read by its pk, so the
# filters are checked in the same statement.
_SIDE = """SELECT c.pk, {sign}, m.pk, m.created_at, {where} FROM c JOIN memories m ON m.pk IN (
    SELECT pk FROM (SELECT p.pk FROM memories p WHERE p.session_id = c.session_id
                    AND p.created_at = c.created_at AND p.pk {op} c.pk ORDER BY p.pk {dir} LIMIT {w})
    UNION ALL
    SELECT pk FROM (SELECT p.pk FROM memories p WHERE p.session_id = c.session_id
                    AND p.created_at {op} c.created_at ORDER BY p.created_at {dir}, p.pk {dir} LIMIT {w}))"""


def session_neighbours(store: IndexStore, pks: Sequence[int], width: int,
                       filters: Filters | None = None) -> dict[int, list[tuple[int, int]]]:
    """For each memory in ``pks`` that has a session, up to ``width`` memories on each side of it in that
    session's order (created_at, then pk) as (neighbour pk, offset): -1 just before, 2 the second after.
    With ``filters``, a neighbour they hide is left out (it still holds its place: offsets do not close up),
    unless it is in ``pks`` itself."""
    if not pks or width <= 0:
        return {}
    where, params = (filters or Filters(include_superseded=True, include_expired=True)).sql()
    sides = [_SIDE.format(sign=sign, op=op, dir=d, w=int(width), where=where)
             for sign, op, d in ((-1, "<", "DESC"), (1, ">", "ASC"))]
    rows = store.conn.execute(
        "WITH c AS MATERIALIZED (SELECT pk, session_id, created_at FROM memories "
        "WHERE pk IN (SELECT value FROM json_each(?)) AND session_id IS NOT NULL) "
        f"{sides[0]} UNION ALL {sides[1]}",
        [json.dumps(list(pks)), *params, *params],
    )
    found: dict[int, tuple[list, list]] = {}
    for pk, sign, nb, created, passes in rows:
        found.setdefault(pk, ([], []))[sign > 0].append((created, nb, passes))
    known = set(pks)
    out: dict[int, list[tuple[int, int]]] = {}
    for pk in sorted(found):
        near = []
        for side, sign in zip(found[pk], (-1, 1), strict=True):
            side.sort(reverse=sign < 0)
            near += [(nb, sign * d) for d, (_, nb, passes) in enumerate(side[:width], start=1)
                     if passes or nb in known]
        if near:
            out[pk] = near
    return out
