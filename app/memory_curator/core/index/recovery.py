"""Opening the index, or setting a corrupt one (or one a newer version of the app wrote) aside and building a new
one: it is derived state."""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path

from memory_curator.core.errors import IndexError_, IndexTooNew
from memory_curator.core.index import db
from memory_curator.core.index.store import IndexStore
from memory_curator.core.progress import CancelToken, ProgressFn

log = logging.getLogger(__name__)


def open_index(path: Path, root: Path, state_dir: Path, progress: ProgressFn | None = None,
               cancel: CancelToken | None = None, map_large: bool = True) -> tuple[IndexStore, bool]:
    """(the store, whether it starts empty and must be filled from the vault). ``progress`` hears an older
    index's migrations; ``cancel`` stops them (Cancelled: the ones done stay, the one running rolls back).
    ``map_large``: see db.connect."""
    fresh = not path.exists()
    try:
        store = IndexStore.open(path, root, progress=progress, cancel=cancel, map_large=map_large)
        try:
            store.count()
        except BaseException:
            store.close()
            raise
        return store, fresh
    except IndexTooNew as exc:
        # A downgraded app: the newer one's index is kept (its access counts, its vectors) for when it returns.
        why, kind = str(exc), "newer"
    except (IndexError_, db.DatabaseError) as exc:
        cause = exc.__cause__ if isinstance(exc, IndexError_) else exc
        if cause is None or not db.is_corruption(cause):
            raise
        why, kind = "It was corrupt.", "corrupt"
    # Kept aside for inspection, with its WAL and shared-memory files.
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(path) + suffix)
        if p.exists():
            shutil.move(str(p), str(state_dir / f"index.db{suffix}.{kind}-{stamp}"))
    log.warning("%s The index at %s was set aside in %s; rebuilding it from the vault.", why, path, state_dir)
    return IndexStore.open(path, root, map_large=map_large), True
