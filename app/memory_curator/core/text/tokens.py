"""Tokens for the full-text index and for queries.

The FTS5 table uses SQLite's ``unicode61`` tokenizer, which splits on spaces and punctuation. Japanese has
no spaces, so CJK runs are segmented with SudachiPy before they reach the index, and queries go through the
same function: the index and the query always agree on what a word is.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

from memory_curator.core.text import finnish, japanese

# Hiragana, katakana, CJK ideographs, halfwidth katakana, CJK punctuation.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+")
_WORD = re.compile(r"\w+", re.UNICODE)
# Queries are natural language: these words carry no topic and, OR-ed together, would match everything.
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having
    he her here hers herself him himself his how i if in into is it its itself just me more most my myself no
    nor not now of off on once only or other our ours ourselves out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours yourself yourselves
    did does ever much many also get got""".split()
)


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


def cjk_share(text: str) -> float:
    """Share of word characters that are CJK: how much of ``text`` an English-only embedder cannot read."""
    letters = sum(len(w) for w in _WORD.findall(text))
    if not letters:
        return 0.0
    return sum(len(r) for r in _CJK.findall(text)) / letters


def index_text(text: str) -> str:
    """Text as the FTS5 index stores it: CJK runs split into space-separated words."""
    if not has_cjk(text):
        return text
    return _CJK.sub(lambda m: " " + " ".join(japanese.words(m.group(0))) + " ", text)


def words(text: str) -> list[str]:
    """Lower-case, NFKC-normalised words of ``text`` (Japanese segmented)."""
    text = unicodedata.normalize("NFKC", index_text(text)).lower()
    return _WORD.findall(text)


def query_terms(query: str) -> list[str]:
    """Distinct content words of a query, in order. Falls back to all words if every word is a stop word."""
    all_words = words(query)
    stop = STOPWORDS
    if has_cjk(query):  # Japanese particles and auxiliaries (の, を, ます...): Sudachi tells them apart
        stop = STOPWORDS | {unicodedata.normalize("NFKC", w).lower() for w in japanese.function_words(query)}
    seen: dict[str, None] = {}
    for w in all_words:
        if w not in stop:
            seen.setdefault(w, None)
    if not seen:
        for w in all_words:
            seen.setdefault(w, None)
    return list(seen)


def phrase(term: str) -> str:
    """``term`` as an FTS5 string: searched as text, never parsed as query syntax."""
    return '"' + term.replace('"', '""') + '"'


PREFIX_MIN = 4  # shorter words as prefixes would match half the vocabulary


def can_prefix(term: str) -> bool:
    return len(term) >= PREFIX_MIN and not has_cjk(term)


def fts_match(terms: list[str], prefixes: Collection[str] = ()) -> str | None:
    """An FTS5 MATCH expression that ORs the terms; those in ``prefixes`` also match longer words. Every term
    is quoted, so user input such as ``AND``, ``NEAR(``, ``"`` or ``*`` is always searched as text and never
    parsed as syntax."""
    parts = [phrase(t) + ("*" if t in prefixes and can_prefix(t) else "") for t in terms]
    return " OR ".join(parts) if parts else None


def stem_match(terms: list[str]) -> str | None:
    """Prefix matches on the Finnish stems of the terms that have one shorter than themselves (``muistin``
    -> ``muist*`` finds ``muisti``, ``muistit``). None when no term has such a stem (most English queries)."""
    stems = {finnish.stem(t) for t in terms if not has_cjk(t)}
    stems = [st for st in stems if len(st) >= finnish.MIN_STEM and st not in terms]
    return " OR ".join(phrase(st) + "*" for st in sorted(stems)) or None
