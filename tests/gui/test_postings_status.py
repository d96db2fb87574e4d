"""The status bar shows the keyword index a large vault builds in the background (core/index/postings_unit.py),
and hides it when the build stops."""

from __future__ import annotations

from memory_curator.core.config import MemoryConfig
from memory_curator.core.index.postings_unit import PostingsUnit
from memory_curator.core.service import MemoryService
from memory_curator.gui.widgets.status import EngineStatusBar


def test_status_bar_shows_the_keyword_index_being_built(qtbot, tmp_path):
    svc = MemoryService.open(tmp_path, embedder="none", config=MemoryConfig(watch_files=False), background=False)
    try:
        svc.save_batch([{"content": f"river stone {i} quokka", "title": f"note {i}"} for i in range(40)])
    finally:
        svc.close()
    # Small thresholds, and an hour's pause after the first step: the build stays under way while looked at.
    unit = PostingsUnit(tmp_path / "index.db", tmp_path / ".memory-curator", min_rows=20, common=1, pause_s=3600)
    bar = EngineStatusBar()
    qtbot.addWidget(bar)
    bar.show()
    bar.watch_postings(lambda: unit)
    assert not bar.keyword_index.isVisible()
    try:
        unit.kick()
        qtbot.waitUntil(lambda: bar.keyword_index.isVisible(), timeout=30000)
        assert bar.keyword_index.text().startswith("Building the keyword index: ")
        assert bar.keyword_index.text().endswith(" %")
    finally:
        unit.close(timeout=30)
    qtbot.waitUntil(lambda: not bar.keyword_index.isVisible(), timeout=5000)
