"""Chunking by tokens (core/text/chunking.py): one chunk while a text fits, overlapping windows beyond."""

from __future__ import annotations

from memory_curator.core.text.chunking import chunk_text


def test_a_text_that_fits_is_one_chunk_and_a_longer_one_overlapping_windows():
    fits = "w, " * 5  # 10 tokens in 15 characters: counted as tokens, not characters or words
    assert [c.text for c in chunk_text(fits, size=10, overlap=2)] == [fits]
    longer = fits + "x"
    chunks = chunk_text(longer, size=10, overlap=2)
    assert [c.text for c in chunks] == [fits.rstrip(), "w, x"]
    assert all(longer[c.start:c.end] == c.text for c in chunks)
    assert chunk_text("  \n ", size=10, overlap=2) == []
