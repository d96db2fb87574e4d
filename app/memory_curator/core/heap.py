"""Memory freed by a bulk step handed back to the system at once.

glibc's malloc keeps what a thread frees in that thread's arena (up to 8 per core, 64 MB each) for its next
allocations, so a step that builds and drops hundreds of megabytes of small objects (a full sync of 1,000,000
files compared with their rows, Vault health listing them, the vector codes converted block by block) leaves the
process that much larger, though nothing holds it. In the app at 1,000,000 memories (bench/gui_list_scroll.py)
that was 271 MB of its 1,457 MB of anonymous memory, free in the arenas, at the end of the run. ``malloc_trim``
gives the free pages of every arena back (madvise), whichever thread calls it. Elsewhere (macOS, Windows, musl)
there is no such call and nothing is done: their allocators return memory on their own terms.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

__all__ = ["BULK_ROWS", "give_back"]

# A step over this many rows or files gives back what it freed (trimming costs a walk of the arenas' free lists;
# below this a step frees too little to matter).
BULK_ROWS = 10_000


def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).malloc_trim  # glibc's; musl has none
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


def give_back() -> bool:
    """Return the free pages of the allocator's arenas to the system; True when there was a way to."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True
