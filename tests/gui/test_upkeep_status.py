"""The status bar shows the index's background upkeep while it runs (core/kicked.SteppedUnit: the keyword index a
large vault builds, the unreadable shares' fill an upgraded index does), and hides it when the unit stops."""

from __future__ import annotations

from memory_curator.core.config import MemoryConfig
from memory_curator.core.index import unreadable
from memory_curator.core.index.db import connect
from memory_curator.core.index.postings_unit import PostingsUnit
from memory_curator.core.index.unreadable import UnreadableFill
from memory_curator.core.service import MemoryService
from memory_curator.gui.widgets.status import EngineStatusBar


def _saved(tmp_path, n: int) -> None:
    svc = MemoryService.open(tmp_path, embedder="none", config=MemoryConfig(watch_files=False), background=False)
    try:
        svc.save_batch([{"content": f"river stone {i} quokka", "title": f"note {i}"} for i in range(n)])
    finally:
        svc.close()


def _shown_while_it_runs(qtbot, unit, text: str) -> None:
    bar = EngineStatusBar()
    qtbot.addWidget(bar)
    bar.show()
    other = PostingsUnit(unit._path, unit._path.parent / ".memory-curator", min_rows=10**9)  # idle: not shown
    bar.watch_upkeep(lambda: [other, unit])
    assert not bar.upkeep.isVisible()
    try:
        unit.kick()
        qtbot.waitUntil(lambda: bar.upkeep.isVisible(), timeout=30000)
        assert bar.upkeep.text().startswith(text + ": ")
        assert bar.upkeep.text().endswith(" %")
        assert bar.upkeep.toolTip() == unit.MEANWHILE
    finally:
        unit.close(timeout=30)
    qtbot.waitUntil(lambda: not bar.upkeep.isVisible(), timeout=5000)


def test_status_bar_shows_the_keyword_index_being_built(qtbot, tmp_path):
    _saved(tmp_path, 40)
    # Small thresholds, and an hour's pause after the first step: the build stays under way while looked at.
    unit = PostingsUnit(tmp_path / "index.db", tmp_path / ".memory-curator", min_rows=20, common=1, pause_s=3600)
    _shown_while_it_runs(qtbot, unit, "Building the keyword index")


def test_status_bar_shows_the_unreadable_shares_being_filled(qtbot, tmp_path):
    _saved(tmp_path, unreadable.PART + 500)
    conn = connect(tmp_path / "index.db")
    conn.execute("UPDATE memories SET unreadable = NULL")
    conn.execute("INSERT INTO meta (key, value) VALUES (?, '0')", (unreadable.KEY,))
    conn.close()
    # A part (2,000 rows) a step, and an hour's pause after the first: the fill stays under way while looked at.
    unit = UnreadableFill(tmp_path / "index.db", step_s=0.0, pause_s=3600)
    _shown_while_it_runs(qtbot, unit, "Finishing the index upgrade")
