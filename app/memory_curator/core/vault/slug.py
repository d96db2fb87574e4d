"""Safe file and folder names from titles and categories.

A title is user (or LLM) input: it must never choose where a file goes. Slugs keep unicode letters so that
Japanese and Finnish titles stay readable, and drop everything a filesystem or a shell could misread.
"""

from __future__ import annotations

import re
import unicodedata

from memory_curator.core.errors import ValidationError

MAX_SLUG_CHARS = 60
_NOT_WORD = re.compile(r"[^\w]+", re.UNICODE)
_CATEGORY = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
# Names Windows refuses whatever the extension.
WINDOWS_DEVICES = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


def slugify(title: str, fallback: str = "memory") -> str:
    text = unicodedata.normalize("NFKC", title).lower()
    text = _NOT_WORD.sub("_", text).strip("_")
    text = text[:MAX_SLUG_CHARS].rstrip("_")
    if not text or text in WINDOWS_DEVICES:
        return fallback
    return text


def validate_category(category: str) -> str:
    """A category is a folder: lower-case letters, digits, '-' and '_' only."""
    if category is not None and not isinstance(category, str):
        raise ValidationError(f"Category must be text such as 'decisions' (got {type(category).__name__}).",
                              field="category", code="WRONG_TYPE")
    value = (category or "").strip().lower()
    if value in WINDOWS_DEVICES:  # a folder Windows cannot create: the vault could not be checked out there
        raise ValidationError(
            f"Category {category!r} is a name Windows keeps for a device: choose another (for example "
            f"'{value}-notes').",
            field="category",
        )
    if not _CATEGORY.match(value):
        raise ValidationError(
            f"Category {category!r} is not allowed: use lower-case letters, digits, '-' or '_' "
            "(for example 'decisions', 'summaries', 'context').",
            field="category", code="INVALID_CATEGORY",
        )
    return value
