"""Labels for memories (seed 002's Classify) as the service offers them: the vault's label set, labelling each
new memory before it is written, a person's corrections, and counts for the browse facet."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memory_curator.core.errors import Cancelled, ValidationError
from memory_curator.core.graph import classify
from memory_curator.core.memories import Memories
from memory_curator.core.model import MemoryItem
from memory_curator.core.progress import CancelToken, ProgressFn, Tracker
from memory_curator.core.vault.settings import VaultSettings

# Memories labelled under one hold of the vault's write lock: a save from another face (the app, the CLI, an
# LLM client's server) waits for at most one batch, never for a whole run over 100,000 memories.
BATCH = 200
# Files written together (their fsyncs in flight at once): a waiting writer waits for at most one group.
WRITE_GROUP = 64


@dataclass(frozen=True)
class Relabelled:
    """What a run of ``Labelling.classify`` did: ``changed`` files rewritten of the ``done`` memories labelled
    again, out of ``total``; ``cancelled`` when it stopped early (what it labelled stays labelled)."""

    changed: int
    done: int
    total: int
    cancelled: bool = False


def label_set_of(settings: VaultSettings) -> dict[str, list[str]]:
    """The vault's labels and the example phrases each is recognised by (the default set until one is saved)."""
    raw = settings.get(classify.SETTING)
    try:
        return classify.validate_labels(raw) if isinstance(raw, dict) else dict(classify.DEFAULT_LABELS)
    except ValueError:
        return dict(classify.DEFAULT_LABELS)


def save_label_set(settings: VaultSettings, labels: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Saved in the vault (``vault.json``), so every process, machine and rebuild labels with the same set."""
    try:
        clean = classify.validate_labels(labels)
    except ValueError as exc:
        raise ValidationError(f"Cannot use this label set: {exc}.", field="labels") from None
    settings.set(classify.SETTING, clean)
    return clean


class Labelling:
    def __init__(self, memories: Memories, settings: VaultSettings):
        self.memories = memories
        self.settings = settings
        self._made: tuple[dict, classify.Classifier] | None = None  # the last label set and its classifier
        memories.label = lambda item: self.classifier().label(item)

    def label_set(self) -> dict[str, list[str]]:
        """The vault's labels and the example phrases each is recognised by."""
        return label_set_of(self.settings)

    def set_label_set(self, labels: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
        return save_label_set(self.settings, labels)

    def classifier(self) -> classify.Classifier:
        """The classifier of the current label set, made again only when the set changed (making it stems
        every example: a tenth of a save_batch of 1,000 when it was made for each memory)."""
        labels = self.label_set()
        if self._made is None or self._made[0] != labels:
            self._made = (labels, classify.Classifier(labels))
        return self._made[1]

    def set(self, memory_id: str, labels: Mapping[str, float]) -> MemoryItem:
        """A person's labels for a memory: written to its file and never replaced by a later classification."""
        with self.memories.writing():
            return self._set_labels(memory_id, labels)

    def _set_labels(self, memory_id: str, labels: Mapping[str, float]) -> MemoryItem:
        current = self.memories.require(memory_id)
        try:
            new = classify.user_labels(current, labels)
        except ValueError as exc:
            raise ValidationError(str(exc), field="labels") from None
        return self.memories.rewrite(current, new)

    def classify(self, memory_ids: Sequence[str] | None = None, *, progress: ProgressFn | None = None,
                 cancel: CancelToken | None = None, batch: int = BATCH) -> Relabelled:
        """Label memories again with the current label set (all, or ``memory_ids``); labels a person set are
        kept. The write lock is held for one batch at a time (``batch`` memories, fewer when a writer of another
        face waits for it); ``progress(done, total, "")`` comes before the first and after each, and ``cancel``
        stops the run between batches."""
        ids = list(dict.fromkeys(memory_ids)) if memory_ids is not None else self.memories.store.graph_rows.all_ids()
        if memory_ids is not None:  # an id that is not a memory is refused before anything is written
            unknown = next((mid for mid in ids if self.memories.store.file_info(mid) is None), None)
            if unknown is not None:
                raise self.memories.store.missing(unknown)
        clf = self.classifier()  # one label set for the whole run, even if it is edited meanwhile
        tracker = Tracker(len(ids), progress, cancel)
        size = max(1, batch)
        changed = 0
        try:
            tracker.check()
            if progress is not None:
                progress(0, len(ids), "")  # the total at once, before the first batch may wait for the lock
            while tracker.done < len(ids):
                with self.memories.writing():
                    done, batch_changed = self._classify(clf, ids[tracker.done:tracker.done + size])
                changed += batch_changed
                tracker.step(done)  # outside the lock; then the cancel check
                self.memories.write_lock.let_waiters_in()  # a face waiting to save goes before the next batch
        except Cancelled:
            return Relabelled(changed, tracker.done, len(ids), cancelled=True)
        return Relabelled(changed, len(ids), len(ids))

    def _classify(self, clf: classify.Classifier, ids: Sequence[str]) -> tuple[int, int]:
        """(memories labelled, files changed): all of ``ids``, or fewer when a writer of another face began to
        wait for the lock (it goes next, not after the whole batch). Changed files are written ``WRITE_GROUP``
        at a time, together."""
        changes: list[tuple[MemoryItem, MemoryItem]] = []
        done = changed = 0
        for mid in ids:
            done += 1
            current = self.memories.fresh(mid)  # as its file is now: another face may have changed it
            if current is not None:  # None: deleted between batches
                new = clf.label(current)
                if new.extra != current.extra:
                    changes.append((current, new))
            if len(changes) >= WRITE_GROUP:
                changed += self._write(changes)
            if self.memories.write_lock.waited():
                break
        return done, changed + self._write(changes)

    def _write(self, changes: list[tuple[MemoryItem, MemoryItem]]) -> int:
        if changes:
            self.memories.rewrite_many(changes)
        n = len(changes)
        changes.clear()
        return n

    def counts(self) -> dict[str, int]:
        """Label -> how many memories carry it (the browse facet)."""
        return self.memories.store.graph_rows.label_counts()
