"""'Why this result' adds up (#17 item 8): every line's arithmetic, followed from the parts, gives the score the
list shows, also when the search weighs importance in (seed 001's blend) and in hybrid mode."""

from __future__ import annotations

import re

import pytest

from memory_curator.gui import resources
from memory_curator.gui.widgets.explanation import arithmetic

NUMBER = r"(-?[0-9]+\.[0-9]+)"


def _follow(lines: list[str]) -> float:
    """The score a reader gets by doing the sums written in the lines."""
    m = re.search(r"= \(([^)]*)\) / " + NUMBER, " ".join(lines))
    parts = [float(x) for x in m.group(1).split(" + ")]
    value = min(max(sum(parts) / float(m.group(2)), 0.0), 1.0)
    blend = re.search(r"Score = " + NUMBER + r" × relevance " + NUMBER + r" \+ " + NUMBER + r" × importance "
                      + NUMBER, lines[-1])
    if blend:
        a, rel, b, imp = (float(x) for x in blend.groups())
        assert rel == pytest.approx(value, abs=1e-4)
        value = a * rel + b * imp
    return value


def test_the_lines_add_up_to_the_score_when_importance_is_weighed_in(svc, vault_dir):
    resources.copy_sample_vault(vault_dir)
    svc.sync()
    results = svc.search("deploy OR release OR database OR search", mode="keyword", limit=10, importance_weight=0.4)
    assert len(results) >= 3
    for r in results:
        lines = arithmetic(r)
        assert _follow(lines) == pytest.approx(r.score, abs=1e-3), lines
        assert "importance" in lines[-1]


@pytest.mark.model
def test_the_lines_add_up_in_hybrid_mode(svc_local, vault_dir):
    resources.copy_sample_vault(vault_dir)
    svc_local.sync()
    svc_local.reindex_missing()
    for query in ("which database do we use", "login bug", "検索の改善"):
        for r in svc_local.search(query, mode="hybrid", limit=15):
            assert _follow(arithmetic(r)) == pytest.approx(r.score, abs=2e-3), arithmetic(r)
