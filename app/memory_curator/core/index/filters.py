"""Search and list filters as one WHERE fragment over ``memories m``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memory_curator.core.errors import ValidationError
from memory_curator.core.model import MEMORY_TYPES, utcnow
from memory_curator.core.vault.codec import format_dt


@dataclass(frozen=True)
class Filters:
    category: str | None = None
    session_id: str | None = None
    min_salience: float = 0.0
    include_superseded: bool = False
    scope: str | Sequence[str] | None = None  # one scope or several (any of them)
    actor: str | None = None
    label: str | None = None  # a classification label (core/graph/classify.py) the memory carries
    actor_keys: tuple[str, ...] = ()  # the actor's entity names in the graph; set: the actor scope goes by it
    include_expired: bool = False
    memory_type: str | None = None  # "episodic" | "emotional" | "procedural"
    # Owners whose memories a caller may see besides the ownerless ones (HTTP and MCP callers: () is a caller
    # without user_id); None sees every memory (the app and the CLI, run by the vault's owner).
    visible_to: Sequence[str] | None = None

    def sql(self) -> tuple[str, list]:
        """A WHERE fragment over ``memories m`` and its parameters."""
        clauses: list[str] = ["1"]
        params: list = []
        if self.min_salience > 0:  # no clause at 0: the list pages can then walk an index in order
            clauses.append("m.salience >= ?")
            params.append(float(self.min_salience))
        if self.category:
            clauses.append("m.category = ?")
            params.append(self.category)
        if self.session_id:
            clauses.append("m.session_id = ?")
            params.append(self.session_id)
        if not self.include_superseded:
            clauses.append("m.superseded_by IS NULL")
        if not self.include_expired:
            clauses.append("(m.expires_at IS NULL OR m.expires_at > ?)")
            params.append(format_dt(utcnow()))
        if self.scope:
            scopes = [self.scope] if isinstance(self.scope, str) else list(self.scope)
            clauses.append(f"m.scope IN ({','.join('?' * len(scopes))})")
            params.extend(scopes)
        if self.label:
            clauses.append("EXISTS (SELECT 1 FROM json_each(m.meta_json, '$.extra.labels') WHERE key = ?)")
            params.append(self.label)
        if self.actor_keys:  # seed 002's actor scope: memories linked to the actor's entity, by any name
            marks = ",".join("?" * len(self.actor_keys))
            clauses.append(f"m.pk IN (SELECT memory_pk FROM graph_mentions WHERE key IN ({marks}))")
            params.extend(self.actor_keys)
        elif self.actor:
            clauses.append(
                "EXISTS (SELECT 1 FROM json_each(m.meta_json, '$.actors') WHERE json_each.value = ?)"
            )
            params.append(self.actor)
        if self.memory_type:
            if self.memory_type not in MEMORY_TYPES:
                raise ValidationError(f"memory_type must be one of {', '.join(MEMORY_TYPES)}.", field="memory_type")
            clauses.append("(',' || m.memory_type || ',') LIKE ?")
            params.append(f"%,{self.memory_type},%")
        if self.visible_to is not None:
            owners = [str(o) for o in self.visible_to if o]
            clauses.append(f"COALESCE(json_extract(m.meta_json, '$.provenance.user_id'), '') IN "
                           f"({','.join('?' * (len(owners) + 1))})")
            params.extend(["", *owners])
        return " AND ".join(clauses), params
