"""Limits a frontmatter block must keep before a YAML loader builds anything from it.

Every vault file may come from someone else (a ``git pull``). PyYAML's loaders build nested values by
recursion: 100,000 ``[`` in a 200 KB file overflowed libyaml's C stack and killed the process (SIGSEGV, which
no ``except`` can catch), and a 3,000-level block mapping overflowed Python's. Aliases are shared references
when loaded, but anything that walks the value (the index's JSON, the dumper) expands them: nine levels of
ten aliases ("billion laughs") is 10^9 nodes. So, in order:

1. ``check_text``: size, and nesting depth, on the text. A cheap count that can only over-estimate (every
   flow level needs a ``[`` or ``{``; every block level more indentation or a ``- ``/``? ``/``: `` on its line)
   settles nearly every file. A file over the cheap bound (code in a block scalar, many wiki links) gets an
   exact count from YAML's token scanner, which stops at the first token past the limit. The scanner is a
   loop with its stacks on the heap (100,000 levels scan without harm); the recursion that crashed is in the
   loader's composer, which runs only after this check.
2. ``check_value``: after loading a block that can hold aliases, the size and depth of the value as a walker
   would see it, counted once per shared node (no expansion), without recursion.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

try:
    from yaml import CSafeLoader as _Scanner
except ImportError:  # pragma: no cover - pure-python fallback
    from yaml import SafeLoader as _Scanner  # type: ignore[assignment]

MAX_BYTES = 256 * 1024  # frontmatter this app writes is under 2 KB; a summary of a long document under 20 KB
MAX_DEPTH = 64  # levels of nesting; the deepest this app writes is 2 (provenance)
MAX_NODES = 100_000  # values after expanding aliases

_OPENERS = re.compile(r"[\[{]")
_INDENT = re.compile(r"^[ \t]*", re.M)
_COMPACT = re.compile(r"(?:^|[ \t])[-?:](?=[ \t]|$)", re.M)  # '- ', '? ', ': ' each may open a block level
_FLOW_IN = (yaml.FlowSequenceStartToken, yaml.FlowMappingStartToken)
_FLOW_OUT = (yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken)
_BLOCK_IN = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken)


class TooComplex(ValueError):
    """The block is over a limit; ``str()`` says which, in words fit for Vault health."""


def check_text(block: str, max_bytes: int = MAX_BYTES) -> None:
    check_size(block, max_bytes)
    check_depth(block)


def check_size(block: str, max_bytes: int = MAX_BYTES) -> None:
    # A character is at most 4 bytes in UTF-8: most blocks need no encoding to be measured.
    if len(block) > max_bytes or (len(block) * 4 > max_bytes and len(block.encode("utf-8", "surrogatepass")) > max_bytes):
        raise TooComplex(f"frontmatter is larger than {max_bytes // 1024} KB")


def check_depth(block: str) -> None:
    if _cheap_depth_bound(block) <= MAX_DEPTH:
        return
    if _scanned_depth(block) > MAX_DEPTH:
        raise TooComplex(f"frontmatter is nested more than {MAX_DEPTH} levels deep")


def _cheap_depth_bound(block: str) -> int:
    flow = len(_OPENERS.findall(block))
    if flow > MAX_DEPTH:
        return flow
    indent = max((len(m) for m in _INDENT.findall(block)), default=0)
    compact = max((len(_COMPACT.findall(line)) for line in block.splitlines()), default=0)
    # A nested block node starts right of its parent, except a sequence under a mapping key ("a:\n- b"):
    # at most two levels per column of indentation, plus the compact ones a line opens.
    return flow + 2 * (indent + 1) + compact


def _scanned_depth(block: str) -> int:
    """The deepest nesting, counted from tokens; stops as soon as it passes MAX_DEPTH. A block the scanner
    refuses counts as shallow: the loader will refuse it too, with the scanner's own message."""
    flow = block_level = deepest = 0
    try:
        for token in yaml.scan(block, Loader=_Scanner):
            if isinstance(token, _FLOW_IN):
                flow += 1
            elif isinstance(token, _FLOW_OUT):
                flow -= 1
            elif isinstance(token, _BLOCK_IN):
                block_level += 1
            elif isinstance(token, yaml.BlockEndToken):
                block_level -= 1
            # + 1: a sequence under a mapping key ("a:\n- b") opens a level without a token of its own
            deepest = max(deepest, flow + block_level + 1)
            if deepest > MAX_DEPTH:
                return deepest
    except yaml.YAMLError as exc:
        # PyYAML 6.0.4's scanner stops at its own depth limit (1,000 levels): deeper than ours, whatever it counted.
        return MAX_DEPTH + 1 if "nesting depth" in str(exc) else 0
    return deepest


def check_value(value: Any) -> None:
    """Size and depth of ``value`` with every alias expanded, computed once per distinct node."""
    sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (nodes, depth) once finished
    on_path: set[int] = set()
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if not isinstance(node, (dict, list)):
            continue
        if children_done:
            on_path.discard(key)
            kids = list(node.values()) if isinstance(node, dict) else node
            nodes = 1 + sum(sizes[id(k)][0] if isinstance(k, (dict, list)) else 1 for k in kids)
            depth = 1 + max((sizes[id(k)][1] for k in kids if isinstance(k, (dict, list))), default=0)
            if nodes > MAX_NODES:
                raise TooComplex(f"frontmatter expands to more than {MAX_NODES:,} values (aliases)")
            if depth > MAX_DEPTH:
                raise TooComplex(f"frontmatter is nested more than {MAX_DEPTH} levels deep (aliases)")
            sizes[key] = (nodes, depth)
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise TooComplex("frontmatter holds a value that contains itself (a recursive alias)")
        on_path.add(key)
        stack.append((node, True))
        for kid in node.values() if isinstance(node, dict) else node:
            if isinstance(kid, (dict, list)) and id(kid) not in sizes:
                stack.append((kid, False))
