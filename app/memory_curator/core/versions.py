"""A memory's versions in the vault's git history: list them, diff two, make an old one current.
``MemoryService.versions`` is one of these (the CLI's history commands and the app's History dialog use it)."""

from __future__ import annotations

from memory_curator.core.history import Version, find_version
from memory_curator.core.memories import Memories
from memory_curator.core.model import MemoryItem
from memory_curator.core.vault.codec import decode_memory


class Versions:
    def __init__(self, memories: Memories):
        self._memories = memories

    def enable(self) -> str | None:
        """Turn history on: make the vault a git repository and commit what it holds. Returns the commit id."""
        memories = self._memories
        memories.history.init()
        with memories.write_lock.hold():
            return memories.history.commit_pending()

    def of(self, memory_id: str) -> list[Version]:
        """The memory's versions, newest first; pending changes are committed first so they show too."""
        memories = self._memories
        info = memories.store.file_info(memory_id)
        if info is None:
            raise memories.store.missing(memory_id)
        memories.commit_history(force=True)
        return memories.history.versions(info.file_path)

    def diff(self, memory_id: str, old_ref: str, new_ref: str | None = None) -> str:
        """Unified diff between two versions (``new_ref=None``: the file as it is now)."""
        memories = self._memories
        versions = self.of(memory_id)
        old = find_version(versions, old_ref)
        if new_ref is not None:
            return memories.history.diff(old, find_version(versions, new_ref))
        current = memories.vault.abs(memories.store.file_info(memory_id).file_path).read_text(encoding="utf-8")
        return memories.history.diff(old, None, current)

    def restore(self, memory_id: str, ref: str) -> MemoryItem:
        """Make an old version the current one: a new change (and commit), so the restore can be undone."""
        memories = self._memories
        version = find_version(self.of(memory_id), ref)
        old = decode_memory(memories.history.text_at(version), default_category="context", default_id=memory_id,
                            fallback_title=memory_id)
        item = memories.update(memory_id, content=old.content, title=old.title, keywords=list(old.keywords),
                               category=old.category, salience=old.salience)
        memories.commit_history(force=True)
        return item
