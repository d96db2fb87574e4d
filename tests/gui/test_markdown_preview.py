"""The preview renders any memory in time proportional to its length: a vault file from someone else (or an
agent's output) of runs of brackets, marks or headings froze the window for minutes (issue 18), while a real
document renders as a whole would."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from memory_curator.gui.widgets.markdown_bounds import PIECE_CHARS, pieces
from memory_curator.gui.widgets.preview import (
    MAX_PREVIEW_CHARS,
    render_markdown,
    safe_markdown,
    wikilinks_as_links,
)

README = Path(__file__).resolve().parents[2] / "README.md"
# Each took from 28 s ('[' x 20,000) to minutes (50,000 heading lines: 97 s at 100,000 characters) on 2 cores.
HOSTILE = ["[", "[[", "[a", "*[", "![", "[^", "*a*", "> ", "\\", "[x](", "\n#", "1. ", "[[a]]("]


def test_hostile_runs_render_in_one_pass():
    """All of them at the preview's full length, in one process: minutes each before, seconds in all now. The
    timeout is far above today's time on a loaded machine and far below the time before."""
    code = ("import sys\nfrom memory_curator.gui.widgets.preview import render_markdown\n"
            "for piece in sys.argv[2:]:\n"
            "    html = render_markdown(piece * (int(sys.argv[1]) // len(piece)))\n"
            "    assert html, piece\n")
    done = subprocess.run([sys.executable, "-c", code, str(MAX_PREVIEW_CHARS), *HOSTILE], capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]


def test_deep_quotes_and_lists_show_their_text():
    for text in ["> " * 5_000 + "deep", "- " * 3_000 + "deep", "".join("  " * i + "- x\n" for i in range(300)) + "deep"]:
        assert "deep" in render_markdown(text)


def _visible(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def test_a_long_real_document_renders_as_it_would_whole():
    text = README.read_text()
    # The part the preview shows whole: up to a heading before MAX_PREVIEW_CHARS (the README outgrew it; past
    # it the preview ends with a note instead of the rest).
    text = text[: text.rfind("\n## ", 0, MAX_PREVIEW_CHARS) + 1]
    assert len(pieces(text)) > 5
    whole = safe_markdown().convert(wikilinks_as_links(text))
    shown = render_markdown(text)
    assert _visible(shown) == _visible(whole)
    for tag in ("<a ", "<h1", "<h2", "<h3", "<code>", "<pre>", "<li>", "<table>", "<strong>", "<img "):
        assert shown.count(tag) == whole.count(tag), tag


def test_a_code_block_cut_into_pieces_stays_code():
    code = "".join(f"# comment {i}\nx = [{i}, *args]\n" for i in range(800))
    shown = render_markdown(f"Intro\n\n```python\n{code}```\n\nAfter the code.")
    assert len(code) > 2 * PIECE_CHARS
    assert "<h1" not in shown and "<em>" not in shown
    assert _visible(shown).count("# comment") == 800
    assert "<p>After the code.</p>" in shown


def test_references_defined_at_the_end_link_from_the_start():
    text = "See [the docs][d] first.\n\n" + "A paragraph of text.\n\n" * 1_000 + "[d]: https://example.org/docs\n"
    assert '<a href="https://example.org/docs">the docs</a>' in render_markdown(text)


def test_a_file_longer_than_the_preview_says_so():
    shown = render_markdown("word " * (MAX_PREVIEW_CHARS // 5 + 1_000))
    assert f"first {MAX_PREVIEW_CHARS:,} of" in shown and "the editor holds them all" in shown
