"""The entity graph's rows (migration 8): mentions of entities per memory, and edges between memories.

Entities are not rows of their own: an entity is the set of mentions sharing a folded name (``key``), merged
with others by the user's corrections (core/graph/corrections.py) when read. So a rebuild, an edit or a merge
never has to keep an entity table in step.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memory_curator.core.index.db import Connection

_BATCH = 500
# How a link's target names a memory (prefix, table, column): by its id, or by one of its link names
# (core/graph/extract.link_names: folded title, file name, slug), each indexed (migration 18).
_NAMES = (("id:", "memories", "id"), ("title:", "link_names", "title"), ("title:", "link_names", "file"),
          ("title:", "link_names", "slug"))
_INSERT_NAMES = "INSERT OR REPLACE INTO link_names (pk, title, file, slug) VALUES (?, ?, ?, ?)"
# New memories' names: a plain INSERT. With foreign keys on, OR REPLACE runs each row in a statement savepoint,
# and at every savepoint FTS5 writes its pending terms out: a rebuild's full-text index was written a chunk at a
# time whatever its transactions (core/index/bulk.py HASHSIZE).
_INSERT_NEW_NAMES = _INSERT_NAMES.replace("INSERT OR REPLACE", "INSERT")



def write(conn: Connection, pk: int, mentions: Sequence[tuple[str, str, str]],
          edges: Sequence[tuple[str, str]], names: Sequence[str | None], *, replace: bool) -> None:
    """Store a memory's mentions (key, name, source), edges (target, kind) and link names (title, file, slug),
    replacing what it had."""
    if replace:
        conn.execute("DELETE FROM graph_mentions WHERE memory_pk = ?", (pk,))
        conn.execute("DELETE FROM graph_edges WHERE memory_pk = ?", (pk,))
    if mentions:
        conn.executemany("INSERT OR IGNORE INTO graph_mentions (memory_pk, key, name, source) VALUES (?, ?, ?, ?)",
                         [(pk, *m) for m in mentions])
    if edges:
        conn.executemany("INSERT OR IGNORE INTO graph_edges (memory_pk, target, kind) VALUES (?, ?, ?)",
                         [(pk, *e) for e in edges])
    conn.execute(_INSERT_NAMES, (pk, *names))


def insert_many(conn: Connection, rows: Sequence[tuple[int, Sequence, Sequence, Sequence]]) -> None:
    """``write`` for many new memories: (pk, mentions, edges, names) each."""
    conn.executemany("INSERT OR IGNORE INTO graph_mentions (memory_pk, key, name, source) VALUES (?, ?, ?, ?)",
                     [(pk, *m) for pk, mentions, _, _ in rows for m in mentions])
    conn.executemany("INSERT OR IGNORE INTO graph_edges (memory_pk, target, kind) VALUES (?, ?, ?)",
                     [(pk, *e) for pk, _, edges, _ in rows for e in edges])
    conn.executemany(_INSERT_NEW_NAMES, [(pk, *names) for pk, _, _, names in rows])


def clear(conn: Connection) -> None:
    conn.execute("DELETE FROM graph_mentions")
    conn.execute("DELETE FROM graph_edges")
    conn.execute("DELETE FROM link_names")


def _chunks(values: Sequence) -> Iterable[tuple[Sequence, str]]:
    for i in range(0, len(values), _BATCH):
        part = values[i : i + _BATCH]
        yield part, ",".join("?" * len(part))


class GraphRows:
    """The graph's queries on one connection (``IndexStore.graph``): core/graph reads the rows through it."""

    def __init__(self, conn: Connection):
        self.conn = conn

    def key_counts(self) -> list[tuple[str, int]]:
        """(key, memories mentioning it) for every key, from the key index alone: a page of the Entities list
        needs the order of every key, and the names and sources of its own keys only (``key_details``)."""
        return self.conn.execute("SELECT key, COUNT(DISTINCT memory_pk) FROM graph_mentions GROUP BY key").fetchall()

    def key_details(self, keys: Sequence[str]) -> dict[str, tuple[str, str]]:
        """key -> (a name as written, its sources joined by commas)."""
        out: dict[str, tuple[str, str]] = {}
        for part, marks in _chunks(list(keys)):
            for key, name, sources in self.conn.execute(
                f"SELECT key, MAX(name), GROUP_CONCAT(DISTINCT source) FROM graph_mentions WHERE key IN ({marks}) "
                "GROUP BY key", part
            ):
                out[key] = (name, sources)
        return out

    def sharing(self, weights: Sequence[tuple[str, int, float]], exclude: int, limit: int) -> list[tuple[int, str]]:
        """The memories that share the most, and the rarest, entities of ``weights`` ((key, entity number,
        weight) rows), best first: (memory pk, the entity numbers shared, comma-joined). Each entity counts once
        per memory, by its key of highest weight. Summed here, not in Python: a popular entity's memories are
        thousands of rows."""
        if not weights or limit <= 0:
            return []
        values = ", ".join(["(?, ?, ?)"] * len(weights))
        return self.conn.execute(
            f"WITH w(key, entity, weight) AS (VALUES {values}) "
            "SELECT pk, GROUP_CONCAT(entity) FROM ("
            "  SELECT m.memory_pk AS pk, w.entity AS entity, MAX(w.weight) AS wt FROM graph_mentions m "
            "  JOIN w ON m.key = w.key WHERE m.memory_pk <> ? GROUP BY m.memory_pk, w.entity"
            ") GROUP BY pk ORDER BY SUM(wt) DESC, pk LIMIT ?",
            [*(x for row in weights for x in row), exclude, int(limit)],
        ).fetchall()

    def memory_counts(self, keys: Sequence[str]) -> dict[str, int]:
        """How many memories mention each key (its document frequency)."""
        out: dict[str, int] = {}
        for part, marks in _chunks(list(keys)):
            for key, n in self.conn.execute(
                f"SELECT key, COUNT(*) FROM graph_mentions WHERE key IN ({marks}) GROUP BY key", part
            ):
                out[key] = n
        return out


    def mentions_of(self, pks: Sequence[int]) -> list[tuple[int, str, str, str]]:
        """(memory pk, key, name, source) of every mention in the memories ``pks``."""
        out: list[tuple[int, str, str, str]] = []
        for part, marks in _chunks(list(pks)):
            out += self.conn.execute(
                f"SELECT memory_pk, key, name, source FROM graph_mentions WHERE memory_pk IN ({marks})", part
            ).fetchall()
        return out

    def mentioning(self, keys: Sequence[str], limit: int | None = None) -> list[tuple[int, str, str]]:
        """(memory pk, key, source) of the memories that mention any of ``keys``."""
        out: list[tuple[int, str, str]] = []
        for part, marks in _chunks(list(keys)):
            sql = f"SELECT memory_pk, key, source FROM graph_mentions WHERE key IN ({marks})"
            if limit is not None:
                sql += f" LIMIT {int(limit)}"
            out += self.conn.execute(sql, part).fetchall()
        return out

    def co_mentioned(self, keys: Sequence[str], limit: int, sample: int = 300) -> list[tuple[str, str, int]]:
        """(key, a name as written, memories) mentioned in the same memories as ``keys``, most first; counted
        over at most ``sample`` of their memories (enough to tell which entities go together, and bounded)."""
        if not keys:
            return []
        marks = ",".join("?" * len(keys))
        return self.conn.execute(
            f"SELECT o.key, MAX(o.name), COUNT(DISTINCT o.memory_pk) AS n FROM "
            f"(SELECT DISTINCT memory_pk FROM graph_mentions WHERE key IN ({marks}) LIMIT ?) s "
            f"JOIN graph_mentions o ON o.memory_pk = s.memory_pk AND o.key NOT IN ({marks}) "
            f"GROUP BY o.key ORDER BY n DESC LIMIT ?",
            [*keys, int(sample), *keys, int(limit)],
        ).fetchall()

    def _links(self, pks: Sequence[int], outgoing: bool) -> list[tuple[int, int, str]]:
        """(from pk, to pk, kind): a link row's target meets a name of the memory it points at (``_NAMES``; a
        link to a missing memory meets nothing). ``outgoing``: the links ``pks`` make; else the links made to
        them (backlinks)."""
        out: list[tuple[int, int, str]] = []
        for part, marks in _chunks(list(pks)):
            if outgoing:  # from each link row to the memories its target names, through their indexes
                branches = [f"SELECT e.memory_pk, s.pk, e.kind FROM graph_edges e JOIN {table} s "
                            f"ON s.{column} = substr(e.target, {len(prefix) + 1}) WHERE e.memory_pk IN ({marks}) "
                            f"AND substr(e.target, 1, {len(prefix)}) = '{prefix}' AND s.pk <> e.memory_pk"
                            for prefix, table, column in _NAMES]
            else:  # from each memory's names to the link rows targeting them, through the targets' index
                branches = [f"SELECT e.memory_pk, s.pk, e.kind FROM {table} s JOIN graph_edges e "
                            f"ON e.target = '{prefix}' || s.{column} WHERE s.pk IN ({marks}) AND e.memory_pk <> s.pk"
                            for prefix, table, column in _NAMES]
            out += self.conn.execute(" UNION ".join(branches), list(part) * len(branches)).fetchall()
        return out

    def links_from(self, pks: Sequence[int]) -> list[tuple[int, int, str]]:
        return self._links( pks, True)

    def links_to(self, pks: Sequence[int]) -> list[tuple[int, int, str]]:
        return self._links( pks, False)

    def pks_of_ids(self, ids: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for part, marks in _chunks(list(ids)):
            out.update(self.conn.execute(f"SELECT id, pk FROM memories WHERE id IN ({marks})", part).fetchall())
        return out

    def ids_of_pks(self, pks: Sequence[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        for part, marks in _chunks(list(pks)):
            out.update(self.conn.execute(f"SELECT pk, id FROM memories WHERE pk IN ({marks})", part).fetchall())
        return out

    def allowed(self, pks: Sequence[int], where: str, params: Sequence) -> set[int]:
        """Those of ``pks`` that pass a search's filter (a WHERE fragment over ``memories m``)."""
        out: set[int] = set()
        for part, marks in _chunks(list(pks)):
            out.update(r[0] for r in self.conn.execute(f"SELECT m.pk FROM memories m WHERE m.pk IN ({marks}) AND {where}",
                                                  [*part, *params]))
        return out

    def all_ids(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT id FROM memories ORDER BY pk")]

    def label_counts(self) -> dict[str, int]:
        """Classification label -> memories carrying it (core/graph/classify.py keeps them in the frontmatter)."""
        return dict(self.conn.execute("SELECT label, n FROM label_counts ORDER BY 2 DESC, 1"))  # migration 12

    def named(self, targets: Sequence[str]) -> list[int]:
        """The memories one of ``targets`` ("id:<id>", "title:<folded name>") names (``_NAMES``)."""
        branches, params = [], []
        for prefix, table, column in _NAMES:
            values = [t[len(prefix):] for t in targets if t.startswith(prefix)]
            if values:
                branches.append(f"SELECT pk FROM {table} WHERE {column} IN ({','.join('?' * len(values))})")
                params += values
        return [r[0] for r in self.conn.execute(" UNION ".join(branches), params)] if branches else []
