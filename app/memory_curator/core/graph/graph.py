"""The entity graph as the faces see it: entities with counts, a memory's neighbourhood, and the corrections.

Receives the narrow things it needs (the index store and the corrections file), never the service facade.
"""

from __future__ import annotations

import copy
import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from memory_curator.core.errors import EntityNotFound, ValidationError
from memory_curator.core.graph import retrieval
from memory_curator.core.graph.corrections import FILE_NAME, Corrections, CorrectionsError, CorrectionsFile
from memory_curator.core.graph.extract import fold
from memory_curator.core.graph.labelling import Labelling
from memory_curator.core.graph.retrieval import GraphLeg
from memory_curator.core.index.filters import Filters
from memory_curator.core.index.store import IndexStore
from memory_curator.core.memories import Memories
from memory_curator.core.model import MemoryItem, VaultProblem
from memory_curator.core.vault.settings import VaultSettings

# An entity in more than this share of the memories links everything to everything: it is left out of
# "shares an entity" links (its memories are still listed under it).
HUB_SHARE = 0.05
HUB_MIN = 50


@dataclass(frozen=True)
class Entity:
    name: str  # as shown (the user's name for it, else the most common spelling)
    key: str  # folded
    count: int  # memories that mention it (any of its names)
    sources: tuple[str, ...]  # actor, wikilink, keyword, name
    aliases: tuple[str, ...] = ()
    hidden: bool = False


@dataclass(frozen=True)
class Link:
    source: str  # memory id
    target: str  # memory id
    kind: str  # wikilink, supersedes, consolidated_from, part, parent, link (added by hand), entity
    via: tuple[str, ...] = ()  # for kind "entity": the shared entities


@dataclass
class Neighbourhood:
    """A memory, the entities it mentions and the memories one hop away: what the graph view draws."""

    center: str
    memories: dict[str, MemoryItem] = field(default_factory=dict)
    entities: dict[str, list[str]] = field(default_factory=dict)  # memory id -> entity names it mentions
    links: list[Link] = field(default_factory=list)


@dataclass
class GraphAnswer:
    query: str
    entities: list[str]  # named in the query
    expansion: list[str]  # their aliases and closely linked entities
    hits: list[tuple[MemoryItem, float, str]]  # (memory, score, how the graph reached it), best first


