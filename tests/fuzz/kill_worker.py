"""The process the kill -9 suite kills: random changes to a vault, each announced before it starts and
acknowledged after it returns, one JSON line each on stdout, until it is killed.

    python kill_worker.py VAULT SEED

Lines: {"start": op, "ids": [...], "values": {...}} then {"ack": op, "ids": [...], "values": {...}}. ``values``
maps an id to the content the operation gives it (None: deleted); a batch lists all its ids.
"""

from __future__ import annotations

import json
import random
import sys

from memory_curator.core.config import MemoryConfig
from memory_curator.core.service import MemoryService

CONFIG = MemoryConfig(ollama_host="http://127.0.0.1:9")
WORDS = "apple river stone cloud garden lamp orbit violin meadow copper falcon harbor".split()
CATEGORIES = ("context", "decisions", "ideas")


def say(**line) -> None:
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))) + f" {rng.getrandbits(40):x}"


def main(vault: str, seed: int) -> None:
    rng = random.Random(seed)
    svc = MemoryService.open(vault, embedder="none", config=CONFIG)
    say(ready=True)
    while True:
        live = [m for m in svc.list_memories(limit=1000) if not m.superseded_by]
        ops = ["save", "save_batch", "save_ai"] + (["update", "move", "delete", "pin", "update_batch",
                                                      "consolidate", "rebuild"] if len(live) >= 4 else [])
        pending = svc.inbox.items()
        if pending:
            ops.append("approve")
        op = rng.choice(ops)
        if op in ("save", "save_ai"):
            content = text(rng)
            say(start=op, ids=[], values={}, content=content)
            m = svc.save(content, source="ai" if op == "save_ai" else "user", category=rng.choice(CATEGORIES))
            say(ack=op, ids=[m.id], values={m.id: content})
        elif op == "save_batch":
            contents = [text(rng) for _ in range(rng.randint(2, 6))]
            say(start=op, ids=[], values={}, contents=contents)
            saved = svc.save_batch([{"content": c, "category": rng.choice(CATEGORIES)} for c in contents])
            say(ack=op, ids=[m.id for m in saved], values={m.id: c for m, c in zip(saved, contents, strict=True)})
        elif op in ("update", "move"):
            m = rng.choice(live)
            content = text(rng)
            category = rng.choice([c for c in CATEGORIES if c != m.category]) if op == "move" else None
            say(start=op, ids=[m.id], values={m.id: content})
            svc.update(m.id, content=content, category=category)
            say(ack=op, ids=[m.id], values={m.id: content})
        elif op == "delete":
            m = rng.choice(live)
            say(start=op, ids=[m.id], values={m.id: None})
            svc.delete(m.id)
            say(ack=op, ids=[m.id], values={m.id: None})
        elif op == "pin":
            m = rng.choice(live)
            say(start=op, ids=[m.id], values={m.id: m.content})
            svc.pin(m.id)
            say(ack=op, ids=[m.id], values={m.id: m.content})
        elif op == "update_batch":
            chosen = rng.sample(live, min(len(live), rng.randint(2, 5)))
            values = {m.id: text(rng) for m in chosen}
            say(start=op, ids=list(values), values=values)
            svc.update_batch([{"id": i, "content": c} for i, c in values.items()])
            say(ack=op, ids=list(values), values=values)
        elif op == "consolidate":
            chosen = rng.sample(live, min(len(live), rng.randint(2, 4)))
            say(start=op, ids=[m.id for m in chosen], values={m.id: m.content for m in chosen})
            result = svc.consolidate([m.id for m in chosen])
            summary = result.memory
            say(ack=op, ids=[m.id for m in chosen], values={m.id: m.content for m in chosen},
                summary=summary.id, summary_content=summary.content)
        elif op == "rebuild":
            say(start=op, ids=[], values={})
            svc.rebuild_index(embed=False)
            say(ack=op, ids=[], values={})
        elif op == "approve":
            m = pending[0]
            say(start=op, ids=[m.id], values={m.id: m.content})
            svc.inbox.approve([m.id])
            say(ack=op, ids=[m.id], values={m.id: m.content})


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
