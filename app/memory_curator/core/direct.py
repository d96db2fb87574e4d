"""Seed 004's Direct Memory API in the engine: a pre-formatted memory stored at once, for one user.

Every field the seed sends lands in the vault format (README, "The vault format"), none dropped:

    user_id            provenance.user_id (the owner: other users cannot read, change or delete it)
    content            the markdown body (at most 5,000 characters)
    layer              frontmatter ``layer``: short-term | semantic | long-term (default semantic)
    type               frontmatter ``type``: explicit | implicit (default explicit)
    importance         ``salience`` (0..1, default 0.8: seed 000's salience is the same "importance points")
    confidence         frontmatter ``confidence`` (0..1, default 0.9)
    persona_tags       ``keywords`` (at most 10)
    metadata           frontmatter ``metadata``, a mapping kept as given (JSON values)
    typed fields       the typed frontmatter keys (episodic, emotional, procedural), as ``save`` takes them

The seed's ``stored_in_episodic`` (and emotional, procedural) flags need no storage here: a memory holding a
kind's fields is of that kind (``memory_types``), so the flags are read from the memory itself. Its ids are
``mem_`` + 12 hex digits, as the seed's pipeline makes them.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from memory_curator.core.errors import ValidationError
from memory_curator.core.memories import Memories
from memory_curator.core.model import TYPED_FIELDS, MemoryItem
from memory_curator.core.validation import new_item

MAX_CONTENT = 5000
MAX_TAGS = 10
MAX_METADATA_BYTES = 16 * 1024
LAYERS = ("short-term", "semantic", "long-term")
TYPES = ("explicit", "implicit")
DEFAULTS = {"layer": "semantic", "type": "explicit", "importance": 0.8, "confidence": 0.9}
SEED_KEYS = ("layer", "type", "confidence", "metadata")  # frontmatter keys named as the seed names them
TYPED_KEYS = tuple(k for keys in TYPED_FIELDS.values() for k in keys)
FIELDS = ("user_id", "content", "layer", "type", "importance", "confidence", "persona_tags", "metadata",
          *TYPED_KEYS)


def memory_id() -> str:
    return f"mem_{uuid.uuid4().hex[:12]}"


@dataclass(frozen=True)
class DirectStored:
    """The seed's DirectMemoryResponse: where the memory went (``storage``), and its file in the vault."""

    memory: MemoryItem
    file: str

    @property
    def storage(self) -> dict[str, bool]:
        kinds = self.memory.memory_types
        return {"vault": True, "index": True, "vectors": self.memory.embedded,
                **{f"{kind}": kind in kinds for kind in TYPED_FIELDS}}

    @property
    def message(self) -> str:
        later = "" if self.memory.embedded else "; it is embedded as soon as the embedder is available"
        return f"Memory stored in {self.file}{later}."

    def as_dict(self) -> dict[str, Any]:
        return {"status": "success", "memory_id": self.memory.id, "message": self.message,
                "storage": self.storage, "file": self.file, "error_code": None}


def _unit(values: Mapping[str, Any], key: str) -> float:
    value = values.get(key, DEFAULTS[key])
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValidationError(f"{key} must be a number between 0 and 1.", field=key, code="OUT_OF_RANGE")
    return float(value)


def _choice(values: Mapping[str, Any], key: str, allowed: tuple[str, ...]) -> str:
    value = values.get(key, DEFAULTS[key])
    if value not in allowed:
        raise ValidationError(f"{key} must be one of {', '.join(allowed)}.", field=key, code="INVALID_CHOICE")
    return value


def _metadata(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ValidationError("metadata must be a mapping.", field="metadata", code="WRONG_TYPE")
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        raise ValidationError("metadata must hold JSON values only.", field="metadata", code="WRONG_TYPE") from None
    if len(text.encode("utf-8")) > MAX_METADATA_BYTES:
        raise ValidationError(f"metadata is larger than {MAX_METADATA_BYTES // 1024} KiB.", field="metadata",
                              code="TOO_LONG")
    return json.loads(text) or None  # plain JSON data, as the file will hold it


def direct_item(memories: Memories, values: Mapping[str, Any], *, client: str = "direct_api") -> MemoryItem:
    """The memory a direct store writes, checked field by field; nothing is written."""
    unknown = [k for k in values if k not in FIELDS]
    if unknown:
        raise ValidationError(f"Unknown field {unknown[0]!r}.", field=unknown[0], code="UNKNOWN_FIELD")
    user_id, content = values.get("user_id"), values.get("content")
    if not isinstance(user_id, str) or not user_id.strip():
        raise ValidationError("user_id is required.", field="user_id", code="MISSING_FIELD")
    if not isinstance(content, str):
        raise ValidationError("content is required.", field="content", code="MISSING_FIELD")
    if len(content) > MAX_CONTENT:
        raise ValidationError(f"content is longer than {MAX_CONTENT} characters.", field="content", code="TOO_LONG")
    tags = values.get("persona_tags") or []
    if not isinstance(tags, (list, tuple)) or not all(isinstance(t, str) for t in tags):
        raise ValidationError("persona_tags must be a list of text.", field="persona_tags", code="WRONG_TYPE")
    if len(tags) > MAX_TAGS:
        raise ValidationError(f"persona_tags holds more than {MAX_TAGS} tags.", field="persona_tags",
                              code="TOO_LONG")
    seed_keys = {"layer": _choice(values, "layer", LAYERS), "type": _choice(values, "type", TYPES),
                 "confidence": _unit(values, "confidence"), "metadata": _metadata(values.get("metadata"))}
    typed = {k: values[k] for k in TYPED_KEYS if values.get(k) is not None}
    item = new_item(memories.config, content, keywords=tags, source="ai", salience=_unit(values, "importance"),
                    provenance={"client": client, "user_id": user_id.strip()},
                    extra={k: v for k, v in seed_keys.items() if v is not None}, **typed)
    return replace(item, id=memory_id())


def store(memories: Memories, values: Mapping[str, Any], *, client: str = "direct_api") -> DirectStored:
    """Write, index and (when the embedder is up) embed one direct memory."""
    item = memories.write_new([direct_item(memories, values, client=client)])[0]
    info = memories.store.file_info(item.id)
    return DirectStored(item, info.file_path if info else "")


def store_direct(svc: Any, user_id: str, content: str, *, layer: str = "semantic", type: str = "explicit",
                 importance: float = 0.8, confidence: float = 0.9, persona_tags: Sequence[str] = (),
                 metadata: Mapping[str, Any] | None = None, **typed: Any) -> DirectStored:
    """``MemoryService.store_direct``: seed 004's request, field for field (its defaults, DEFAULTS), the typed
    fields by name. ``svc`` is the service (only its ``memories`` unit is used)."""
    values = {"user_id": user_id, "content": content, "layer": layer, "type": type, "importance": importance,
              "confidence": confidence, "persona_tags": list(persona_tags), "metadata": metadata}
    return store(svc.memories, {**values, **typed})


def seed_fields(item: MemoryItem) -> dict[str, Any]:
    """The seed's keys a memory holds under their own names (layer, type, confidence, metadata), for responses;
    its importance is the salience, its persona tags the keywords, its user the owner."""
    return {k: item.extra[k] for k in SEED_KEYS if k in item.extra}
