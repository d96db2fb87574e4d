"""Extractive summary (seed 001): split into sentences, score each by the frequency of its words across
all the texts, keep the best sentences in their original order, at most ``max_chars`` characters.

Japanese is split into sentences and words with SudachiPy (sentence ends are the morphemes it tags 句点;
words are the dictionary forms of content words, so particles do not dominate the counts). Other text is
split at ``.!?`` and line breaks; words are lower-cased and stop words dropped.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from memory_curator.core.text import japanese, tokens

MAX_SUMMARY_CHARS = 4000
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CJK_END = ("。", "！", "？", "!", "?")
_ENDS = (".", "!", "?", ":", ";", "…", *_CJK_END)


@dataclass(frozen=True)
class Sentence:
    source: int  # index of the text it came from
    position: int  # order in the whole input
    text: str
    words: tuple[str, ...]


def sentences(text: str, source: int = 0, start: int = 0) -> list[Sentence]:
    """The sentences of one markdown text (headings skipped, list markers dropped)."""
    out: list[Sentence] = []
    for line in text.splitlines():
        if not line.strip() or _HEADING.match(line):
            continue
        bullet = _BULLET.match(line) is not None
        line = _BULLET.sub("", line).strip()
        cjk = tokens.cjk_share(line) >= 0.3
        parts = [p.strip() for p in (japanese.sentences(line) if cjk else _SENTENCE_END.split(line)) if p.strip()]
        if bullet and parts and not parts[-1].endswith(_ENDS):
            # A list item is a sentence without its full stop: joined to the next one it needs it.
            parts[-1] += "。" if cjk else "."
        for part in parts:
            out.append(Sentence(source, start + len(out), part, tuple(words(part))))
    return out


def words(sentence: str) -> list[str]:
    """Content words used for scoring."""
    if tokens.has_cjk(sentence):
        latin = [w for w in tokens.words(sentence) if not tokens.has_cjk(w) and _content(w)]
        return [w.lower() for w in japanese.content_words(sentence)] + latin
    return [w for w in tokens.words(sentence) if _content(w)]


def _content(word: str) -> bool:
    return len(word) > 1 and word not in tokens.STOPWORDS and not word.isdigit()


def score_sentences(items: Sequence[Sentence]) -> list[float]:
    """Mean normalised frequency of a sentence's words; sentences of one word count half."""
    freq = Counter(w for s in items for w in s.words)
    top = max(freq.values(), default=1)
    scores = []
    for s in items:
        if not s.words:
            scores.append(0.0)
            continue
        value = sum(freq[w] / top for w in s.words) / len(s.words)
        scores.append(value * (0.5 if len(s.words) < 2 else 1.0))
    return scores


def _join(parts: Sequence[str]) -> str:
    out = ""
    for p in parts:
        if out and not (out.endswith(_CJK_END) and tokens.has_cjk(p[:1])):
            out += " "  # Japanese sentences follow each other without a space
        out += p
    return out.strip()


def summarize(texts: Sequence[str], *, max_chars: int = MAX_SUMMARY_CHARS, ratio: float = 0.4,
              max_sentences: int | None = None) -> str:
    """Summary of ``texts``: sentences from the same text stay in one paragraph, texts in input order.
    Exact repeats across texts are kept once (consolidated memories often repeat each other)."""
    items: list[Sentence] = []
    seen: set[str] = set()
    for i, text in enumerate(texts):
        for s in sentences(text, i, len(items)):
            key = " ".join(s.text.lower().split())
            if key not in seen:
                seen.add(key)
                items.append(s)
    if not items:
        return ""
    want = max(1, math.ceil(ratio * len(items)))
    if max_sentences is not None:
        want = max(1, min(want, max_sentences))
    scores = score_sentences(items)
    ranked = sorted(range(len(items)), key=lambda i: (-scores[i], i))
    chosen: list[int] = []
    used = 0
    for i in ranked:
        if len(chosen) >= want:
            break
        cost = len(items[i].text) + 2
        if used + cost > max_chars:
            continue  # a shorter, lower-ranked sentence may still fit
        chosen.append(i)
        used += cost
    if not chosen:  # one sentence longer than the budget: cut it
        return items[ranked[0]].text[: max_chars - 1].rstrip() + "…"
    chosen.sort()
    paragraphs: list[list[str]] = []
    last_source = None
    for i in chosen:
        if items[i].source != last_source:
            paragraphs.append([])
            last_source = items[i].source
        paragraphs[-1].append(items[i].text)
    return "\n\n".join(_join(p) for p in paragraphs)[:max_chars]
