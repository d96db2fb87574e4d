"""What a memory says about the graph: the entities it mentions and the memories it points at.

Derived from the file alone, so the index can rebuild it (and a helper process can compute it during a
rebuild). What a user corrects lives in ``entities.yaml`` (core/graph/corrections.py) and is applied on top.

Sources of entities, each kept with the mention: ``actor`` (the ``actors`` field, seed 002's actor_id),
``wikilink`` (``[[Target]]`` or ``[[Target|label]]``: the target is the entity), ``keyword`` (the tags) and
``name`` (proper nouns in the text, core/graph/names.py).

Edges to other memories, by what they point at: ``id:<memory id>`` for ``supersedes``, ``superseded_by``,
``consolidated_from`` and a document's ``parts`` / ``parent``; ``title:<folded title>`` for a wikilink. A link
is resolved by meeting a name of the memory it points at: its id, or one of its ``link_names`` (folded title,
file name and slug), which the index keeps with the memory's row: the index never has to know titles when
it stores a link.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from memory_curator.core.graph.names import names
from memory_curator.core.model import MemoryItem
from memory_curator.core.text.wikilinks import find as find_wikilinks

SOURCES = ("actor", "wikilink", "keyword", "name")
EDGE_KINDS = ("wikilink", "supersedes", "superseded_by", "consolidated_from", "part", "parent", "link")
MAX_NAME_CHARS = 20_000  # names are looked for in the opening of a long text (a book-length memory adds little)
_SPACE = re.compile(r"\s+")
_OUTER = " \t.,;:!?'\"’“”()[]{}"  # stripped from a folded name


# Plain tuples, not named ones: a rebuild makes six a file and sends them to another process, where a named
# tuple's class costs its construction here and a conversion before pickling.
Mention = tuple[str, str, str]  # key (the folded name entities are matched by), name as written, source (SOURCES)
Edge = tuple[str, str]  # target ("id:<id>" or "title:<folded>"), kind (EDGE_KINDS)


@functools.lru_cache(maxsize=1 << 16)  # keywords, actors and names repeat across a vault's memories
def fold(name: str) -> str:
    """The form entity names are compared in: NFKC, case-folded, inner white space single, outer punctuation off."""
    if name.isascii() and name.isprintable() and "  " not in name:
        # NFKC leaves ASCII as it is, casefold is lower, and no white space but single spaces: three C scans
        # instead of the normalisation and a pattern (a rebuild folds three new names a file: title, file, slug)
        return name.lower().strip(_OUTER)
    text = unicodedata.normalize("NFKC", name).casefold()
    return _SPACE.sub(" ", text).strip(_OUTER)


def wikilinks(text: str) -> list[tuple[str, str | None]]:
    """(target, label) of every ``[[target]]`` / ``[[target|label]]`` (Obsidian's syntax) in ``text``."""
    return find_wikilinks(text)


def mentions(item: MemoryItem) -> list[Mention]:
    out: dict[tuple[str, str], Mention] = {}

    def add(name: str, source: str) -> None:
        key = fold(name)
        if key and len(key) <= 200:
            out.setdefault((key, source), (key, name.strip(), source))

    for actor in item.actors:
        add(str(actor), "actor")
    for target, _label in wikilinks(item.content):
        add(target, "wikilink")
    for kw in item.keywords:
        add(str(kw), "keyword")
    for name in names(item.content[:MAX_NAME_CHARS]):
        add(name, "name")
    return list(out.values())


def file_stem(rel_or_path: str | None) -> str | None:
    if not rel_or_path:
        return None
    name = rel_or_path.replace("\\", "/").rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name


def link_names(title: str, rel: str | None) -> tuple[str | None, str | None, str | None]:
    """The names a ``title:`` link can give a memory, folded: its title, its file name and the file name's slug
    (None where it has none). With its id, what the index resolves links by (the memories' link columns)."""
    stem = file_stem(rel)
    # Files are named {date}_{slug}: Obsidian users link the slug as often as the whole name.
    slug = fold(stem.split("_", 1)[1]) if stem and "_" in stem else None
    return (fold(title) if title else None), (fold(stem) if stem else None), slug


def edges(item: MemoryItem) -> list[Edge]:
    """The links ``item`` makes (the names others link it by are its id and ``link_names``)."""
    found: dict[Edge, None] = {}

    def add(target: str, kind: str) -> None:
        found.setdefault((target, kind), None)

    for target, _label in wikilinks(item.content):
        add(f"title:{fold(target)}", "wikilink")
    for old in item.supersedes:
        add(f"id:{old}", "supersedes")
    if item.superseded_by:
        add(f"id:{item.superseded_by}", "superseded_by")
    for src in item.consolidated_from:
        add(f"id:{src}", "consolidated_from")
    prov = item.provenance if isinstance(item.provenance, dict) else {}
    parts = prov.get("parts")
    if isinstance(parts, list):
        for child in parts:
            if isinstance(child, str):
                add(f"id:{child}", "part")
    if isinstance(prov.get("parent"), str):
        add(f"id:{prov['parent']}", "parent")
    return list(found)
