"""Japanese word segmentation with SudachiPy, loaded once per process (about 0.1 s)."""

from __future__ import annotations

import re
import threading

_lock = threading.Lock()
_tokenizer = None
_mode = None


def _load():
    global _tokenizer, _mode
    with _lock:
        if _tokenizer is None:
            from sudachipy import Dictionary, SplitMode

            # Mode A (short units) so that a compound in a query still meets its parts in the text.
            _mode = SplitMode.A
            _tokenizer = Dictionary(dict="core").tokenizer(mode=_mode)
    return _tokenizer, _mode


def words(text: str) -> list[str]:
    """Surface forms of the words in ``text``, in order, without white space tokens."""
    tok, mode = _load()
    with _lock:  # a Sudachi tokenizer is not safe to share between threads
        return [m.surface() for piece in _pieces(text) for m in tok.tokenize(piece, mode) if m.surface().strip()]


# Parts of speech that carry a topic; particles, auxiliaries and symbols do not.
CONTENT_POS = frozenset({"名詞", "動詞", "形容詞", "形状詞", "副詞", "代名詞"})
# Sudachi refuses input over 49,149 bytes (one memory of 16,000 kana without punctuation made a vault
# unopenable) and splits long inputs badly: feed it pieces of at most this many characters (4 bytes each
# at most in UTF-8: 16 kB).
_PIECE = 4000
_LOOK_BACK = 200  # how far back from a piece's end to look for a better place to cut
_CUT_AFTER = re.compile(r"[。！？!?．.、，,\s」』）)]")


def _pieces(text: str) -> list[str]:
    """``text`` in pieces Sudachi takes, cut after a sentence end, comma, bracket or space near each limit
    (a word is cut only in a run of 200 characters without any)."""
    out = []
    start = 0
    while len(text) - start > _PIECE:
        end = start + _PIECE
        window = text[end - _LOOK_BACK : end]
        cuts = [m.end() for m in _CUT_AFTER.finditer(window)]
        if cuts:
            end = end - _LOOK_BACK + cuts[-1]
        out.append(text[start:end])
        start = end
    out.append(text[start:])
    return out


def sentences(text: str) -> list[str]:
    """Sentences of Japanese ``text``, cut after each morpheme Sudachi tags as a sentence end (句点: 。！？)."""
    tok, mode = _load()
    out: list[str] = []
    current = ""
    with _lock:
        for piece in _pieces(text):
            for m in tok.tokenize(piece, mode):
                current += m.surface()
                if m.part_of_speech()[1] == "句点":
                    out.append(current.strip())
                    current = ""
    if current.strip():
        out.append(current.strip())
    return [s for s in out if s]


def content_words(text: str) -> list[str]:
    """Dictionary forms of the content words (nouns, verbs, adjectives...) of ``text``."""
    tok, mode = _load()
    with _lock:
        return [m.dictionary_form() for piece in _pieces(text) for m in tok.tokenize(piece, mode)
                if m.part_of_speech()[0] in CONTENT_POS and m.surface().strip()]


def function_words(text: str) -> set[str]:
    """Surface forms of the words of ``text`` that carry no topic (particles, auxiliaries, symbols): in a
    query they would match nearly every Japanese memory."""
    tok, mode = _load()
    with _lock:
        return {m.surface() for piece in _pieces(text) for m in tok.tokenize(piece, mode)
                if m.part_of_speech()[0] not in CONTENT_POS}


def tagged(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """(surface, part of speech) of every morpheme of ``text`` (the names in core/graph read the POS)."""
    tok, mode = _load()
    with _lock:
        return [(m.surface(), tuple(m.part_of_speech())) for piece in _pieces(text) for m in tok.tokenize(piece, mode)]
