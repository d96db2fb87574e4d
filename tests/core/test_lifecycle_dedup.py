"""Dedup on save: a near-duplicate is reported and the caller chooses add, skip or merge."""

from __future__ import annotations

import pytest

from embed_helpers import embedded
from memory_curator.core.errors import ValidationError

TEXT = "We decided to use PostgreSQL 16 as the primary database for the billing service."


def test_keyword_fallback_reports_and_skips(svc):
    first = svc.save(TEXT, title="Billing DB")
    svc.save("The billing service sends invoices on the first of the month.")
    out = svc.save_checked(TEXT, title="Billing DB", on_duplicate="skip")
    assert out.action == "skipped" and out.memory.id == first.id
    assert out.duplicate.memory_id == first.id and out.duplicate.similarity == 1.0
    assert out.duplicate.method == "keyword"
    assert svc.count() == 2


def test_add_saves_anyway_but_reports(svc):
    first = svc.save(TEXT, title="Billing DB")
    out = svc.save_checked(TEXT, title="Billing DB", on_duplicate="add")
    assert out.action == "added" and out.memory.id != first.id and out.duplicate.memory_id == first.id
    assert svc.count() == 2


def test_merge_folds_new_text_and_tags_into_the_existing_memory(svc):
    first = svc.save(TEXT, title="Billing DB", keywords=["db"], salience=0.5)
    same = svc.save_checked(TEXT, title="Billing DB", keywords=["postgres"], salience=0.9, on_duplicate="merge")
    assert same.action == "merged" and same.memory.id == first.id
    assert same.memory.content == TEXT  # nothing new to add
    assert same.memory.keywords == ("db", "postgres") and same.memory.salience == 0.9
    assert svc.count() == 1


def test_no_duplicate_saves_normally(svc):
    svc.save(TEXT)
    out = svc.save_checked("Lunch is at noon on Fridays.", on_duplicate="skip")
    assert out.action == "added" and out.duplicate is None and svc.count() == 2


def test_superseded_memories_are_not_duplicates(svc):
    old = svc.save(TEXT, title="Billing DB")
    new = svc.save("Billing moved to MySQL.")
    svc.supersede(old.id, new.id)
    assert svc.find_duplicates(TEXT, title="Billing DB") == []


def test_bad_choice_is_refused(svc):
    with pytest.raises(ValidationError):
        svc.save_checked(TEXT, on_duplicate="replace")


@pytest.mark.model
def test_semantic_near_duplicate(svc_local):
    svc = svc_local
    first = svc.save(TEXT, title="Billing DB")
    svc.save("The office plants need watering every Monday.", title="Plants")
    near = svc.find_duplicates("We decided to use PostgreSQL 16 as the main database for the billing service.",
                               title="Billing DB")
    assert [m.memory_id for m in near] == [first.id]
    assert near[0].method == "semantic" and 0.95 < near[0].similarity <= 1.0
    assert svc.find_duplicates("The billing service is written in Go.", title="Billing DB") == []
    loose = svc.find_duplicates("The billing service is written in Go.", title="Billing DB", threshold=0.3)
    assert loose and loose[0].memory_id == first.id and loose[0].similarity < 0.95
    out = svc.save_checked("We decided to use PostgreSQL 16 as the main database for the billing service.",
                           title="Billing DB", on_duplicate="merge")
    assert out.action == "merged" and out.memory.id == first.id and "main database" in out.memory.content
    embedded(svc)
    assert svc.get(first.id, record_access=False).embedded  # re-embedded after the merge
