"""Real PDFs written with reportlab for the import tests: plain, long, bookmarked, Japanese, encrypted."""

from __future__ import annotations

import textwrap
from pathlib import Path

from reportlab.lib import pdfencrypt
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

JAPANESE_FONT = "HeiseiMin-W3"  # one of reportlab's built-in CID fonts: no font file needed


def write_pdf(path: Path, pages: list[str], *, title: str | None = None, bookmarks: dict[int, str] | None = None,
              password: str | None = None, font: str = "Helvetica", width: int = 90) -> Path:
    """One page per string, wrapped at ``width`` characters; ``bookmarks`` maps page index -> outline title."""
    if font == JAPANESE_FONT and font not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(JAPANESE_FONT))
    encrypt = pdfencrypt.StandardEncryption(password, ownerPassword=password + "-owner") if password else None
    c = canvas.Canvas(str(path), pagesize=A4, encrypt=encrypt)
    if title:
        c.setTitle(title)
    for i, text in enumerate(pages):
        if bookmarks and i in bookmarks:
            c.bookmarkPage(f"p{i}")
            c.addOutlineEntry(bookmarks[i], f"p{i}", level=0)
        c.setFont(font, 11)
        y = 800
        for para in text.split("\n\n"):
            lines = [para[k : k + width] for k in range(0, len(para), width)] if font == JAPANESE_FONT else \
                textwrap.wrap(para, width)
            for line in lines:
                c.drawString(50, y, line)
                y -= 14
            y -= 10
        c.showPage()
    c.save()
    return path


def page_text(n: int, words: int = 60) -> str:
    """A page of English prose whose marker word (``pagemarkerN``) names the page it is on."""
    sentence = "The curator keeps long documents whole and in parts so a reader can find each section again."
    body = " ".join([sentence] * (words // 16 + 1))
    return f"Page {n} begins here with pagemarker{n}. {body} End of page {n}."
