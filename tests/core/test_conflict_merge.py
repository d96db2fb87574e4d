"""The field merge: what one side changed is kept, what both changed is for a person, updated_at takes the later."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from memory_curator.core.conflicts.merge import merge
from memory_curator.core.model import MemoryItem

T0 = datetime(2026, 11, 23, 8, 0, tzinfo=timezone.utc)
BASE = MemoryItem(id="m1", content="The base text.", title="Base", category="context", created_at=T0,
                  updated_at=T0, keywords=("a",), salience=0.5)
TEXT = st.text(alphabet="abc xyz\n", min_size=1, max_size=20).map(str.strip).filter(bool)
CHANGES = st.fixed_dictionaries({}, optional={
    "title": TEXT, "content": TEXT, "keywords": st.lists(st.sampled_from("abcd"), max_size=3, unique=True).map(tuple),
    "salience": st.sampled_from([0.1, 0.5, 0.9]), "scope": st.sampled_from(["global", "project"]),
})


def _side(changes: dict, minutes: int) -> MemoryItem:
    return replace(BASE, updated_at=T0 + timedelta(minutes=minutes), **changes)


@given(CHANGES, CHANGES, st.integers(1, 100), st.integers(1, 100))
def test_each_sides_changes_are_kept_and_clashes_left_to_a_person(ours_changes, theirs_changes, mo, mt):
    ours, theirs = _side(ours_changes, mo), _side(theirs_changes, mt)
    result = merge(ours, theirs, BASE)
    ours_changes = {k: v for k, v in ours_changes.items() if getattr(BASE, k) != v}  # a value as it was: no change
    theirs_changes = {k: v for k, v in theirs_changes.items() if getattr(BASE, k) != v}
    clashes = {k for k in ours_changes.keys() & theirs_changes.keys() if ours_changes[k] != theirs_changes[k]}
    fields = {"content" if k == "content" else k for k in clashes}
    assert set(result.conflicting) == fields
    merged = result.values
    for key, value in {**theirs_changes, **ours_changes}.items():
        if key in clashes:
            continue
        expected = list(value) if isinstance(value, tuple) else value
        assert merged["content" if key == "content" else key] == expected
    assert merged["updated_at"] == max(ours.updated_at, theirs.updated_at).strftime("%Y-%m-%dT%H:%M:%SZ")


@given(CHANGES)
def test_without_a_base_only_updated_at_may_differ(changes):
    ours, theirs = _side({}, 1), _side(changes, 2)
    differs = any(getattr(BASE, k) != v for k, v in changes.items())
    assert merge(ours, theirs, None).clean == (not differs)
