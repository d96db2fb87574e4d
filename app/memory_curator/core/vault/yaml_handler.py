"""The vault's frontmatter handler for python-frontmatter: splitting, loading and dumping the YAML header.

python-frontmatter's ``YAMLHandler`` with four changes, each for a file someone else wrote:

- its limits first (``yaml_bounds``): no YAML loader sees a block that is too large, too deep, or that expands
  past its limits through aliases or merge keys;
- libyaml's C loader and dumper (about ten times PyYAML's pure-Python ones), through a loader that reads every
  mapping key as its text (``2020-01-01: x`` is the key "2020-01-01", not a date the index cannot store) and
  reads a timestamp or integer it cannot represent (``2025-13-45``, 5,000 digits) as text instead of failing;
- ``plain_yaml``, a faster reader for the plain header this app writes, tried first;
- errors as ``FrontmatterError``, one reason per broken file for Vault health.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

from memory_curator.core.vault import plain_yaml, yaml_bounds

try:  # libyaml: rebuilding 100k files depends on it
    from yaml import CSafeDumper as _Dumper
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - pure-python fallback
    from yaml import SafeDumper as _Dumper  # type: ignore[assignment]
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]


class FrontmatterError(ValueError):
    pass


class _Loader(_BaseLoader):  # type: ignore[misc,valid-type]
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[str, Any]:
        self.flatten_mapping(node)
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(None, None, "a key is a list or a mapping",
                                                        key_node.start_mark)
            out[key_node.value] = self.construct_object(value_node, deep=deep)
        return out

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        # Merge keys copy the merged pairs: '<<: [*a, *a]' at each of 30 levels is 2^30 of them.
        super().flatten_mapping(node)
        if len(node.value) > yaml_bounds.MAX_NODES:
            raise yaml.constructor.ConstructorError(None, None, "merge keys expand past the limit", node.start_mark)


def _text_on_failure(constructor):
    """A scalar YAML would resolve to a value Python or the index cannot hold is kept as its text."""

    def construct(loader: _Loader, node: yaml.ScalarNode) -> Any:
        try:
            value = constructor(loader, node)
        except (ValueError, OverflowError):
            return node.value
        # Integers past 64 bits: SQLite's JSON cannot hold them, and past 4,300 digits Python cannot print them.
        return node.value if isinstance(value, int) and value.bit_length() > 63 else value

    return construct


_Loader.add_constructor("tag:yaml.org,2002:timestamp",
                        _text_on_failure(yaml.constructor.SafeConstructor.construct_yaml_timestamp))
_Loader.add_constructor("tag:yaml.org,2002:int", _text_on_failure(yaml.constructor.SafeConstructor.construct_yaml_int))


class VaultYAMLHandler(YAMLHandler):
    # Exactly three dashes, as the vault format says (python-frontmatter's default takes any number).
    FM_BOUNDARY = re.compile(r"^---[ \t]*\r?$", re.M)

    def detect(self, text: str) -> bool:
        return text.startswith("---") and super().detect(text)

    def split(self, text: str) -> tuple[str, str]:
        """(block, body) of a text ``detect`` accepted: python-frontmatter's ``FM_BOUNDARY.split(text, 2)``, with the
        closing line looked for at each line that starts with '---' instead of the pattern tried at every
        character on the way (a tenth of decoding a file)."""
        opening = self.FM_BOUNDARY.match(text)
        if opening is None:  # not after detect: as python-frontmatter splits it
            try:
                return super().split(text)
            except ValueError:
                raise FrontmatterError("frontmatter starts with '---' but is never closed") from None
        at = text.find("\n---", opening.end())
        while at != -1:
            closing = self.FM_BOUNDARY.match(text, at + 1)
            if closing is not None:
                return text[opening.end() : at + 1], text[closing.end() :]
            at = text.find("\n---", at + 1)
        raise FrontmatterError("frontmatter starts with '---' but is never closed")

    def load(self, fm: str, max_bytes: int = yaml_bounds.MAX_BYTES, **kwargs: object) -> dict[str, Any]:
        """``max_bytes``: a larger bound for the vault's other YAML (``entities.yaml``)."""
        if not fm.strip():
            return {}
        try:
            yaml_bounds.check_size(fm, max_bytes)
            # The plain subset is read without recursion and nests two levels at most (a key's list): only
            # the YAML loader needs the depth checked first (a tenth of reading a file, were it checked here).
            fast = plain_yaml.load(fm)
            if fast is not None:
                return fast
            yaml_bounds.check_depth(fm)
        except yaml_bounds.TooComplex as exc:
            raise FrontmatterError(str(exc)) from None
        try:
            meta = super().load(fm, Loader=_Loader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 1})" if mark is not None else ""
            problem = getattr(exc, "problem", None)
            raise FrontmatterError(f"frontmatter is not valid YAML{where}" + (f": {problem}" if problem else "")) from None
        except RecursionError:  # the pure-Python loader, where libyaml is missing
            raise FrontmatterError(f"frontmatter is nested more than {yaml_bounds.MAX_DEPTH} levels deep") from None
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
            # PyYAML's constructors on a tag with a value they cannot build: '!!bool maybe' (KeyError),
            # '!!float x' (ValueError), '!!timestamp x' (AttributeError), '!!map [a]' (TypeError)
            raise FrontmatterError(f"frontmatter holds a value its tag cannot be: {str(exc)[:120]}") from None
        if meta is None:  # only comments: nothing set
            return {}
        if not isinstance(meta, dict):
            raise FrontmatterError("frontmatter is not a mapping of keys to values")
        if "*" in fm:  # aliases are shared when loaded; whatever walks the value expands them
            try:
                yaml_bounds.check_value(meta)
            except yaml_bounds.TooComplex as exc:
                raise FrontmatterError(str(exc)) from None
        return meta

    def export(self, metadata: dict[str, object], **kwargs: object) -> str:
        """The block's text, without the '---' lines, ending in a newline."""
        kwargs = {"Dumper": _Dumper, "sort_keys": False, "width": 1000, **kwargs}
        return super().export(metadata, **kwargs) + "\n" if metadata else ""


HANDLER = VaultYAMLHandler()


def compose(fm: str) -> yaml.Node | None:
    """The node tree of a block that ``HANDLER.load`` accepted (its limits are checked again here)."""
    yaml_bounds.check_text(fm)
    return yaml.compose(fm, Loader=_Loader)
