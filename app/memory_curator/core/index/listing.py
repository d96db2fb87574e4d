"""Pages, counts and summaries of the indexed memories: the list views, sessions, the review inbox, Vault
health, stats, export and the candidates for grouping."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from memory_curator.core.errors import ValidationError
from memory_curator.core.index.filters import Filters
from memory_curator.core.index.store import FROM_MEMORIES, IndexStore
from memory_curator.core.model import MemoryItem, utcnow
from memory_curator.core.vault.codec import format_dt

# order_by -> (expression, natural direction is descending)
ORDERS = {"updated": ("m.updated_at", True), "created": ("m.created_at", True),
          "title": ("m.title COLLATE NOCASE", False), "salience": ("m.salience", True),
          "session": ("m.session_id", False), "category": ("m.category", False),
          "access_count": ("COALESCE(a.access_count, 0)", True)}
DEFAULT_CATEGORIES = ("decisions", "summaries", "context")
# Spelled as in the partial index of migration 3 (a literal, not a parameter) so SQLite uses that index.
_PENDING = "json_extract(m.meta_json, '$.extra.review') = 'pending'"


def _where(filters: Filters, keyword: str | None) -> tuple[str, list]:
    # Lists show expired memories (search hides them) so that a user can see what clear_expired takes.
    where, params = replace(filters, include_expired=True).sql()
    if keyword:
        where += " AND EXISTS (SELECT 1 FROM json_each(m.keywords) WHERE json_each.value = ?)"
        params.append(keyword)
    return where, params


# order_by -> the sort value as stored, from a listed memory: the key a page after that memory starts from.
# The orders whose column can be NULL or is computed (session, access_count) page by offset.
_KEYS = {"updated": lambda it: format_dt(it.updated_at), "created": lambda it: format_dt(it.created_at),
         "title": lambda it: it.title, "salience": lambda it: float(it.salience), "category": lambda it: it.category}


def cursor_key(order_by: str, item: MemoryItem) -> str | float | None:
    """The sort key a page after ``item`` starts from (None: this order pages by offset)."""
    key = _KEYS.get(order_by)
    return None if key is None else key(item)


def page(store: IndexStore, filters: Filters, keyword: str | None, order_by: str, descending: bool | None,
         limit: int, offset: int, after: MemoryItem | tuple[str | float, int] | None = None) -> list[MemoryItem]:
    """A page of memories. ``descending`` flips the order's natural direction (None keeps it). ``after``: the
    page follows this memory (the last one listed; or a sort key and row number, as a list cursor keeps them) instead
    of skipping ``offset`` rows: it starts from the memory's sort key in the column's index, so a page deep in
    1,000,000 memories is a seek, not a walk of the rows before it, and memories saved or deleted above it shift
    nothing (no row skipped or listed twice)."""
    if order_by not in ORDERS:
        raise ValidationError(f"order_by must be one of {', '.join(ORDERS)}.", field="order_by")
    expr, natural_desc = ORDERS[order_by]
    desc = natural_desc if descending is None else descending
    direction = "DESC" if desc else "ASC"
    where, params = _where(filters, keyword)
    if after is not None and order_by in _KEYS:
        beyond, last = "<" if desc else ">", -1 if not desc else 2**63 - 1
        # The memory's own pk breaks ties; if it is gone meanwhile, every row with its key follows.
        if isinstance(after, tuple):
            key, tie, tie_params = after[0], "?", [after[1]]
        else:
            key, tie, tie_params = _KEYS[order_by](after), f"COALESCE((SELECT pk FROM memories WHERE id = ?), {last})", [after.id]
        where += f" AND {expr} {beyond}= ? AND ({expr} {beyond} ? OR m.pk {beyond} {tie})"
        params += [key, key, *tie_params]
        offset = 0
    # The page's pks first, then their rows: skipping ``offset`` rows then reads only the sort column's index
    # (a page deep in 1,000,000 memories read every skipped row and its access stats), and a sort without an
    # index sorts pks, not whole rows.
    source = FROM_MEMORIES if order_by == "access_count" else "memories m"
    if source == FROM_MEMORIES:
        store.settle()  # ordered by the recalls: those queued written first
    pks = [r[0] for r in store.conn.execute(
        f"SELECT m.pk FROM {source} WHERE {where} "
        # pk as the only tie-breaker, same direction: an index on the sort column then yields rows in order.
        f"ORDER BY {expr} {direction}, m.pk {direction} LIMIT ? OFFSET ?",
        [*params, int(limit), int(offset)],
    )]
    items = store.get_by_pks(pks)
    return [items[pk] for pk in pks if pk in items]


def count(store: IndexStore, filters: Filters, keyword: str | None) -> int:
    where, params = _where(filters, keyword)
    return store.conn.execute(f"SELECT COUNT(*) FROM memories m WHERE {where}", params).fetchone()[0]


def categories(store: IndexStore) -> dict[str, int]:
    """Category -> count, the defaults always present."""
    counts = dict.fromkeys(DEFAULT_CATEGORIES, 0)
    counts.update(_facet(store, "category"))
    return counts


def sessions(store: IndexStore) -> dict[str, int]:
    return _facet(store, "session")


def _facet(store: IndexStore, facet: str) -> dict[str, int]:
    """Value -> memories with it, in the value's order. Kept by triggers (migration 12): counted from every
    memory they took up to 0.8 s at 1,000,000."""
    return dict(store.conn.execute("SELECT value, n FROM facet_counts WHERE facet = ? ORDER BY value", (facet,)))


def keywords(store: IndexStore) -> dict[str, int]:
    """Keyword -> how many times the memories name it, most named first. Kept by triggers (migration 11)."""
    return dict(store.conn.execute("SELECT value, n FROM keyword_counts ORDER BY 2 DESC, 1"))


def session_items(store: IndexStore, session_id: str, visible_to: Sequence[str] | None = None) -> list[MemoryItem]:
    """All memories of a session, oldest first (superseded and expired ones too), those ``visible_to`` sees."""
    where, params = Filters(session_id=session_id, include_superseded=True, include_expired=True,
                            visible_to=visible_to).sql()
    return store.items_where(f"{where} ORDER BY m.created_at, m.pk", params)


def pending(store: IndexStore, limit: int) -> list[MemoryItem]:
    """Memories waiting in the review inbox, oldest first."""
    return store.items_where(f"{_PENDING} ORDER BY m.created_at, m.pk LIMIT ?", [int(limit)])


def pending_count(store: IndexStore) -> int:
    return store.conn.execute(f"SELECT COUNT(*) FROM memories m WHERE {_PENDING}").fetchone()[0]


def file_paths(store: IndexStore, category: str | None = None) -> list[str]:
    """The memories' files (of one category, or all), oldest memory first."""
    where = "WHERE category = ? " if category else ""
    return [r[0] for r in store.conn.execute(
        f"SELECT file_path FROM memories {where}ORDER BY created_at, pk", (category,) if category else ())]


