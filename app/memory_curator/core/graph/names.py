"""Names in running text: the proper nouns a memory is about.

Japanese: SudachiPy tags proper nouns (固有名詞: people, places, organisations) in its dictionary; a run of
them is one name (``東京`` ``タワー``).

English and Finnish: no maintained NER model can be installed from PyPI with its weights inside the package
(spaCy's pipelines, Stanza, Flair and NLTK's chunker all download their models at run time, which this app
never does), so a documented heuristic finds names by capitalisation:

- a run of capitalised words (``Ada Lovelace``, ``Bank of England``: ``of``/``the``/``de``/``van``/``von``
  may join two of them) is a name, and so is a word in CamelCase or capitals (``SQLite``, ``NASA``);
- a capitalised word that starts a sentence (or a list item) counts unless it is one of the common sentence
  starters below (pronouns, articles, conjunctions, days...) or a label followed by a colon (``Decision:``);
  in a run, such a starter is dropped (``The Beatles`` -> ``Beatles``). Requiring the word to appear
  capitalised elsewhere too raised precision on the labelled set (English 0.96) but cost a fifth of the
  recall (0.81 against 1.00), and most short memories name their subject first;
- words written in lower case elsewhere in the same text are not names (``Tomorrow`` vs ``tomorrow``);
- headings, code and links are skipped (Title Case headings would all be names).

Finnish names are inflected (``Helsingissä``): the name is kept as written; merging forms is one of the
corrections a user can make (aliases). Precision and recall on the hand-labelled set in
``tests/core/data/names_labelled.json`` are in the test that measures them.
"""

from __future__ import annotations

import re

from memory_curator.core.text import japanese
from memory_curator.core.text.tokens import has_cjk

_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
# A link's inside stops at the next bracket or line: "[[" or "](" repeated without a close was quadratic.
_LINK = re.compile(r"https?://\S+|\[\[[^\[\]\n]*\]\]|\]\([^()\n]*\)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s.*$", re.M)
_LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
_WORD = re.compile(f"[{_LATIN}][{_LATIN}0-9'’\\-]*")
_TITLES = ("Dr.", "Mr.", "Mrs.", "Ms.", "Prof.", "St.", "Mt.")
_SENTENCE_END = re.compile(r"[.!?:;。！？]\s*$|^\s*$|^\s*(?:[-*+>]|\d+[.)])\s*$")
_UPPER = re.compile(r"[^\W\d_a-z]")  # a letter that is not a-z: upper case, accented, or of another script
_NOT_BULLET = re.compile(r"[^ \t\-*+>0-9.)]")
_POSSESSIVE = re.compile("['’]s$")
_JOINERS = frozenset({"of", "the", "de", "van", "von", "der", "da", "del", "la", "le", "du", "bin", "al"})

# Words that start sentences in English and Finnish but are not names (closed classes, frequent openers).
STARTERS = frozenset("""
a an the this that these those there then than thus so and but or nor yet for if when while where why how what
which who whom whose after before because since until unless although though however also still just only even
i we you he she it they me us him her them my our your his its their mine ours yours
is are was were be been am do does did have has had will would shall should can could may might must
not no yes all any some each every many much most more few several both either neither other another such
in on at by to from with without about into onto over under between through during against among around
today tomorrow yesterday now here later soon once again always never sometimes often maybe perhaps please
dr mr mrs ms prof let let's okay ok thanks thank hello hi dear note see use add fix make set get run try keep check
first second third next last finally one two three four five six seven eight nine ten
monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
september october november december
minä sinä hän me te he se ne tämä tuo nämä nuo joka mikä kuka mitä missä milloin miksi miten kun jos että
ja tai mutta sekä eli vaan koska vaikka kuin niin myös vielä jo nyt sitten tänään huomenna eilen aina
ei en et emme ette eivät on ovat oli olivat olla ollut oma meidän teidän heidän minun sinun hänen sen niiden
kaikki jokainen moni monet muutama yksi kaksi kolme ensin lopuksi siksi tässä siellä täällä tuolla
maanantai tiistai keskiviikko torstai perjantai lauantai sunnuntai
tammikuu helmikuu maaliskuu huhtikuu toukokuu kesäkuu heinäkuu elokuu syyskuu lokakuu marraskuu joulukuu
""".split())


