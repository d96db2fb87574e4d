"""A fast reader for the plain frontmatter this app writes; anything else goes to the full YAML parser.

PyYAML builds its Python objects in Python even with libyaml, and that was a third of the time of rebuilding
the index from 100,000 files. Our own files use a small subset: ``key: scalar`` lines and ``- item`` lists of
scalars. This reader accepts exactly that subset and returns None for anything it is not sure about
(comments, nesting, multi-line or escaped strings, scalars YAML would resolve to dates, octal or base-60
numbers: PyYAML's own resolver patterns decide), so the result is always what ``yaml.safe_load`` would return.
"""

from __future__ import annotations

import re
from typing import Any

from yaml.resolver import Resolver

_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]{0,17})$")  # longer: the full loader decides (it keeps huge ones as text)
_FLOAT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\.[0-9]+$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False,
         "yes": True, "Yes": True, "YES": True, "no": False, "No": False, "NO": False,
         "on": True, "On": True, "ON": True, "off": False, "Off": False, "OFF": False}  # fmt: skip
_NULL = {"null", "Null", "NULL", "~"}
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@` ")
# PyYAML's implicit resolvers by first character, each group as one pattern (tried in one call per scalar).
_RESOLVERS = {
    first: re.compile("|".join(f"(?:{rx.pattern})" for _, rx in pairs), re.X)
    for first, pairs in Resolver.yaml_implicit_resolvers.items()
}
# (re.X leaves the others unchanged: they hold no white space and no '#')
assert all(rx.flags & re.X or not re.search(r"[\s#]", rx.pattern)
           for pairs in Resolver.yaml_implicit_resolvers.values() for _, rx in pairs)
# Scalars repeat across a vault's files (sources, categories, keywords, salience): each is worked out once.
_known: dict[str, Any] = {}
_KNOWN_MAX = 50_000
# What YAML refuses (non-printable) or reads as a line break: leave those files to the real parser.
_ODD = re.compile("[^\x09\x0A\x0D\x20-\x7E\xA0-\u2027\u202A-\uD7FF\uE000-\uFEFE\uFF00-\uFFFD\U00010000-\U0010FFFF]")


class _Unsure(Exception):
    pass


def _scalar(raw: str) -> Any:
    try:
        return _known[raw]
    except KeyError:
        pass
    value = _read_scalar(raw)
    if len(_known) >= _KNOWN_MAX:
        _known.clear()
    _known[raw] = value
    return value


def _read_scalar(raw: str) -> Any:
    text = raw.strip()
    if not text:
        return None
    first = text[0]
    if first == "'":
        if len(text) < 2 or text[-1] != "'" or "'" in text[1:-1].replace("''", ""):
            raise _Unsure
        return text[1:-1].replace("''", "'")
    if first == '"':
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != '"' or '"' in inner or "\\" in inner:
            raise _Unsure
        return inner
    if text in _NULL:
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    # A plain string, unless it starts with an indicator, holds what ends or comments a scalar, or is
    # something YAML would resolve to another type (PyYAML's own table of patterns decides).
    if first in _INDICATORS or ": " in text or " #" in text or text.endswith(":") or "\t" in text:
        raise _Unsure
    resolver = _RESOLVERS.get(first)
    if raw != raw.strip() or (resolver is not None and resolver.match(text)):
        raise _Unsure
    return text


def load(block: str) -> dict[str, Any] | None:
    """The mapping in ``block``, or None if it uses anything beyond the plain subset."""
    if _ODD.search(block):
        return None
    out: dict[str, Any] = {}
    lines = block.split("\n")
    if "\r" in block:
        lines = [line.rstrip("\r") for line in lines]
    n = len(lines)
    i = 0
    try:
        while i < n:
            line = lines[i]
            i += 1
            if not line:
                continue
            # ``_KEY`` without the pattern (a tenth of reading a file): an ASCII identifier, ':', then the end of
            # the line or a space and the value.
            key, colon, rest = line.partition(":")
            if not colon or not (key.isascii() and key.isidentifier()) or (rest and rest[0] != " "):
                return None
            if key in out or key in _BOOL or key in _NULL:
                return None
            if rest == "" or rest == " ":
                items = []
                while i < n and lines[i].startswith("- "):
                    items.append(_scalar(lines[i][2:]))
                    i += 1
                out[key] = items if items else None
            elif rest == " []":
                out[key] = []
            elif rest == " {}":
                out[key] = {}
            else:
                out[key] = _scalar(rest[1:])
    except _Unsure:
        return None
    return out
