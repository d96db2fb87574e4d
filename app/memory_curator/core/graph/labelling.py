"""Labels for memories (seed 002's Classify) as the service offers them: the vault's label set, labelling each
new memory before it is written, a person's corrections, and counts for the browse facet."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memory_curator.core.errors import ValidationError
from memory_curator.core.graph import classify
from memory_curator.core.memories import Memories
from memory_curator.core.model import MemoryItem
from memory_curator.core.vault.settings import VaultSettings


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

    def classify(self, memory_ids: Sequence[str] | None = None) -> int:
        """Label memories again with the current label set (all, or ``memory_ids``); labels a person set are
        kept. Returns how many files changed."""
        with self.memories.writing():
            return self._classify(memory_ids)

    def _classify(self, memory_ids: Sequence[str] | None) -> int:
        clf = self.classifier()
        ids = list(memory_ids) if memory_ids is not None else self.memories.store.graph_rows.all_ids()
        changed = 0
        for mid in ids:
            current = self.memories.require(mid)
            new = clf.label(current)
            if new.extra != current.extra:
                self.memories.rewrite(current, new)
                changed += 1
        return changed

    def counts(self) -> dict[str, int]:
        """Label -> how many memories carry it (the browse facet)."""
        return self.memories.store.graph_rows.label_counts()
