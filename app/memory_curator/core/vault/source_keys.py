"""The source lines of each top-level key of a frontmatter block, so a rewrite can keep them as they were.

Loading and dumping YAML re-types and re-spells what it does not know: under YAML 1.1 rules ``NO`` comes back
as ``false``, ``012345`` as ``5349``, ``12:30`` as ``750``; comments are dropped and anchors renamed, and
tools that read YAML 1.2 (Obsidian) then read other values. A key whose value a rewrite does not change keeps
its lines instead, with the full-line comments above it; only changed and new keys are dumped.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

import yaml

from memory_curator.core.vault import yaml_handler

_COMMENT_OR_BLANK = re.compile(r"^(#.*)?[ \t]*\r?$")
_OTHER_BREAKS = re.compile("\r(?!\n)|[\x85\u2028\u2029]")


@dataclass(frozen=True)
class Layout:
    entries: tuple[tuple[str, str, str], ...]  # (key, the comment lines above it, its own lines) in file order
    footer: str  # comments and blank lines below the last value


def layout(fm: str) -> Layout | None:
    """The block cut at its top-level keys, or None when it cannot be (not a mapping, merge keys, broken)."""
    if _OTHER_BREAKS.search(fm):
        return None  # YAML counts lines at these too; the marks would not match the lines cut here
    try:
        root = yaml_handler.compose(fm)
    except (yaml.YAMLError, ValueError, RecursionError):
        return None
    if not isinstance(root, yaml.MappingNode) or not root.value:
        return None
    if any(not isinstance(k, yaml.ScalarNode) or k.tag == "tag:yaml.org,2002:merge" for k, _ in root.value):
        return None  # merged keys have no lines of their own
    lines = [f"{line.rstrip(chr(13))}\n" for line in fm.split("\n")[:-1]]  # line 0: the rest of the '---' line
    if root.value[0][0].start_mark.line < 1 or any(k.start_mark.column != 0 for k, _ in root.value):
        return None  # the block begins on the '---' line, or is indented: nothing this app or others write
    # Each key takes the comment and blank lines above it, down to the last line of the value before.
    leads, floor = [], 0
    for key_node, value_node in root.value:
        leads.append(_lead_start(lines, key_node.start_mark.line, floor))
        floor = _last_line(value_node)
    footer_from = _lead_start(lines, len(lines), floor)
    starts = [k.start_mark.line for k, _ in root.value]
    ends = [*leads[1:], footer_from]
    entries = tuple((k.value, "".join(lines[lead:start]), "".join(lines[start:end]))
                    for (k, _), lead, start, end in zip(root.value, leads, starts, ends, strict=True))
    return Layout(entries, "".join(lines[footer_from:]))


def splice(ours: Layout, theirs: Layout, keys: Collection[str]) -> str:
    """The entries of ``ours``, those of ``keys`` as ``theirs`` has them (with the comments above them; a key
    ``ours`` lacks goes after the key it follows in ``theirs``), then ``ours``'s footer."""
    taken = {key: lead + lines for key, lead, lines in theirs.entries if key in keys}
    out = [(key, taken.get(key, lead + lines)) for key, lead, lines in ours.entries]
    follows = None
    for key, _, _ in theirs.entries:
        if key in taken and all(key != k for k, _ in out):
            at = next((i + 1 for i, (k, _) in enumerate(out) if k == follows), len(out))
            out.insert(at, (key, taken[key]))
        follows = key
    return "".join(text for _, text in out) + ours.footer


def _last_line(node: yaml.Node) -> int:
    end = node.end_mark
    return end.line if end.column > 0 else end.line - 1


def _lead_start(lines: list[str], start: int, floor: int) -> int:
    """The first of the comment or blank lines right above ``start`` that lie below line ``floor``."""
    i = start
    while i - 1 > floor and _COMMENT_OR_BLANK.match(lines[i - 1]) and not lines[i - 1].startswith((" ", "\t")):
        i -= 1
    return i
