"""Vault health's list of memories without vectors: the last updated first, whichever way it is read (walking
the update order when most are unembedded, sorting the few otherwise: 1.6 s -> 0.06 s at 1,000,000)."""

from __future__ import annotations

import pytest

from memory_curator.core.index import listing


@pytest.mark.parametrize("limit", [3, 7, 40, 500])  # 3, 7: most unembedded (walk); 40, 500: sort
def test_the_unembedded_list_is_the_last_updated_first(svc, limit):
    saved = [svc.save(f"memory {k}", title=f"T{k}") for k in range(20)]
    svc.update(saved[4].id, content="changed later")  # moves to the top
    by_hand = sorted(((svc.get(it.id, record_access=False).updated_at, k, it.id) for k, it in enumerate(saved)),
                     reverse=True)  # ties (same second) in save order, the last saved first
    expected = [mid for _, _, mid in by_hand][:limit]
    assert [mid for mid, _ in listing.unembedded(svc.store, limit)] == expected
    report = svc.health(limit=limit)
    assert [mid for mid, _ in report.unembedded] == expected and report.unembedded_count == 20
