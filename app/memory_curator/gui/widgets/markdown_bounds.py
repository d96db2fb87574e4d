"""A budget on Python-Markdown's search for the end of a link, so no memory can freeze the preview.

For every ``[`` (and ``![``) the link processors scan forward, char by char in Python, for the matching ``]``
and then for the ``)`` of the URL; an unclosed one scans to the end of the text. A memory of 20,000 ``[``
(a vault file from someone else, or an agent's output) took 28-63 s to preview on the GUI thread: quadratic.

Here those scans share one budget per rendering: a few times the text's length, which a real document never
uses up (each link is scanned about once). Past it, the remaining brackets are shown as typed. The search for
the ``]`` also runs over the brackets only (a regex), not every character. Footnote references get a bounded
pattern for the same reason (``[^`` without ``]`` scanned to the end from each one, in C).
"""

from __future__ import annotations

import itertools
import re

from markdown import Extension, Markdown
from markdown.inlinepatterns import LinkInlineProcessor
from markdown.preprocessors import Preprocessor

_LINK_PROCESSORS = ("reference", "link", "image_link", "image_reference", "short_reference", "short_image_ref")
_BRACKET = re.compile(r"[\[\]]")
_FOOTNOTE = re.compile(r"\[\^([^\]\n]{0,500})\]")
MIN_BUDGET = 200_000  # chars scanned; a short text may hold many links near each other


class _Budget:
    def __init__(self) -> None:
        self.left = MIN_BUDGET

    def take(self, chars: int) -> None:
        self.left = max(0, self.left - chars)


def _matched_text(budget: _Budget):
    """LinkInlineProcessor.getText's result: the text up to the ``]`` that closes the ``[`` before ``index``."""

    def get_text(data: str, index: int) -> tuple[str, int, bool]:
        end = min(len(data), index + budget.left)
        depth = 1
        for m in _BRACKET.finditer(data, index, end):
            depth += 1 if m.group() == "[" else -1
            if depth == 0:
                budget.take(m.end() - index)
                return data[index : m.start()], m.end(), True
        budget.take(end - index)
        return "", index, False

    return get_text


def _bounded_link(get_link, budget: _Budget):
    """LinkInlineProcessor.getLink on no more of the text than the budget allows."""

    def bounded(data: str, index: int) -> tuple[str, str | None, int, bool]:
        if budget.left <= 0:
            return "", None, index, False
        window = data if len(data) - index <= budget.left else data[: index + budget.left]
        href, title, end, handled = get_link(window, index)
        budget.take((end - index) if handled else (len(window) - index))
        return href, title, end, handled

    return bounded


class BoundedLinks(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Python-Markdown's name
        budget = _Budget()
        md.preprocessors.register(_Sizer(md, budget), "memory_curator_budget", 1000)
        for name in _LINK_PROCESSORS:
            if name in md.inlinePatterns:
                processor = md.inlinePatterns[name]
                if isinstance(processor, LinkInlineProcessor):
                    processor.getText = _matched_text(budget)
                    processor.getLink = _bounded_link(processor.getLink, budget)
        if "footnote" in md.inlinePatterns:
            md.inlinePatterns["footnote"].compiled_re = _FOOTNOTE


class _Sizer(Preprocessor):
    """Sets the budget from the text's length before anything is parsed (the first preprocessor)."""

    def __init__(self, md: Markdown, budget: _Budget):
        super().__init__(md)
        self.budget = budget

    def run(self, lines: list[str]) -> list[str]:
        self.budget.left = max(MIN_BUDGET, 4 * sum(len(line) + 1 for line in lines))
        return lines


# -- pieces -----------------------------------------------------------------------------------------------
# What the budget cannot bound: Python-Markdown rebuilds a block's text for every heading it splits off and
# its inline text for every mark it replaces, so its time grows with a block's length times its marks (50,000
# '#' lines without a blank one: 97 s). Rendered in pieces of a few thousand characters, that product stays
# small and the whole is linear. Pieces end at a blank line where one comes (one followed by an unindented
# line, so a list item's indented paragraph is not cut from it), else before a heading, else anywhere past
# 8 x PIECE_CHARS; a fenced code block cut in two is closed and reopened. Reference definitions are given to every piece; a footnote works within its piece.
PIECE_CHARS = 2_000
LONG_LINE_CHARS = 16_000  # a paragraph on one line is kept whole up to here
_FENCE = re.compile(r"^(`{3,}|~{3,})")  # Python-Markdown's: at the start of the line, never indented
_HEADING = re.compile(r"^#{1,6}(?:[ \t]|$)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n^]{1,200}\]:[ \t]*\S.*$", re.M)
MAX_REFERENCES = 1_000


def pieces(text: str) -> list[str]:
    """``text`` as pieces to render one by one; one piece when it is short."""
    if len(text) <= PIECE_CHARS:
        return [text]
    references = "\n".join(m.group() for m in itertools.islice(_REFERENCE.finditer(text), MAX_REFERENCES))
    out: list[str] = []
    piece: list[str] = []
    size = 0
    fence: str | None = None  # the line that opened the fenced block we are in
    mark = ""  # its fence ('```', '~~~~'...): Python-Markdown closes the block at a line of exactly that
    lines = [part for line in text.splitlines(keepends=True) for part in _short(line)]
    for i, line in enumerate(lines):
        piece.append(line)
        size += len(line)
        if fence is None and (m := _FENCE.match(line)):
            fence, mark = line, m.group(1)
        elif fence is not None and line.rstrip() == mark:
            fence = None
        after = lines[i + 1] if i + 1 < len(lines) else " "
        if (size >= 8 * PIECE_CHARS
                or (size >= 2 * PIECE_CHARS and fence is None and _HEADING.match(after))
                or (size >= PIECE_CHARS and fence is None and not line.strip() and not after[:1].isspace())):
            if fence is not None:
                piece.append(f"\n{mark}\n")
            out.append("".join(piece))
            piece, size = ([fence] if fence is not None else []), 0
    if piece:
        out.append("".join(piece))
    return [p + "\n\n" + references if references else p for p in out]


def _short(line: str) -> list[str]:
    """A line past LONG_LINE_CHARS cut at the last space before the limit (or at it, when there is none)."""
    parts = []
    while len(line) > LONG_LINE_CHARS:
        cut = line.rfind(" ", 0, LONG_LINE_CHARS) + 1 or LONG_LINE_CHARS
        parts.append(line[:cut] + "\n")
        line = line[cut:]
    return [*parts, line]