def plain(text: str) -> str:
    """The text with code, links and headings blanked out (kept the same length would not matter here)."""
    text = _CODE.sub(" ", text)
    text = _LINK.sub(" ", text)
    return _HEADING.sub(" ", text)


def _shaped(word: str) -> bool:
    """CamelCase or capitals inside the word (SQLite, FastAPI, NASA): a name wherever it stands."""
    return len(word) > 1 and any(c.isupper() for c in word[1:]) and not word.isupper() or (word.isupper() and len(word) >= 2)


def lower_ascii(text: str) -> bool:
    """ASCII text with a letter and no capital: it has no name, and ``_UPPER`` finds nothing in its ``plain`` text.
    Two scans in C, where blanking code and links and then that pattern cost a rebuild 17 us a file on such text
    (a tenth of reading one)."""
    return text.isascii() and text.islower()


def latin_names(text: str) -> list[str]:
    """Names in English or Finnish ``text`` by the capitalisation heuristic above, in order of appearance."""
    if lower_ascii(text):
        return []
    body = plain(text)
    if not _UPPER.search(body):
        return []  # no capital letter, no name (most of a rebuild's lower-case prose stops here)
    matches = list(_WORD.finditer(body))
    words = [m.group() for m in matches]
    lower_seen = {w.lower() for w in words if w[0].islower()}
    initial: dict[int, bool] = {}

    def starts(k: int) -> bool:
        """Whether word ``k`` opens a sentence, a line or a list item. Asked only of capitalised words: working
        it out for every word cost a rebuild more than reading the files (a long line made it quadratic)."""
        if k not in initial:
            start = matches[k].start()
            before = body[max(0, start - 6) : start]
            line_start = body.rfind("\n", 0, start) + 1
            other = _NOT_BULLET.search(body, line_start, start)  # the line so far is only a bullet or number
            initial[k] = (bool(_SENTENCE_END.search(before)) and not before.rstrip().endswith(_TITLES)) or other is None
        return initial[k]

    out: list[str] = []
    after = 0  # the first word not yet part of a run
    for i in [k for k, w in enumerate(words) if w[0].isupper()]:  # runs start at a capital: visit only those
        if i < after or has_cjk(words[i]):
            continue
        run = [i]
        j = i + 1
        while j < len(matches) and body[matches[j - 1].end() : matches[j].start()] in (" ", "\u00a0"):
            w = words[j]
            if w[0].isupper() and not starts(j):
                run.append(j)
                j += 1
            elif w.lower() in _JOINERS and j + 1 < len(matches) and words[j + 1][0].isupper() \
                    and body[matches[j].end() : matches[j + 1].start()] == " ":
                run += [j, j + 1]
                j += 2
            else:
                break
        found = [words[k] for k in run]
        first = found[0]
        if starts(i) and not _shaped(first):
            if first.lower() in STARTERS or first.lower() in lower_seen:
                found = found[1:]  # "The Beatles" -> "Beatles"; "Yesterday Ada Lovelace" -> "Ada Lovelace"
            elif len(found) == 1 and body[matches[i].end() : matches[i].end() + 1] == ":":
                found = []  # a label ("Decision: ...") opens a line, not a name
        if found and found[0].lower() in _JOINERS:
            found = found[1:]
        while found and found[-1].lower() in _JOINERS:
            found.pop()
        if found and not (len(found) == 1 and (found[0].lower() in lower_seen or found[0].lower() in STARTERS)
                          and not _shaped(found[0])):
            out.append(_POSSESSIVE.sub("", " ".join(found)).strip("'’-"))
        after = j
    return [n for n in out if len(n) > 1]


def japanese_names(text: str) -> list[str]:
    """Runs of proper nouns (Sudachi's 固有名詞) in Japanese ``text``."""
    out: list[str] = []
    current = ""
    for surface, pos in japanese.tagged(plain(text)):
        if pos[0] == "名詞" and pos[1] == "固有名詞":
            current += surface
            continue
        if current:
            out.append(current)
            current = ""
    if current:
        out.append(current)
    return [n for n in out if n.strip() and not n.isascii()]


def names(text: str) -> list[str]:
    """Every name found in ``text``, each once, in order of first appearance."""
    found = latin_names(text)
    if has_cjk(text):
        found += japanese_names(text)
    return list(dict.fromkeys(found))
