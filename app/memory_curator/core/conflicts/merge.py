"""Three-way merge of a memory's two versions, field by field, for what needs no person.

A field both sides hold alike is kept; ``updated_at`` (the app sets it on every change) takes the later;
a field only one side changed since the common ancestor takes that side's value. Without an ancestor (a
sync tool's copy: no merge base is known) only ``updated_at`` may differ. Anything else is for a person.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memory_curator.core.model import MemoryItem
from memory_curator.core.vault.codec import encode_memory, split_frontmatter

MANAGED = ("updated_at",)  # set by the app on every change: the later one wins, never a person's choice
CONTENT = "content"  # the text, compared like a field


@dataclass(frozen=True)
class FieldDiff:
    name: str
    ours: Any  # as written in the file (None: absent)
    theirs: Any
    base: Any
    taken: str  # "ours" | "theirs" | "later" (updated_at) | "conflict"; "merged": alike on both sides but
    # changed since the ancestor (git merged it already: shown, nothing to choose)


@dataclass(frozen=True)
class Merge:
    fields: tuple[FieldDiff, ...]  # every field that differs between the sides (and the text), or from the base
    values: dict[str, Any]  # the merged file's frontmatter, with the text under CONTENT; conflicts take ours

    @property
    def clean(self) -> bool:
        """No person needed: no field differs on both sides."""
        return not any(f.taken == "conflict" for f in self.fields)

    @property
    def conflicting(self) -> list[str]:
        return [f.name for f in self.fields if f.taken == "conflict"]

    def describe(self) -> str:
        """What the merge took from where, for the history: "title from this machine, keywords from the other"."""
        parts = [f"{f.name} from {'this machine' if f.taken == 'ours' else 'the other'}"
                 for f in self.fields if f.taken in ("ours", "theirs")]
        return ", ".join(parts) or "only updated_at differed"


def values_of(item: MemoryItem) -> dict[str, Any]:
    """The memory as its file holds it: frontmatter keys (as YAML gives them back) plus the text."""
    meta, body = split_frontmatter(encode_memory(item))
    return {**(meta or {}), CONTENT: body.strip()}


def merge(ours: MemoryItem, theirs: MemoryItem, base: MemoryItem | None) -> Merge:
    o, t = values_of(ours), values_of(theirs)
    b = values_of(base) if base is not None else None
    merged: dict[str, Any] = {}
    diffs: list[FieldDiff] = []
    for key in [*o, *(k for k in t if k not in o)]:
        ov, tv = o.get(key), t.get(key)
        bv = b.get(key) if b is not None else None
        if ov == tv:
            merged[key] = ov
            if b is not None and ov != bv and key not in MANAGED:
                diffs.append(FieldDiff(key, ov, tv, bv, "merged"))
            continue
        if key in MANAGED:
            taken = "later" if str(tv or "") > str(ov or "") else "ours"
            value = tv if taken == "later" else ov
            taken = "later"
        elif b is not None and ov == bv:
            taken, value = "theirs", tv
        elif b is not None and tv == bv:
            taken, value = "ours", ov
        else:
            taken, value = "conflict", ov
        diffs.append(FieldDiff(key, ov, tv, bv, taken))
        merged[key] = value
    return Merge(tuple(diffs), merged)
