"""Finnish stems, so an inflected query word meets the other forms of its word.

Finnish inflects by suffixes, often with consonant gradation (muisti, muistin, muisteja; tietokanta,
tietokannan). Two stems are used, in this order, as fallbacks after the words as typed:

- Snowball's Finnish stemmer (PyStemmer), in the index and the query alike: the full-text index keeps each
  memory's Snowball stems in a column of their own (``index_stems``), and a query's stems are matched there
  exactly. Precise, and it undoes some gradation (tietokantaan / tietokannan).
- ``prefix_stem``, a light suffix stripper whose stem is searched as a prefix. Snowball keeps suffixes that
  carry the stem of -s nouns and plural partitives (kynnys / kynnyks, muisti / muistej), so alone it finds
  fewer of a word's forms: on the 42 words (218 forms) of ``bench/eval_finnish_stems.py`` Snowball's equal
  stems reach recall 0.62, this prefix 0.77, both 0.79. It is never stored, so over-stemming costs a little
  precision in the last round and nothing else.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

import Stemmer

MIN_STEM = 4
MIN_SNOWBALL_STEM = 3  # matched whole, never as a prefix: ajan / ajat -> aja
_VOWELS = "aeiouyäö"
# Longest first within each group; a word loses at most one suffix per group.
_CLITICS = ("kaan", "kään", "kin", "han", "hän", "pa", "pä", "ko", "kö")
_POSSESSIVES = ("mme", "nne", "nsa", "nsä", "ni", "si")
_CASES = (
    "iden", "itten", "ineen", "seen", "siin", "ssa", "ssä", "sta", "stä", "lla", "llä", "lta", "ltä", "lle",
    "ksi", "tta", "ttä", "hin", "han", "hen", "hon", "hun", "hyn", "hän", "hön", "ien", "jen", "ine",
    "na", "nä", "en", "in", "ta", "tä", "a", "ä", "n", "t",
)  # fmt: skip

# A PyStemmer object must not be shared between threads (the engine has a writer and a reader thread).
_local = threading.local()
# Words repeat across memories (Zipf): a rebuild stems each distinct word once. Bounded by clearing.
_cache: dict[str, str] = {}
_CACHE_MAX = 200_000


def _stemmer() -> Stemmer.Stemmer:
    st = getattr(_local, "stemmer", None)
    if st is None:
        st = _local.stemmer = Stemmer.Stemmer("finnish")
    return st


def _stemmed(words: Iterable[str]) -> set[str]:
    """The distinct words, each of them in the cache with its Snowball stem."""
    distinct = set(words)
    new = list(distinct.difference(_cache))  # looked up in C: a rebuild asks for a few dozen words per file
    if new:
        if len(_cache) > _CACHE_MAX:
            _cache.clear()
        _cache.update(zip(new, _stemmer().stemWords(new), strict=True))
    return distinct


def snowball_stems(words: Iterable[str]) -> dict[str, str]:
    """Each distinct word of ``words`` (lower-case letters, no CJK: the caller's part) with its Snowball stem."""
    distinct = _stemmed(words)
    return dict(zip(distinct, map(_cache.__getitem__, distinct), strict=True))


def index_stems(words: Iterable[str]) -> str:
    """The full-text index's stem column: the distinct Snowball stems of ``words`` that are not among the words
    themselves (those are in the text columns already), space-separated in a stable order (a rebuild's helper
    process must make the same row as this one)."""
    distinct = set(words)
    stems = set(map(_cache.get, distinct))  # one look-up per word when all are known (a rebuild: nearly always)
    if None in stems:
        _stemmed(distinct)
        stems = set(map(_cache.__getitem__, distinct))
    stems -= distinct
    return " ".join(sorted(stems))


def prefix_stem(word: str) -> str:
    """A prefix shared by the inflected forms of ``word`` (lower case); short words come back unchanged."""
    w = word.lower()
    if len(w) <= MIN_STEM or not w.isalpha():
        return w
    w = _strip(_strip(_strip(w, _CLITICS), _POSSESSIVES), _CASES)
    if w.endswith("ks") and len(w) - 2 >= MIN_STEM:  # päätöks-en, tallennuks-en: the base ends in -s
        w = w[:-2]
    elif w[-2:] in ("us", "ys", "os", "ös") and len(w) - 2 >= MIN_STEM:  # tallennus, kynnys: the -s nouns
        w = w[:-2]
    if w[-1] in "ij" and len(w) - 1 >= MIN_STEM:  # plural marker: muiste-j-a, muiste-i-ssa
        w = w[:-1]
    if w[-1] in _VOWELS and len(w) - 1 >= MIN_STEM:  # stem vowel: muisti / muiste-
        w = w[:-1]
    if w[-1] == w[-2] and w[-1] not in _VOWELS and len(w) - 1 >= MIN_STEM:  # gradation: dokumentt-eja / dokumentit
        w = w[:-1]
    return w


def _strip(word: str, endings: tuple[str, ...]) -> str:
    for end in endings:
        if word.endswith(end) and len(word) - len(end) >= MIN_STEM:
            return word[: -len(end)]
    return word