def unembedded(store: IndexStore, limit: int, count: int | None = None) -> list[tuple[str, str]]:
    """(id, title) of memories without vectors, most recently updated first (``count``: how many there are, if
    known). Where they are many, the update order's index is walked until ``limit`` are found (about limit x
    memories / unembedded rows); where few, they are read from their partial index and sorted. The partial
    index alone sorted every memory at 1,000,000 with none embedded yet (1.6 s, in Vault health); the walk alone
    would read every row when few are left."""
    count = store.unembedded_count() if count is None else count
    walk = count * count > int(limit) * max(sum(_facet(store, "category").values()), 1)
    # The unary plus keeps SQLite off the partial index, so the update order's index gives the order.
    rows = store.conn.execute(f"SELECT id, title FROM memories WHERE {'+' if walk else ''}chunk_count = 0 "
                              "ORDER BY updated_at DESC, pk DESC LIMIT ?", (int(limit),))
    return [(i, t) for i, t in rows]


def totals(store: IndexStore) -> tuple[int, float | None, str | None, str | None, int | None, dict[str, int]]:
    """(count, mean salience, oldest and newest created_at, characters of content, count per category), none
    read from every memory's row: counts and characters from the tables triggers keep (migrations 12, 13), the
    mean from the salience index, the oldest and newest each from one end of the created_at index."""
    by_cat = _facet(store, "category")
    conn = store.conn
    avg = conn.execute("SELECT AVG(salience) FROM memories").fetchone()[0]
    oldest = conn.execute("SELECT MIN(created_at) FROM memories").fetchone()[0]
    newest = conn.execute("SELECT MAX(created_at) FROM memories").fetchone()[0]
    row = conn.execute("SELECT n FROM content_totals WHERE k = 'content'").fetchone()
    return sum(by_cat.values()), avg, oldest, newest, row[0] if row else 0, by_cat


def lifecycle_counts(store: IndexStore, now: datetime | None = None) -> dict:
    """The MemoryStats fields about the lifecycle: pinned, superseded, expired, and counts per memory type
    (each from its partial index: the few memories it is about, not every row)."""
    conn = store.conn
    pinned = conn.execute("SELECT COALESCE(SUM(pinned), 0) FROM memories WHERE pinned <> 0").fetchone()[0]
    superseded = conn.execute("SELECT COUNT(*) FROM memories WHERE superseded_by IS NOT NULL").fetchone()[0]
    expired = conn.execute("SELECT COUNT(*) FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ?",
                           (format_dt(now or utcnow()),)).fetchone()[0]
    by_type: dict[str, int] = {}
    for kinds, n in conn.execute(
            "SELECT memory_type, COUNT(*) FROM memories WHERE memory_type IS NOT NULL GROUP BY 1"):
        for kind in kinds.split(","):
            by_type[kind] = by_type.get(kind, 0) + n
    return {"pinned_count": pinned, "superseded_count": superseded, "expired_count": expired,
            "by_memory_type": by_type}


def most_important(store: IndexStore, filters: Filters, limit: int) -> list[MemoryItem]:
    """Memories passing the filters, highest salience and most recent first."""
    where, params = filters.sql()
    return store.items_where(f"{where} ORDER BY m.salience DESC, m.updated_at DESC, m.pk LIMIT ?", [*params, int(limit)])

