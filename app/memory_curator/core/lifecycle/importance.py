"""Importance: how much a memory matters, from how it is used. A pure formula over the access log.

    importance = 0.4 x access_frequency + 0.3 x recency + 0.3 x age_factor        (in [0, 1])

- access_frequency = ln(1 + n) / ln(1 + FREQUENCY_SATURATION), capped at 1, where n is the number of
  recalls (get, search hit, batch get) in the access log's window (``config.access_log_days``, 30 days).
  Logarithmic: the first recalls say most; 20 recalls in the window count as "used all the time".
- recency = 0.5 ** (days since the last recall / RECENCY_HALF_LIFE_DAYS); 0 when never recalled.
  Recalled today: 1; a week ago: 0.5; a month ago: ~0.05.
- age_factor = 1 / (1 + age in days / AGE_HALF_DAYS): older memories age gracefully (slowly, never to 0).
  New: 1; 90 days: 0.5; a year: 0.2.

A manual override (``set_score``) replaces the formula's value: it is stored in the memory's file as
``importance_override`` because it is user intent, not derived state — deleting or rebuilding the index
must not lose it. The access log and the computed value live only in the index (a recall never rewrites
a file); losing them costs only history.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

W_FREQUENCY, W_RECENCY, W_AGE = 0.4, 0.3, 0.3
FREQUENCY_SATURATION = 20
RECENCY_HALF_LIFE_DAYS = 7.0
AGE_HALF_DAYS = 90.0


@dataclass(frozen=True)
class ImportanceScore:
    """A memory's importance and how it was reached."""

    memory_id: str
    importance: float  # what search sorts by: the override when set, else ``computed``
    computed: float
    override: float | None
    access_frequency: float
    recency: float
    age_factor: float
    recent_accesses: int  # recalls within the access log window
    last_accessed: datetime | None


def _days(later: datetime, earlier: datetime) -> float:
    return max(0.0, (later - earlier).total_seconds() / 86400.0)


def access_frequency(recent_accesses: int) -> float:
    return min(1.0, math.log1p(max(0, recent_accesses)) / math.log1p(FREQUENCY_SATURATION))


def recency(last_accessed: datetime | None, now: datetime) -> float:
    if last_accessed is None:
        return 0.0
    return 0.5 ** (_days(now, last_accessed) / RECENCY_HALF_LIFE_DAYS)


def age_factor(created_at: datetime, now: datetime) -> float:
    return 1.0 / (1.0 + _days(now, created_at) / AGE_HALF_DAYS)


def score(memory_id: str, *, recent_accesses: int, last_accessed: datetime | None, created_at: datetime,
          now: datetime, override: float | None = None) -> ImportanceScore:
    f = access_frequency(recent_accesses)
    r = recency(last_accessed, now)
    a = age_factor(created_at, now)
    computed = round(min(1.0, max(0.0, W_FREQUENCY * f + W_RECENCY * r + W_AGE * a)), 6)
    return ImportanceScore(
        memory_id=memory_id,
        importance=computed if override is None else override,
        computed=computed,
        override=override,
        access_frequency=round(f, 6),
        recency=round(r, 6),
        age_factor=round(a, 6),
        recent_accesses=recent_accesses,
        last_accessed=last_accessed,
    )
