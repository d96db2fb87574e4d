"""Obsidian's wiki links, one pattern for the importer, the graph and the preview.

``[[target]]``, ``[[target#heading]]``, ``[[target^block]]``, ``[[target|label]]``, and embeds ``![[...]]``.
No part may hold ``[`` or a line break and each part is bounded: a run of ``[`` or ``[[a#`` without ``]]``
then costs one short attempt a bracket, not a scan to the end of the text (a 97 KB run of ``[`` took minutes,
quadratic, and hung an import; issue 18).
"""

from __future__ import annotations

import re

PATTERN = re.compile(r"!?\[\[([^\[\]|#^\n]{1,500})(?:[#^][^\[\]|\n]{0,500})?(?:\|([^\[\]\n]{0,500}))?\]\]")


def find(text: str) -> list[tuple[str, str | None]]:
    """(target, label or None) of every link in ``text``, in order; targets of only spaces are left out."""
    if "[[" not in text:  # most texts: found at C speed without the pattern
        return []
    return [(m.group(1).strip(), (m.group(2) or "").strip() or None) for m in PATTERN.finditer(text)
            if m.group(1).strip()]