class EntityGraph:
    def __init__(self, store: IndexStore, corrections: CorrectionsFile,
                 writing: Callable[[], AbstractContextManager] = nullcontext):
        self.store = store
        self.file = corrections
        self._writing = writing  # the vault's write lock, so two processes never interleave their edits
        self.labels: Labelling | None = None  # classification (seed 002's Classify), set by of_vault
        self._counts: tuple | None = None  # see _counted

    @classmethod
    def of_vault(cls, store: IndexStore, root: Path, memories: Memories, settings: VaultSettings) -> EntityGraph:
        """The vault's graph, with its corrections file, and the labelling of new memories (``labels``)."""
        made = cls(store, CorrectionsFile(root), memories.writing)
        made.labels = Labelling(memories, settings)
        return made

    def problems(self) -> list[VaultProblem]:
        """entities.yaml when it cannot be read (the graph then shows without corrections)."""
        self.file.load()
        return [VaultProblem(FILE_NAME, self.file.problem)] if self.file.problem else []

    @property
    def corrections(self) -> Corrections:
        return self.file.load()

    # -- entities -------------------------------------------------------------------------------------------

    def entities(self, *, include_hidden: bool = False, min_count: int = 1, query: str | None = None,
                 limit: int | None = None, offset: int = 0) -> list[Entity]:
        """Entities with the number of memories mentioning them, most mentioned first; ``offset`` and ``limit``
        give a page (the order comes from the key index alone; names and sources are read for the page)."""
        fix = self.corrections
        key_count, members, counts, order = self._counted(fix)
        needle = fold(query) if query else None
        end = offset + limit if limit else None
        chosen: list[str] = []
        for canon in order:  # most mentioned first: a page stops reading where it ends
            if end is not None and len(chosen) >= end:
                break
            if counts[canon] < min_count or (fix.is_hidden(canon) and not include_hidden):
                continue
            if needle and not any(needle in k for k in members[canon]) and not any(
                    needle in fold(a) for a in fix.entities.get(fix.display.get(canon, ""), [])):
                continue
            chosen.append(canon)
        page = chosen[offset:end]
        return self._described(page, {c: members[c] for c in page}, key_count, counts)

    def _counted(self, fix: Corrections) -> tuple[dict[str, int], dict[str, list[str]], dict[str, int], list[str]]:
        """Memories per key, the keys of each entity, memories per entity, and the entities most mentioned
        first; kept until the index or the merges change, so the Entities list's next page reads only its own
        names."""
        version = self.store.get_meta("content_version")
        # The merges are what the counts depend on (a vault without entities.yaml loads a new, equal object).
        if self._counts is not None and self._counts[0] == version and self._counts[1] == fix.canonical:
            return self._counts[2]
        gr = self.store.graph_rows
        key_count = dict(gr.key_counts())
        members: dict[str, list[str]] = defaultdict(list)
        for key in key_count:
            members[fix.key_of(key)].append(key)
        counts = {canon: sum(key_count[k] for k in keys) for canon, keys in members.items()}
        for canon, keys in members.items():
            if len(keys) > 1:  # a memory naming an entity by two of its names counts once
                counts[canon] = len({pk for pk, _k, _s in gr.mentioning(keys)})
        # Keys are folded already; only a name the user gave needs folding to sort among them.
        order = sorted(counts, key=lambda c: (-counts[c], fold(fix.display[c]) if c in fix.display else c))
        self._counts = (version, dict(fix.canonical), (key_count, dict(members), counts, order))
        return self._counts[2]

    def _described(self, canons: Sequence[str], members: dict[str, list[str]], key_count: dict[str, int],
                   counts: dict[str, int]) -> list[Entity]:
        fix = self.corrections
        details = self.store.graph_rows.key_details([k for c in canons for k in members[c]])
        out = []
        for canon in canons:
            names: dict[str, int] = {}
            sources: set[str] = set()
            for key in members[canon]:
                name, srcs = details.get(key, (key, ""))
                names[name] = names.get(name, 0) + key_count.get(key, 0)
                sources.update(s for s in srcs.split(",") if s)
            name = fix.display.get(canon) or max(names, key=lambda n: (names[n], n))
            aliases = tuple(sorted({n for n in names if fold(n) != fold(name)} | set(fix.entities.get(name, []))))
            out.append(Entity(name, canon, counts[canon], tuple(sorted(sources)), aliases, fix.is_hidden(canon)))
        return out

    def entity(self, name: str) -> Entity | None:
        fix = self.corrections
        canon = fix.key_of(fold(name))
        keys = fix.members(canon)
        gr = self.store.graph_rows
        key_count = {k: n for k, n in gr.memory_counts(keys).items() if n}
        if not key_count:
            return None
        present = [k for k in keys if k in key_count]
        count = len({pk for pk, _k, _s in gr.mentioning(present)})
        return self._described([canon], {canon: present}, key_count, {canon: count})[0]

    def keys_of(self, name: str) -> list[str]:
        """Every folded name of the entity ``name`` (merged names included)."""
        return self.corrections.members(fold(name))

    def memory_pks(self, name: str) -> set[int]:
        return {pk for pk, _k, _s in self.store.graph_rows.mentioning(self.keys_of(name))}

    def visible_pks(self, name: str, filters: Filters | None) -> set[int]:
        """The memories mentioning ``name`` that pass ``filters`` (all of them without)."""
        pks = self.memory_pks(name)
        if filters is None:
            return pks
        where, params = filters.sql()
        return self.store.graph_rows.allowed(list(pks), where, params)

    def memories_of(self, name: str, limit: int = 100, *, filters: Filters | None = None) -> list[MemoryItem]:
        """The memories that mention the entity ``name`` (by any of its names), newest first; ``filters``
        keeps those a caller may see (Filters.visible_to)."""
        items = self.store.get_by_pks(self.visible_pks(name, filters)).values()
        return sorted(items, key=lambda m: m.updated_at, reverse=True)[:limit]

    def entities_of(self, memory_id: str) -> list[tuple[str, str]]:
        """(entity name, source) of what the memory mentions, hidden ones left out."""
        pk = self.store.pk_of(memory_id)
        if pk is None:
            raise self.store.missing(memory_id)
        fix = self.corrections
        out = {}
        for _pk, key, name, source in self.store.graph_rows.mentions_of([pk]):
            if not fix.is_hidden(key):
                canon = fix.key_of(key)
                out.setdefault(canon, (fix.display.get(canon, name), source))
        return list(out.values())

    # -- links ----------------------------------------------------------------------------------------------

    def links(self, memory_id: str, *, shared_limit: int = 20) -> list[Link]:
        """The memory's links, both ways: what it links to, what links to it (backlinks), the links added by
        hand, and the memories it shares an entity with (the rarer the entity, the closer), minus unlinks."""
        pk = self.store.pk_of(memory_id)
        if pk is None:
            raise self.store.missing(memory_id)
        fix = self.corrections
        gr = self.store.graph_rows
        found: list[tuple[int, int, str]] = gr.links_from([pk]) + gr.links_to([pk])
        ids = gr.ids_of_pks(list({p for a, b, _ in found for p in (a, b)}))
        out: list[Link] = []
        seen: set[frozenset] = set()
        for a, b, kind in found:
            pair = frozenset((ids[a], ids[b]))
            if pair in fix.removed or a not in ids or b not in ids:
                continue
            seen.add(pair)
            out.append(Link(ids[a], ids[b], kind))
        for pair in fix.added:
            if memory_id in pair and pair not in seen:
                other = next(iter(pair - {memory_id}))
                if self.store.pk_of(other) is not None:
                    out.append(Link(memory_id, other, "link"))
                    seen.add(pair)
        for other_id, via in self._shared(pk, memory_id, shared_limit):
            pair = frozenset((memory_id, other_id))
            if pair not in fix.removed and pair not in seen:
                out.append(Link(memory_id, other_id, "entity", via))
        return out

    def _shared(self, pk: int, memory_id: str, limit: int) -> list[tuple[str, tuple[str, ...]]]:
        fix = self.corrections
        gr = self.store.graph_rows
        mine = {}
        for _p, key, name, _s in gr.mentions_of([pk]):
            if not fix.is_hidden(key):
                mine.setdefault(fix.key_of(key), fix.display.get(fix.key_of(key), name))
        if not mine or limit <= 0:
            return []
        total = max(1, self.store.count())
        hub = max(HUB_MIN, int(total * HUB_SHARE))
        canons = list(mine)
        keys = {k: i for i, canon in enumerate(canons) for k in fix.members(canon)}
        counts = gr.memory_counts(list(keys))
        weights = [(k, i, math.log(1 + total / counts[k])) for k, i in keys.items() if 0 < counts.get(k, 0) <= hub]
        best = gr.sharing(weights, pk, limit)
        ids = gr.ids_of_pks([p for p, _e in best])
        return [(ids[p], tuple(sorted({mine[canons[int(e)]] for e in via.split(",")}))) for p, via in best if p in ids]

    def resolve(self, target: str) -> MemoryItem | None:
        """The memory a wikilink's target names (its title, file name or id), or None."""
        pks = self.store.graph_rows.named([f"title:{fold(target)}", f"id:{target.strip()}"])
        items = self.store.get_by_pks(pks)
        return min(items.values(), key=lambda m: m.created_at) if items else None

    def backlinks(self, memory_id: str) -> list[MemoryItem]:
        """Memories that link to this one (wikilinks, supersedes, parts, links added by hand)."""
        links = [lk for lk in self.links(memory_id, shared_limit=0) if lk.target == memory_id or lk.kind == "link"]
        others = [lk.source if lk.target == memory_id else lk.target for lk in links]
        items = self.store.get_many(others)
        return [items[i] for i in dict.fromkeys(others) if i in items]

    def neighbourhood(self, memory_id: str, *, limit: int = 30) -> Neighbourhood:
        links = self.links(memory_id, shared_limit=limit)[: limit * 2]
        ids = list(dict.fromkeys([memory_id, *(x for lk in links for x in (lk.source, lk.target))]))
        items = self.store.get_many(ids)
        hood = Neighbourhood(memory_id, {i: items[i] for i in ids if i in items}, {}, links)
        hood.entities[memory_id] = [name for name, _s in self.entities_of(memory_id)]
        return hood

    # -- search ---------------------------------------------------------------------------------------------

    def search_leg(self, query: str, filters: Filters, limit: int) -> GraphLeg:
        """The graph's ranked list for a hybrid search (see core/graph/retrieval.py)."""
        where, params = filters.sql()
        return retrieval.rank(self.store, self.corrections, query, where, params, max(limit * 5, 50))

    def query(self, query: str, *, limit: int = 10, filters: Filters | None = None) -> GraphAnswer:
        """Seed 002's graph query: the entities the query names, the related names it expands to, and the
        memories the graph reaches from them, each with how (a mention, a close entity, a link)."""
        leg = self.search_leg(query, filters or Filters(), limit)
        best = leg.ranked[:limit]
        items = self.store.get_by_pks([pk for pk, _ in best])
        hits = [(items[pk], score, leg.why.get(pk, "")) for pk, score in best if pk in items]
        return GraphAnswer(query, list(leg.entities), list(leg.expansion), hits)

    # -- corrections ----------------------------------------------------------------------------------------

    def _change(self, edit) -> Corrections:
        with self._writing():
            fix = copy.deepcopy(self.file.load())
            edit(fix)
            try:
                self.file.save(fix)
            except CorrectionsError as exc:
                raise ValidationError(str(exc), field="entities") from None
        return self.file.load()

    def merge(self, names: Sequence[str], into: str) -> Entity | None:
        """The entities ``names`` are the same as ``into``: one entity, the others' names its aliases. A name no
        memory mentions yet may join a known entity (an alias declared ahead); when no name given is known, it
        is a mistyped name, and nothing is written (EntityNotFound)."""
        names = [n for n in names if n and n.strip()]
        if not into or not into.strip() or not names:
            raise ValidationError("Name the entities to merge and the one to keep.", field="names")
        given = list(dict.fromkeys([*names, into.strip()]))
        if all(self.entity(n) is None for n in given):
            raise EntityNotFound(f"No entity named {' or '.join(map(repr, given))} in this vault (no memory "
                                 "mentions any of them): nothing was merged.")
        self._change(lambda fix: fix.merge(list(names), into.strip()))
        return self.entity(into)

    def rename(self, name: str, new_name: str) -> Entity | None:
        if not new_name or not new_name.strip():
            raise ValidationError("The new name is empty.", field="new_name")
        if self.entity(name) is None:  # a mistyped name: nothing to rename, nothing written
            raise EntityNotFound(f"No entity named {name!r} in this vault (no memory mentions it): nothing was "
                                 "renamed.")
        self._change(lambda fix: fix.rename(name, new_name.strip()))
        return self.entity(new_name)

    def hide(self, name: str, hidden: bool = True) -> None:
        """Mark ``name`` as not an entity (or take that back)."""
        self._change(lambda fix: fix.hide(name, hidden))

    def link(self, a: str, b: str, linked: bool = True) -> None:
        """Link two memories by hand (``linked=False``: keep a link the graph found from showing)."""
        for mid in (a, b):
            if self.store.pk_of(mid) is None:
                raise self.store.missing(mid)
        if a == b:
            raise ValidationError("A memory cannot be linked to itself.", field="target")
        self._change(lambda fix: fix.link(a, b, linked))
