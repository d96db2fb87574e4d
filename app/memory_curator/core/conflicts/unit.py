"""``svc.conflicts``: the vault's sync conflicts listed, shown side by side, resolved, and taken back.

A conflict is found by indexing (core/indexing.py): a file with git's markers is indexed as this machine's
side and reported with ``CONFLICT_REASON``; a second file with an id that is held already is reported as a
duplicate (a sync tool's copy loses the id to the file it copies). Both reports live among the index's
vault problems, so listing conflicts costs one query.

Resolving writes one clean file where the memory was listed; every file it replaces (the marked file, the
copy) goes to the trash first, so ``undo`` can put them back. ``settle`` resolves, without asking, the
conflicts whose two sides changed different fields (core/conflicts/merge.py), and says so in the history.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TypeVar

from memory_curator.core import indexing
from memory_curator.core.conflicts import markers
from memory_curator.core.conflicts.merge import CONTENT, merge
from memory_curator.core.conflicts.model import CHOICES, Conflict, Resolution, Sides, Version
from memory_curator.core.conflicts.names import copy_name
from memory_curator.core.errors import (
    ConflictedFile,
    CuratorError,
    StorageError,
    ValidationError,
    VaultFileError,
)
from memory_curator.core.memories import Memories
from memory_curator.core.model import MemoryItem, VaultProblem, utcnow
from memory_curator.core.vault.codec import encode_memory, new_id, spliced
from memory_curator.core.vault.files import atomic_write_text, move_exclusive
from memory_curator.core.vault.store import CONFLICT_REASON
from memory_curator.core.vault.yaml_handler import HANDLER

log = logging.getLogger(__name__)
T = TypeVar("T")


def is_conflict(problem: VaultProblem) -> bool:
    """Whether a vault problem is a sync conflict (not a broken file)."""
    return problem.reason == CONFLICT_REASON or problem.reason.startswith(indexing.DUPLICATE_ID)


class Conflicts:
    def __init__(self, memories: Memories):
        self._m = memories
        # Conflicts ``settle`` found to need a person, by key -> their files' (mtime, size): not tried again
        # (a git subprocess and two reads each) until a file changes.
        self._needs_person: dict[str, tuple] = {}

    # -- finding --------------------------------------------------------------------------------------

    def list(self) -> list[Conflict]:
        """The vault's conflicts, by path."""
        return [c for c in (self._of(p) for p in self._m.store.problems() if is_conflict(p)) if c is not None]

    def ids(self) -> set[str]:
        """The ids of the memories in conflict (for marking them in lists)."""
        return {c.memory_id for c in self.list()}

    def get(self, key: str) -> Conflict:
        """A conflict by memory id, or by the path of either of its files."""
        for c in self.list():
            if key in (c.memory_id, c.path, c.copy_path):
                return c
        raise ValidationError(f"{key!r} is not in conflict: `memory-curator conflicts` lists the conflicts.",
                              field="id", code="NOT_IN_CONFLICT")

    def _of(self, problem: VaultProblem) -> Conflict | None:
        vault, rel = self._m.vault, problem.path
        try:
            if problem.reason == CONFLICT_REASON:
                sides = markers.split(vault.read_text(rel))
                if sides is None:
                    return None  # resolved by hand since: the next sync drops the report
                item = self._decoded(rel, sides.ours) or self._decoded(rel, sides.theirs)
                indexed = self._m.store.get(item.id) if item is not None else None
                title = (indexed or item).title if (indexed or item) is not None else rel
                return Conflict(item.id if item is not None else rel, title, "git", "git", rel)
            item = vault.read(rel)
        except ConflictedFile as exc:
            item = exc.item
        except StorageError:
            return None
        info = self._m.store.file_info(item.id) if item is not None else None
        if item is None or info is None or info.file_path == rel:
            return None
        named = copy_name(rel)
        tool = named.tool if named is not None else "duplicate id"
        held = self._m.store.get(item.id)
        return Conflict(item.id, held.title if held else item.title, "copy", tool, info.file_path, rel)

    def _decoded(self, rel: str, text: str) -> MemoryItem | None:
        try:
            return self._m.vault.decode(rel, text)
        except VaultFileError:
            return None

    # -- the two versions -----------------------------------------------------------------------------

    def sides(self, key: str) -> Sides:
        """Both versions of a conflict, their common ancestor when git knows it, and how they merge."""
        return self._load(self.get(key))

    def _load(self, c: Conflict) -> Sides:
        vault = self._m.vault
        try:
            if c.kind == "git":
                split = markers.split(vault.read_text(c.path))
                if split is None:
                    raise ValidationError(f"{c.path} is no longer in conflict.", code="NOT_IN_CONFLICT")
                ours = Version("This machine", c.path, split.ours, self._decoded(c.path, split.ours))
                theirs = Version("Incoming (git)", c.path, split.theirs, self._decoded(c.path, split.theirs))
                base_text = split.base if split.base is not None else self._m.history.merge_base_text(c.path)
            else:
                text = vault.read_text(c.path)
                copy = vault.read_text(c.copy_path or "")
                ours = Version(f"Listed: {c.path.rsplit('/', 1)[-1]}", c.path, text, self._decoded(c.path, text))
                label = f"{c.tool} copy" if c.tool != "duplicate id" else "Same id"
                theirs = Version(f"{label}: {(c.copy_path or '').rsplit('/', 1)[-1]}", c.copy_path or "", copy,
                                 self._decoded(c.copy_path or "", copy))
                base_text = None
        except StorageError as exc:
            raise ValidationError(f"Cannot read the versions of {c.path}: {exc}") from None
        base = self._decoded(c.path, base_text) if base_text else None
        merged = merge(ours.item, theirs.item, base) if ours.item and theirs.item else None
        proposal = ours.text
        if merged is not None:
            taken = [f.name for f in merged.fields
                     if f.name != CONTENT and merged.values.get(f.name) == f.theirs != f.ours]
            proposal = self._text_of(merged.values, c.path, spliced(ours.text, theirs.text, taken)) or ours.text
        return Sides(c, ours, theirs, base, merged, proposal)

    def _text_of(self, values: dict, rel: str, previous: str) -> str | None:
        """The file for merged ``values``, keeping ``previous``'s lines where a key has the value they give."""
        meta = {k: v for k, v in values.items() if k != CONTENT}
        item = self._decoded(rel, f"---\n{HANDLER.export(meta)}---\n\n{values.get(CONTENT, '')}\n")
        return None if item is None else encode_memory(item, previous)

    # -- resolving ------------------------------------------------------------------------------------

    def resolve(self, key: str, keep: str, merged: str | None = None) -> Resolution:
        """Keep "ours" (the listed version), "theirs" (the other), "both" (the other becomes a new memory,
        linked through its provenance) or "merged" (``merged``: a whole memory file, as edited by a person)."""
        if keep not in CHOICES:
            raise ValidationError(f"keep must be one of {', '.join(CHOICES)} (got {keep!r}).", field="keep")
        with self._m.writing():
            sides = self.sides(key)
            other = None
            if keep == "merged":
                text = self._checked_merge(sides, merged)
            else:
                text = self._clean(sides.theirs if keep == "theirs" else sides.ours)
                if keep == "both":
                    other = sides.theirs.item
                    if other is None:
                        raise ValidationError(f"{sides.theirs.label} is not a readable memory: keep this machine's "
                                              "version or edit a merge.", field="keep")
            title = sides.ours.item.title if sides.ours.item else sides.conflict.title
            note = f'Resolved the sync conflict of "{title}" ({sides.conflict.tool}): kept {_WORDS[keep]}.'
            res = self._apply(sides, text, keep, note, other)
        self._m.commit_history(force=True)
        return res

    def settle(self) -> list[Resolution]:
        """Merge every conflict that needs no person (its sides changed different fields); the others stay."""
        done = []
        for c in self.list():
            try:
                stamp = tuple(self._m.vault.stat(rel) for rel in (c.path, c.copy_path) if rel)
                if self._needs_person.get(c.key) == stamp:
                    continue
                with self._m.writing():
                    reason = self._m.store.problem_of(c.key)
                    if reason is None or not is_conflict(VaultProblem(c.key, reason)):
                        continue  # another process settled it while this one waited for the lock
                    sides = self._load(c)
                    if not sides.automatic:
                        self._needs_person[c.key] = stamp
                        continue
                    note = (f'Merged the sync conflict of "{c.title}" ({c.tool}) without asking: '
                            f"{sides.merge.describe()}.")  # type: ignore[union-attr]
                    done.append(self._apply(sides, sides.proposal, "automatic", note, None))
            except CuratorError as exc:  # one conflict that cannot be merged never stops the vault
                if getattr(exc, "code", "") != "NOT_IN_CONFLICT":  # else another process merged it just now
                    log.warning("Could not merge the sync conflict of %s: %s", c.path, exc)
        if done:
            self._m.commit_history(force=True)
        return done

    def settled(self, report: T) -> T:
        """``settle`` after a sync (whose ``report`` it passes on): what two machines changed in different
        fields needs no person."""
        self.settle()
        return report

    def _clean(self, version: Version) -> str:
        if version.item is None:
            raise ValidationError(f"{version.label} is not a readable memory ({version.path}): keep the other "
                                  "version or edit a merge.", field="keep")
        return version.text

    def _checked_merge(self, sides: Sides, merged: str | None) -> str:
        if not merged or not merged.strip():
            raise ValidationError("The merged version is empty: write the memory as it should be.", field="merged")
        if markers.split(merged) is not None:
            raise ValidationError("The merged version still holds conflict markers (<<<<<<< … >>>>>>>): keep one "
                                  "side of each and remove the marker lines.", field="merged")
        path = sides.conflict.path
        try:
            item = self._m.vault.decode(path, merged)
        except VaultFileError as exc:
            raise ValidationError(f"The merged version is not a memory file: {exc.reason}.", field="merged") from None
        c = sides.conflict
        known = c.memory_id != c.path  # neither side told the id (both broken): the merge's own id stands
        item = replace(item, id=c.memory_id if known else item.id, updated_at=utcnow())
        return encode_memory(item, merged)

    def _apply(self, sides: Sides, text: str, choice: str, note: str, other: MemoryItem | None) -> Resolution:
        m, c = self._m, sides.conflict
        paths = [c.path, *([c.copy_path] if c.copy_path else [])]
        trashed: list[tuple[str, str]] = []
        try:
            for rel in paths:
                if m.vault.stat(rel) is not None:
                    trashed.append((rel, m.vault.move_to_trash(rel)))
            atomic_write_text(m.vault.checked(c.path), text)
        except StorageError:
            self._put_back(trashed)
            raise
        with m.store.transaction():
            for rel in paths:
                m.store.clear_problem(rel)
            if c.copy_path:
                m.store.delete_path(c.copy_path)
            item = indexing.index_file(m.store, m.vault, c.path)
        if item is not None and m.store.get(item.id).chunk_count == 0:  # type: ignore[union-attr]
            m.embedding.queue([(m.store.pk_of(item.id), item)])  # type: ignore[list-item]
        new = None
        if other is not None:
            provenance = {**(other.provenance or {}), "sync_conflict_of": c.memory_id, "sync_tool": c.tool}
            new = m.write_new([replace(other, id=new_id(), updated_at=utcnow(), provenance=provenance,
                                       file_path=None)])[0]
        m.history.notes.append(note)
        new_path = m.store.file_info(new.id).file_path if new is not None else None  # type: ignore[union-attr]
        return Resolution(c.memory_id, choice, c.path, tuple(trashed), new.id if new else None, new_path, note, text)

    def _put_back(self, trashed: list[tuple[str, str]]) -> None:
        vault = self._m.vault
        for original, in_trash in reversed(trashed):
            try:
                if vault.stat(original) is not None:
                    vault.delete_file(original)  # the clean file written in its place
                move_exclusive(vault.checked(in_trash), vault.checked(original))
            except StorageError as exc:
                log.warning("Could not put %s back from the trash: %s", original, exc)

    def undo(self, res: Resolution) -> None:
        """Take a resolution back: the files it replaced return from the trash, the ones it wrote go."""
        m = self._m
        with m.writing():
            try:
                now = m.vault.read_text(res.path)
            except StorageError:
                now = None
            if now is not None and now != res.written:
                raise ValidationError(f"{res.path} has changed since the conflict was resolved: taking the "
                                      "resolution back would lose that change.", code="CHANGED_SINCE")
            info = m.store.file_info(res.new_id) if res.new_id is not None else None
            if info is not None:  # keep both's new memory was never anything but this resolution: it goes
                m.vault.delete_file(info.file_path)
                with m.store.transaction():
                    m.store.delete(info.id)
            if not any(original == res.path for original, _ in res.trashed):
                m.vault.delete_file(res.path)
            self._put_back(list(res.trashed))
            indexing.sync(m.store, m.vault)
        m.history.notes.append(f"Took back: {res.note}")
        m.commit_history(force=True)


_WORDS = {"ours": "this machine's version", "theirs": "the other version", "merged": "a merge edited by hand",
          "both": "both versions (the other as a new memory)"}
