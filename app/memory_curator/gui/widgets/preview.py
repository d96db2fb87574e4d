"""Rendered markdown in a browser that loads nothing remote and runs no script.

QTextBrowser has no JavaScript at all; images and stylesheets come only through ``loadResource``, which
answers nothing for any URL, so a memory cannot make the app fetch from the network or the disk.
"""

from __future__ import annotations

import re
from urllib.parse import quote

import markdown
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QTextBrowser

EXTENSIONS = ["extra", "sane_lists"]
_WIKILINK = re.compile(r"\[\[([^\[\]|#\n]{1,200})(?:#[^\[\]|\n]*)?(?:\|([^\[\]\n]{0,200}))?\]\]")


def wikilinks_as_links(text: str) -> str:
    """``[[Target|label]]`` as a markdown link to ``wikilink:Target`` (the window opens that memory)."""
    def link(m: re.Match) -> str:
        target, label = m.group(1).strip(), (m.group(2) or m.group(1)).strip()
        return f"[{label.replace(']', '')}](wikilink:{quote(target)})"
    return _WIKILINK.sub(link, text)


def render_markdown(text: str) -> str:
    text = wikilinks_as_links(text)
    md = markdown.Markdown(extensions=EXTENSIONS, output_format="html")
    # Raw HTML in a memory is shown as text, never interpreted.
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return md.convert(text)


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
