"""Japanese word segmentation with SudachiPy, loaded once per process (about 0.1 s)."""

from __future__ import annotations

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
        morphemes = tok.tokenize(text, mode)
        return [m.surface() for m in morphemes if m.surface().strip()]
