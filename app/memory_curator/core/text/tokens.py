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
_LETTERS = re.compile(r"[^\W\d_]+")  # words without digits or underscores: what a stemmer can read
# _LETTERS on ASCII text as a byte table: letters kept, every other byte a space to split at.
_ASCII_LETTERS = bytes(b if chr(b).isalpha() else 32 for b in range(128)) + b" " * 128
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
    return not text.isascii() and _CJK.search(text) is not None  # isascii is a C scan, several times the pattern's speed


def cjk_share(text: str) -> float:
    """Share of word characters that are CJK: how much of ``text`` an English-only embedder cannot read."""
    letters = sum(len(w) for w in _WORD.findall(text))
    if not letters:
        return 0.0
    return sum(len(r) for r in _CJK.findall(text)) / letters


EMBEDDED_CHARS = 2000  # how much of the embedded text (MemoryItem.embedded_source) ``unreadable`` reads


def unreadable(text: str) -> float:
    """How far an English-only model's vector of ``text`` is noise, 0..1: 0 while at most half of its word
    characters are CJK (the model reads the rest), rising to 1 for text all in CJK. Measured on manpages-ja
    with English queries (bench/eval_ja_manpages.py), this beat both full trust and doubling. Kept with each
    memory's row (core/index/rows.py), read by hybrid search (search.unreadable_shares)."""
    if not has_cjk(text):  # most text: one C scan
        return 0.0
    return max(0.0, 2 * cjk_share(text) - 1.0)


def index_text(text: str) -> str:
    """Text as the FTS5 index stores it: CJK runs split into space-separated words."""
    if not has_cjk(text):
        return text
    return _CJK.sub(lambda m: " " + " ".join(japanese.words(m.group(0))) + " ", text)


def fts_row(title: str, content: str, keywords: str) -> tuple[str, str, str, str]:
    """The full-text index's columns for one memory: its text (Japanese segmented) and, in ``stems``, the
    Finnish (Snowball) stems of its words, which only the stem round of a search reads."""
    texts = (index_text(title), index_text(content), index_text(keywords))
    joined = unicodedata.normalize("NFKC", " ".join(texts)).lower()
    letters = letter_words(joined)
    if has_cjk(joined):
        letters = [w for w in letters if not has_cjk(w)]
    return (*texts, finnish.index_stems(letters))


def letter_words(text: str) -> list[str]:
    """The runs of letters in ``text`` (no digits, no underscores), in order. ASCII text is split through a byte
    table, a third of the pattern's time (the pattern was a fifth of reading a file in a rebuild)."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_LETTERS).decode("ascii").split()
    return _LETTERS.findall(text)


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


# The columns a query's words are matched in; ``stems`` is read only by the stem round.
TEXT_COLUMNS = "{title content keywords}"


def fts_match(terms: list[str], prefixes: Collection[str] = ()) -> str | None:
    """An FTS5 MATCH expression that ORs the terms over the text columns; those in ``prefixes`` also match
    longer words. Every term is quoted, so user input such as ``AND``, ``NEAR(``, ``"`` or ``*`` is always
    searched as text and never parsed as syntax."""
    parts = [phrase(t) + ("*" if t in prefixes and can_prefix(t) else "") for t in terms]
    return f"{TEXT_COLUMNS} : ({' OR '.join(parts)})" if parts else None


def stem_matches(terms: list[str]) -> list[str]:
    """The stem rounds of a search, precise first: the terms' Snowball stems matched as the index stores
    them (``tietokantaan`` meets ``tietokannan``), then prefix stems (``muisteja`` -> ``muist*`` meets
    ``muisti``). Terms without a stem other than themselves add nothing (most English queries)."""
    plain = [t for t in terms if not has_cjk(t)]
    out = []
    snow = {s for t, s in finnish.snowball_stems(plain).items() if s != t and len(s) >= finnish.MIN_SNOWBALL_STEM}
    if snow:
        out.append(" OR ".join(phrase(s) for s in sorted(snow)))
    prefixes = {finnish.prefix_stem(t) for t in plain}
    prefixes = {p for p in prefixes if len(p) >= finnish.MIN_STEM and p not in terms}
    if prefixes:
        out.append(f"{TEXT_COLUMNS} : ({' OR '.join(phrase(p) + '*' for p in sorted(prefixes))})")
    return out
