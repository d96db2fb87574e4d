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

# The neighbours on one side of each candidate c, as one JSON array per candidate and side of [their created_at,
# neighbour pk, whether it passes the filters]. Those sharing c's created_at come by pk, then the earlier (or
# later) ones; each branch is a seek on the (session_id, created_at, pk, superseded_by, expires_at) index (a
# row-value comparison was not: with one timestamp over a whole session, as a batch save gives, it walked the
# session). The default filters read only that index's columns, so no neighbour's row is read (at 1,000,000
# memories those rows were most of the time: cold pages); other filters read the row of each neighbour found.
_BRANCH = """SELECT * FROM (SELECT m.pk, m.created_at, COALESCE({where}, 0) AS passes FROM memories m
    WHERE m.session_id = c.session_id AND {cond} ORDER BY {order} LIMIT {w})"""
_SIDE = """(SELECT json_group_array(json_array(created_at, pk, passes)) FROM ({same} UNION ALL {other}))"""


def _side(op: str, d: str, width: int, where: str) -> str:
    same = _BRANCH.format(where=where, cond=f"m.created_at = c.created_at AND m.pk {op} c.pk", order=f"m.pk {d}",
                          w=width)
    other = _BRANCH.format(where=where, cond=f"m.created_at {op} c.created_at",
                           order=f"m.created_at {d}, m.pk {d}", w=width)
    return _SIDE.format(same=same, other=other)


def neighbours_sql(width: int, where: str) -> str:
    """The statement: one JSON array of [pk, before, after] per candidate (pks as a JSON list, the last
    parameter), parsed at once (one parse per side cost more than the rest of the Python here)."""
    return (f"SELECT json_group_array(json_array(pk, json(before), json(after))) FROM (SELECT pk, "
            f"{_side('<', 'DESC', width, where)} AS before, {_side('>', 'ASC', width, where)} AS after "
            "FROM memories c WHERE pk IN (SELECT value FROM json_each(?)) AND session_id IS NOT NULL)")


def session_neighbours(store: IndexStore, pks: Sequence[int], width: int,
                       filters: Filters | None = None) -> dict[int, list[tuple[int, int]]]:
    """For each memory in ``pks`` that has a session, up to ``width`` memories on each side of it in that
    session's order (created_at, then pk) as (neighbour pk, offset): -1 just before, 2 the second after.
    With ``filters``, a neighbour they hide is left out (it still holds its place: offsets do not close up),
    unless it is in ``pks`` itself."""
    if not pks or width <= 0:
        return {}
    where, params = (filters or Filters(include_superseded=True, include_expired=True)).sql()
    listed = store.conn.execute(neighbours_sql(int(width), where), [*params * 4, json.dumps(list(pks))])
    found = {pk: (before, after) for pk, before, after in json.loads(listed.fetchone()[0])}
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
