"""The vault format is a public contract: round trips, unknown keys, safe names."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memory_curator.core.errors import ValidationError
from memory_curator.core.model import MemoryItem
from memory_curator.core.vault.codec import (
    FrontmatterError,
    decode_memory,
    encode_memory,
    format_dt,
    split_frontmatter,
)
from memory_curator.core.vault.slug import slugify, validate_category

T = datetime(2025, 11, 25, 14, 30, tzinfo=timezone.utc)


def item(**kw) -> MemoryItem:
    base = dict(id="550e8400-e29b-41d4-a716-446655440000", content="# Python + FastAPI valinta\n\nKäytetään Pythonia.",
                title="Python + FastAPI valinta", category="decisions", created_at=T, updated_at=T,
                session_id="session_004", source="user", keywords=("python", "backend"), salience=0.85)
    base.update(kw)
    return MemoryItem(**base)


def decode(text: str) -> MemoryItem:
    return decode_memory(text, default_category="context", default_id="fallback-id", fallback_title="file")


def test_round_trip_keeps_every_field():
    original = item(summary="short", scope="project", actors=("alice",), pinned=True, salience_floor=0.5,
                    provenance={"source_file": "a.pdf", "page": 3})
    text = encode_memory(original)
    assert text.startswith("---\nid: 550e8400")
    back = decode(text)
    assert back == original


def test_seed_example_file_parses():
    text = """---
id: 550e8400-e29b-41d4-a716-446655440000
category: decisions
created_at: 2025-11-25T14:30:00Z
updated_at: 2025-11-25T14:30:00Z
session_id: session_004
source: user
keywords:
  - python
  - backend
  - framework
salience: 0.85
---

# Python + FastAPI valinta

**Päätös:** Käytetään Pythonia ja FastAPI:a backendin toteutuksessa.
"""
    m = decode(text)
    assert m.title == "Python + FastAPI valinta"  # from the first heading when the key is absent
    assert m.created_at == T and m.salience == 0.85 and m.keywords == ("python", "backend", "framework")
    assert m.content.startswith("# Python + FastAPI valinta")


def test_unknown_keys_survive_a_rewrite():
    text = encode_memory(item()).replace("salience: 0.85\n", "salience: 0.85\naliases: [PF]\nobsidian_color: red\n")
    m = decode(text)
    assert m.extra == {"aliases": ["PF"], "obsidian_color": "red"}
    again = encode_memory(m)
    assert "aliases:\n- PF" in again and "obsidian_color: red" in again


def test_file_without_frontmatter_is_adopted():
    m = decode("# Just notes\n\nwritten in another editor")
    assert m.id == "fallback-id" and m.title == "Just notes" and m.category == "context"


@pytest.mark.parametrize("text", [
    "---\nid: [unclosed\n---\nbody",
    "---\nid: x\nno end marker",
    "---\n- a list\n- not a mapping\n---\nbody",
    "---\ncreated_at: yesterday-ish\n---\nbody",
])
def test_broken_frontmatter_raises(text):
    with pytest.raises(FrontmatterError):
        decode(text)


def test_split_frontmatter_without_header():
    assert split_frontmatter("plain text") == (None, "plain text")


@pytest.mark.parametrize("title, slug", [
    ("../../etc/passwd", "etc_passwd"),
    ("C:\\Windows\\system32", "c_windows_system32"),
    ("東京の天気", "東京の天気"),
    ("Päätös: käytetään SQLitea", "päätös_käytetään_sqlitea"),
    ("   ", "memory"),
    ("CON", "memory"),
    ("a/b\x00c", "a_b_c"),
])
def test_slugs_are_safe(title, slug):
    assert slugify(title) == slug


def test_long_title_slug_is_bounded():
    assert len(slugify("x" * 500)) <= 60


@pytest.mark.parametrize("bad", ["../x", "", "Decisions/..", "a b", ".trash"])
def test_bad_categories_are_refused(bad):
    with pytest.raises(ValidationError):
        validate_category(bad)


def test_category_is_normalised():
    assert validate_category(" Decisions ") == "decisions"


def test_times_are_written_in_utc_whatever_zone_they_come_in():
    assert format_dt(datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)) == "2025-01-02T03:04:05Z"
    assert format_dt(datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2)))) == "2025-01-02T01:04:05Z"
    assert format_dt(datetime(1, 1, 1, 0, 0, tzinfo=timezone.utc)) == "0001-01-01T00:00:00Z"
