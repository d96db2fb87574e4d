"""Session neighbours: the memories saved just before and after a memory in the same session.

A conversation saved turn by turn, or a document saved part by part, spreads one subject over neighbouring
memories: the answer follows the question, the picture follows the sentence that names it. Search lets a
memory borrow some of its neighbours' scores (core/fusion.py); this finds the neighbours.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from memory_curator.core.index.store import IndexStore

# Neighbours on one side of memory m: those sharing its created_at come by pk, then the earlier (or later)
# ones; each branch is a seek on the (session_id, created_at) index (a row-value comparison was not: with one
# timestamp over a whole session, as a batch save gives, it walked the session).
_SIDE = """(SELECT json_group_array(json_array(pk, created_at)) FROM (
    SELECT * FROM (SELECT p.pk, p.created_at FROM memories p WHERE p.session_id = m.session_id
                   AND p.created_at = m.created_at AND p.pk {op} m.pk ORDER BY p.pk {dir} LIMIT :w)
    UNION ALL
    SELECT * FROM (SELECT p.pk, p.created_at FROM memories p WHERE p.session_id = m.session_id
                   AND p.created_at {op} m.created_at ORDER BY p.created_at {dir}, p.pk {dir} LIMIT :w)))"""


def session_neighbours(store: IndexStore, pks: Sequence[int], width: int) -> dict[int, list[tuple[int, int]]]:
    """For each memory in ``pks`` that has a session, up to ``width`` memories on each side of it in that
    session's order (created_at, then pk) as (neighbour pk, offset): -1 just before, 2 the second after."""
    if not pks or width <= 0:
        return {}
    rows = store.conn.execute(
        f"SELECT m.pk, m.created_at, {_SIDE.format(op='<', dir='DESC')}, {_SIDE.format(op='>', dir='ASC')} "
        "FROM memories m WHERE m.pk IN (SELECT value FROM json_each(:pks)) AND m.session_id IS NOT NULL",
        {"pks": json.dumps(list(pks)), "w": int(width)},
    )
    out: dict[int, list[tuple[int, int]]] = {}
    for pk, _, before, after in rows:
        near = []
        for side, sign in ((before, -1), (after, 1)):
            found = sorted(((c, p) for p, c in json.loads(side)), reverse=sign < 0)[:width]
            near += [(p, sign * d) for d, (_, p) in enumerate(found, start=1)]
        if near:
            out[pk] = near
    return out
