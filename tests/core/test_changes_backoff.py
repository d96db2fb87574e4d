"""The periodic full scan (where file events do not reach) backs off on a vault where one scan takes long."""

from __future__ import annotations

from memory_curator.core.changes import SCAN_COST_FACTOR, ChangeMonitor


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_slow_full_scan_waits_longer_before_the_next(svc):
    clock = FakeClock()
    scans: list[float] = []

    def slow_sync(_tracker) -> int:
        scans.append(clock.now)
        clock.now += 2.0  # this vault takes two seconds to scan
        return 0

    monitor = ChangeMonitor(svc.store, svc.vault, slow_sync, full_scan_s=5.0, clock=clock, watch=False)
    clock.now += 5.0
    monitor.poll()
    assert len(scans) == 1
    clock.now += 5.0 * 3  # well past the base interval, but not past 20x the scan's cost
    monitor.poll()
    assert len(scans) == 1
    clock.now += 2.0 * SCAN_COST_FACTOR
    monitor.poll()
    assert len(scans) == 2


def test_a_fast_full_scan_keeps_the_base_interval(svc):
    clock = FakeClock()
    scans: list[float] = []
    monitor = ChangeMonitor(svc.store, svc.vault, lambda _tracker: scans.append(clock.now) or 0, full_scan_s=5.0,
                            clock=clock, watch=False)
    for _ in range(3):
        clock.now += 5.0
        monitor.poll()
    assert len(scans) == 3
