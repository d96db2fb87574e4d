"""Light Finnish stemming for queries, so an inflected query word meets the other forms of its word.

Finnish inflects by suffixes (muisti, muistin, muistit, muisteja, muisteissa), so the stem of a query word
is a prefix of every form in the index: ``muisteja`` -> ``muist`` matches ``muisti*``. The stems are only
used for a prefix search of the full-text index, never stored, so over-stemming costs a little precision and
nothing else. Consonant gradation (haku/haun) is not undone.
"""

from __future__ import annotations

MIN_STEM = 4
_VOWELS = "aeiouyäö"
# Longest first within each group; a word loses at most one suffix per group.
_CLITICS = ("kaan", "kään", "kin", "han", "hän", "pa", "pä", "ko", "kö")
_POSSESSIVES = ("mme", "nne", "nsa", "nsä", "ni", "si")
_CASES = (
    "iden", "itten", "ineen", "seen", "siin", "ssa", "ssä", "sta", "stä", "lla", "llä", "lta", "ltä", "lle",
    "ksi", "tta", "ttä", "hin", "han", "hen", "hon", "hun", "hyn", "hän", "hön", "ien", "jen", "ine",
    "na", "nä", "en", "in", "ta", "tä", "a", "ä", "n", "t",
)  # fmt: skip


def _strip(word: str, endings: tuple[str, ...]) -> str:
    for end in endings:
        if word.endswith(end) and len(word) - len(end) >= MIN_STEM:
            return word[: -len(end)]
    return word


def stem(word: str) -> str:
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
