"""The user's corrections to the entity graph, kept in the vault as ``entities.yaml`` (documented in README).

They are user intent, not derived state: a rebuild of the index reads them again, and any editor shows them.

    entities:               # an entity's name, and the other names that are the same entity (merge, rename)
      Gandros:
      - the wizard
      - npc_wizard
    not_entities:           # names that are not entities (hidden from the Entities pane, links and search)
    - Friday
    links:                  # links between memories that nothing in their text makes (memory ids)
    - [id-of-one, id-of-other]
    unlinks:                # links the graph found that are wrong
    - [id-of-one, id-of-other]

The file is untrusted input like every vault file: one that cannot be read is reported in Vault health and
the graph is shown without corrections until it is fixed; a wrong entry is skipped, never fatal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from memory_curator.core.graph.extract import fold
from memory_curator.core.vault.files import atomic_write_text, read_regular
from memory_curator.core.vault.yaml_handler import HANDLER, FrontmatterError

FILE_NAME = "entities.yaml"
MAX_BYTES = 5 * 1024 * 1024
HEADER = (
    "# Corrections to Memory Curator's entity graph (see README, 'The vault format'). Edit freely.\n"
    "# entities: a name and the other names of the same entity; not_entities: names that are not entities;\n"
    "# links / unlinks: pairs of memory ids to link, or to keep apart.\n"
)


class CorrectionsError(ValueError):
    pass


@dataclass
class Corrections:
    entities: dict[str, list[str]] = field(default_factory=dict)  # display name -> other names
    not_entities: list[str] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)
    unlinks: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._index()

    def _index(self) -> None:
        self.canonical: dict[str, str] = {}  # folded name -> folded display name
        self.display: dict[str, str] = {}  # folded display name -> display name
        for name, others in self.entities.items():
            key = fold(name)
            self.display[key] = name
            self.canonical[key] = key
            for other in others:
                self.canonical.setdefault(fold(other), key)
        self.hidden = {fold(n) for n in self.not_entities}
        self.added = {frozenset(p) for p in self.links if len(set(p)) == 2}
        self.removed = {frozenset(p) for p in self.unlinks if len(set(p)) == 2}

    # -- reading ------------------------------------------------------------------------------------------

    def key_of(self, key: str) -> str:
        """The entity a folded name belongs to (itself unless merged into another)."""
        return self.canonical.get(key, key)

    def members(self, key: str) -> list[str]:
        """Every folded name of the entity ``key`` (its own and its aliases)."""
        key = self.key_of(key)
        return [key, *(k for k, c in self.canonical.items() if c == key and k != key)]

    def is_hidden(self, key: str) -> bool:
        return key in self.hidden or self.key_of(key) in self.hidden

    # -- changing (the caller writes the file) ------------------------------------------------------------

    def merge(self, names: list[str], into: str) -> None:
        """``names`` become other names of the entity ``into`` (which keeps its own aliases and theirs)."""
        target = self._entry_for(into)
        for name in names:
            if fold(name) == fold(target):
                continue
            old = self._entry_name(name)
            moved = self.entities.pop(old, []) if old is not None else []
            for n in [name, *moved]:
                if fold(n) != fold(target) and fold(n) not in (fold(o) for o in self.entities[target]):
                    self.entities[target].append(n)
        self._unhide(target)
        self._index()

    def rename(self, name: str, new_name: str) -> None:
        """Show the entity ``name`` as ``new_name``; its old names stay as aliases."""
        old = self._entry_name(name)
        aliases = self.entities.pop(old, []) if old is not None else []
        keep = [n for n in [name, *aliases] if fold(n) != fold(new_name)]
        existing = self._entry_name(new_name)
        if existing is not None and existing != new_name:
            keep += self.entities.pop(existing)
        self.entities[new_name] = [*self.entities.get(new_name, []), *keep]
        self._index()

    def hide(self, name: str, hidden: bool = True) -> None:
        key = self.key_of(fold(name))
        self.not_entities = [n for n in self.not_entities if fold(n) != key]
        if hidden:
            self.not_entities.append(self.display.get(key, name))
        self._index()

    def link(self, a: str, b: str, linked: bool = True) -> None:
        pair = frozenset((a, b))
        self.links = [p for p in self.links if frozenset(p) != pair]
        self.unlinks = [p for p in self.unlinks if frozenset(p) != pair]
        (self.links if linked else self.unlinks).append((a, b))
        self._index()

    def _entry_name(self, name: str) -> str | None:
        key = self.key_of(fold(name))
        return next((n for n in self.entities if fold(n) == key), None)

    def _entry_for(self, name: str) -> str:
        existing = self._entry_name(name)
        if existing is None:
            existing = name
            self.entities[existing] = []
        return existing

    def _unhide(self, name: str) -> None:
        self.not_entities = [n for n in self.not_entities if fold(n) != fold(name)]

    # -- the file -------------------------------------------------------------------------------------------

    def to_yaml(self) -> str:
        data: dict[str, Any] = {}
        if self.entities:
            data["entities"] = {k: list(v) for k, v in self.entities.items()}
        if self.not_entities:
            data["not_entities"] = list(self.not_entities)
        if self.links:
            data["links"] = [list(p) for p in self.links]
        if self.unlinks:
            data["unlinks"] = [list(p) for p in self.unlinks]
        body = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, default_flow_style=None) if data else ""
        return HEADER + body


def parse(text: str) -> tuple[Corrections, list[str]]:
    """Corrections from the file's text, and what in it was skipped. Raises CorrectionsError when the file as a
    whole cannot be read (broken YAML, not a mapping)."""
    try:  # the vault's YAML loader: its limits on size, nesting and aliases hold here too (billion laughs)
        data = HANDLER.load(text, max_bytes=MAX_BYTES) if text.strip() else {}
    except FrontmatterError as exc:
        raise CorrectionsError(str(exc).replace("frontmatter ", "", 1)) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise CorrectionsError("is not a mapping of entities, not_entities, links and unlinks")
    skipped: list[str] = []
    entities: dict[str, list[str]] = {}
    raw = data.get("entities") or {}
    if isinstance(raw, dict):
        for name, others in raw.items():
            if not isinstance(name, (str, int, float)) or not str(name).strip():
                skipped.append(f"entity {name!r}")
                continue
            if others is None:
                others = []
            if isinstance(others, str):
                others = [others]
            if not isinstance(others, list):
                skipped.append(f"aliases of {name}")
                others = []
            entities[str(name)] = [str(o) for o in others if isinstance(o, (str, int, float)) and str(o).strip()]
    else:
        skipped.append("entities (not a mapping)")
    hidden = data.get("not_entities") or []
    if not isinstance(hidden, list):
        skipped.append("not_entities (not a list)")
        hidden = []
    pairs: dict[str, list[tuple[str, str]]] = {"links": [], "unlinks": []}
    for key in pairs:
        value = data.get(key) or []
        for p in value if isinstance(value, list) else [None]:
            if isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p):
                pairs[key].append((p[0], p[1]))
            else:
                skipped.append(f"{key} entry {p!r}")
    return Corrections(entities, [str(h) for h in hidden if isinstance(h, (str, int, float))],
                       pairs["links"], pairs["unlinks"]), skipped


class CorrectionsFile:
    """``entities.yaml`` at the vault's top, read again whenever it changed (another program, git, a user)."""

    def __init__(self, root: Path):
        self.path = root / FILE_NAME
        self._stamp: tuple[int, int] | None = None
        self._value = Corrections()
        self.problem: str | None = None
        self._unreadable = False

    def load(self) -> Corrections:
        try:
            st = self.path.lstat()  # a link is reported below, never followed
        except OSError:
            self._stamp, self._value, self.problem, self._unreadable = None, Corrections(), None, False
            return self._value
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self._stamp:
            return self._value
        self._stamp = stamp
        try:
            if st.st_size > MAX_BYTES:
                raise CorrectionsError(f"is larger than {MAX_BYTES // (1024 * 1024)} MiB")
            text = read_regular(self.path, MAX_BYTES).decode("utf-8")
            self._value, skipped = parse(text)
            self.problem = f"entries skipped: {', '.join(skipped[:5])}" if skipped else None
            self._unreadable = False
        except (OSError, UnicodeDecodeError, CorrectionsError) as exc:
            self._value, self._unreadable = Corrections(), True
            self.problem = str(exc) if isinstance(exc, CorrectionsError) else f"cannot be read ({exc})"
        return self._value

    def save(self, corrections: Corrections) -> None:
        self.load()
        if self._unreadable:
            # Never overwrite a file we could not read: the user's corrections in it would be lost.
            raise CorrectionsError(f"{FILE_NAME} {self.problem}: fix or remove it first")
        atomic_write_text(self.path, corrections.to_yaml())
        self._stamp = None
