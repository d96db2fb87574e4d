"""Rendered markdown in a browser that loads nothing remote and runs no script.

QTextBrowser has no JavaScript at all; images and stylesheets come only through ``loadResource``, which
answers nothing for any URL, so a memory cannot make the app fetch from the network or the disk.
"""

from __future__ import annotations

import html
import re
from urllib.parse import quote

import markdown
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QTextBrowser

from memory_curator.core.text import wikilinks
from memory_curator.gui.widgets.markdown_bounds import BoundedLinks, pieces

EXTENSIONS = ["extra", "sane_lists"]  # and BoundedLinks, after them: it bounds what they registered
# A memory saved through the engine holds at most 100,000 characters; a vault file from elsewhere may hold
# 10 MiB, and Python-Markdown's time grows with the text times its marks (each one rebuilds the text).
MAX_PREVIEW_CHARS = 100_000
MAX_QUOTE_DEPTH = 16
_QUOTE_RUN = re.compile(rf"^((?:[ \t]*>){{{MAX_QUOTE_DEPTH}}})((?:[ \t]*>)+)", re.M)


def wikilinks_as_links(text: str) -> str:
    """``[[Target|label]]`` as a markdown link to ``wikilink:Target`` (the window opens that memory)."""
    def link(m: re.Match) -> str:
        target, label = m.group(1).strip(), (m.group(2) or m.group(1)).strip()
        return f"[{label.replace(']', '')}](wikilink:{quote(target)})"
    return wikilinks.PATTERN.sub(link, text)


def safe_markdown() -> markdown.Markdown:
    md = markdown.Markdown(extensions=[*EXTENSIONS, BoundedLinks()], output_format="html")
    # Raw HTML in a memory is shown as text, never interpreted.
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return md


def render_markdown(text: str) -> str:
    """``text`` as HTML: wiki links clickable, raw HTML shown as text, at most MAX_PREVIEW_CHARS of it."""
    shown = text[:MAX_PREVIEW_CHARS]
    md = safe_markdown()
    html_pieces = []
    for piece in pieces(wikilinks_as_links(_QUOTE_RUN.sub(_shallower_quotes, shown))):
        try:
            html_pieces.append(md.reset().convert(piece))
        except RecursionError:  # Python-Markdown parses nested lists and quotes by recursion: 2,500 levels
            html_pieces.append(f"<pre>{html.escape(piece)}</pre>")
    rendered = "\n".join(html_pieces)
    if len(shown) < len(text):
        rendered += (f"<p><i>The preview shows the first {MAX_PREVIEW_CHARS:,} of {len(text):,} characters; "
                     "the editor holds them all.</i></p>")
    return rendered


def _shallower_quotes(m: re.Match) -> str:
    # Each level of '>' re-parses the quoted block: 40,000 levels on one line took 6 s. The rest show as typed.
    return m.group(1) + m.group(2).replace(">", "\\>")


class SafePreview(QTextBrowser):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setOpenExternalLinks(False)
        self.setOpenLinks(False)
        self.requested_resources: list[str] = []  # what a document asked for (and did not get)

    def loadResource(self, type_: int, url: QUrl):  # noqa: N802 - Qt's name
        self.requested_resources.append(url.toString())
        return None

    def show_markdown(self, text: str) -> None:
        self.setHtml(render_markdown(text))
