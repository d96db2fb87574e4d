"""Labels with a confidence for each memory before it is stored (seed 002's Classify).

The label set is the vault's own (``labels`` in ``.memory-curator/vault.json``: a label and example phrases
of it), edited in Settings; seed 002's ``event``, ``npc_relationship``, ``location`` and ``favor_owed`` are
the default. The result goes into the memory's frontmatter:

    labels:
      event: 0.86
      favor_owed: 0.63
    labels_by: auto        # "user" once a person set them: kept, never replaced by a later run

The default works offline and without an embedder: a label's confidence grows with the number of its example
words (stemmed, so ``owes`` meets ``owe``) the memory holds, ``1 - exp(-hits / 2)``; a label is given at
``MIN_CONFIDENCE`` or more, at most ``MAX_LABELS`` of them.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from memory_curator.core.model import MemoryItem
from memory_curator.core.text.tokens import query_terms

SETTING = "labels"
DEFAULT_LABELS: dict[str, list[str]] = {
    "event": ["the party saved someone", "a battle happened", "we met and celebrated", "attacked", "rescued",
              "arrived", "happened", "meeting", "fought", "escaped", "collapsed"],
    "npc_relationship": ["friend", "ally", "enemy", "trusts", "likes", "hates", "rival", "relationship",
                         "loyal", "betrayed", "grateful", "old wizard", "companion"],
    "location": ["tower", "tavern", "city", "village", "castle", "forest", "lives in", "map", "road", "room",
                 "mountain", "cave", "harbour", "temple"],
    "favor_owed": ["owes us a favor", "debt", "promised to repay", "owe", "in return", "obligation",
                   "favour", "reward", "pay back"],
}
MIN_CONFIDENCE = 0.35
MAX_LABELS = 4
LABEL_NAME = re.compile(r"^[a-z0-9][a-z0-9_\-]{0,39}$")
BY_USER, BY_AUTO = "user", "auto"


@functools.lru_cache(maxsize=1 << 16)  # every saved memory is labelled: its words recur across memories
def _stem(word: str) -> str:
    """A crude English/Finnish suffix strip: enough for example words to meet their inflections."""
    for suffix in ("ing", "ed", "es", "s", "ssa", "ssä", "sta", "stä", "lla", "llä", "n"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _words(text: str) -> set[str]:
    return {_stem(w) for w in set(query_terms(text)) if len(w) > 1}


def validate_labels(labels: Mapping[str, Any]) -> dict[str, list[str]]:
    """A label set as Settings saves it: names of lower-case letters, digits, ``_`` and ``-``."""
    out: dict[str, list[str]] = {}
    for name, examples in labels.items():
        name = str(name).strip()
        if not LABEL_NAME.match(name):
            raise ValueError(f"label {name!r}: use lower-case letters, digits, '_' or '-' (up to 40)")
        ex = [examples] if isinstance(examples, str) else list(examples or [])
        out[name] = [str(e).strip() for e in ex if str(e).strip()]
    return out


class Classifier:
    def __init__(self, labels: Mapping[str, Sequence[str]]):
        self.labels = dict(labels)
        self._words = {name: set().union(*(_words(e) for e in ex)) if ex else _words(name.replace("_", " "))
                       for name, ex in self.labels.items()}

    def classify(self, text: str) -> dict[str, float]:
        """Label -> confidence (0..1, two decimals) of the labels this text gets, most confident first."""
        have = _words(text)
        scored = {}
        for name, words in self._words.items():
            hits = len(words & have)
            conf = 1.0 - math.exp(-hits / 2.0)
            if conf >= MIN_CONFIDENCE:
                scored[name] = round(conf, 2)
        best = sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_LABELS]
        return dict(best)

    def label(self, item: MemoryItem) -> MemoryItem:
        """The item with labels in its frontmatter, unless a person set them (those are kept)."""
        if item.extra.get("labels_by") == BY_USER:
            return item
        labels = self.classify(f"{item.title}\n{item.content}")
        extra = {k: v for k, v in item.extra.items() if k not in ("labels", "labels_by")}
        if labels:
            extra.update(labels=labels, labels_by=BY_AUTO)
        return replace(item, extra=extra)


def user_labels(item: MemoryItem, labels: Mapping[str, float]) -> MemoryItem:
    """The item with labels set by a person (confidence 1.0 unless given): kept by every later run."""
    clean = {}
    for name, conf in labels.items():
        if not LABEL_NAME.match(str(name)):
            raise ValueError(f"label {name!r}: use lower-case letters, digits, '_' or '-' (up to 40)")
        c = float(conf)
        if not 0.0 <= c <= 1.0:
            raise ValueError(f"confidence of {name} must be between 0 and 1")
        clean[str(name)] = round(c, 2)
    extra = {k: v for k, v in item.extra.items() if k not in ("labels", "labels_by")}
    extra.update(labels=clean, labels_by=BY_USER)
    return replace(item, extra=extra)


def labels_of(item: MemoryItem) -> dict[str, float]:
    raw = item.extra.get("labels")
    if not isinstance(raw, dict):
        return {}
    out = {}
    for k, v in raw.items():
        try:
            out[str(k)] = float(v)
        except (TypeError, ValueError):
            continue
    return out
