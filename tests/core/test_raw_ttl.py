"""Seed 003's two tiers in the engine: the raw text may expire before its summary, which stays searchable;
a memory without a summary expires whole."""

from __future__ import annotations

from datetime import timedelta

import pytest

from embed_helpers import embedded
from memory_curator.core.errors import ValidationError

RAW = "Full transcript: we argued about zebras, tapirs and the quarterly budget for an hour."
SUMMARY = "Agreed the quarterly budget."


def test_raw_ttl_with_a_summary_sets_the_raws_own_expiry(svc):
    item = svc.save(RAW, summary=SUMMARY, raw_ttl=3600)
    assert item.raw_expires_at == item.created_at + timedelta(seconds=3600) and item.expires_at is None
    assert item.raw == RAW
    assert "raw_expires_at:" in open(item.file_path).read()


def test_without_a_summary_the_memory_expires_whole(svc):
    item = svc.save(RAW, raw_ttl=60)
    assert item.expires_at == item.created_at + timedelta(seconds=60) and item.raw_expires_at is None


def test_after_the_raw_expires_the_summary_stays_searchable_and_the_raw_is_gone(svc):
    item = svc.save(RAW, summary=SUMMARY, raw_expires_at="2000-01-01T00:00:00Z")
    other = svc.save("zebras everywhere", title="Zoo")
    assert svc.get(item.id).raw is None  # hidden from readers at once
    assert svc.clear_expired() == 1 and svc.clear_expired() == 0  # dropped once; nothing trashed
    after = svc.get(item.id)
    assert after is not None and after.raw is None and after.content == SUMMARY and after.summary == SUMMARY
    text = open(after.file_path).read()
    assert "zebras" not in text and SUMMARY in text and after.title == SUMMARY
    assert [h.memory.id for h in svc.search("quarterly budget", mode="keyword")] == [item.id]
    assert [h.memory.id for h in svc.search("zebras", mode="keyword")] == [other.id]


def test_summary_is_what_is_embedded(svc_local):
    item = svc_local.save(RAW * 40, summary=SUMMARY)
    plain = svc_local.save(RAW * 40)
    embedded(svc_local)
    item, plain = svc_local.get(item.id), svc_local.get(plain.id)
    assert item.used_summary and item.chunk_count == 1  # the long raw text would be several chunks
    assert not plain.used_summary and plain.chunk_count > 1


@pytest.mark.parametrize("bad", [0, -5, "soon", float("nan")])
def test_bad_raw_ttl_is_refused(svc, bad):
    with pytest.raises(ValidationError) as err:
        svc.save(RAW, summary=SUMMARY, raw_ttl=bad)
    assert err.value.field == "raw_ttl"
