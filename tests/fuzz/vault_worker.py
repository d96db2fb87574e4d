"""The process the vault fuzz suite sends hostile vaults to: a crash (SIGSEGV, a stack or memory blow-up) or a
hang kills this process, never the test run, and the test reports the input that did it.

    python vault_worker.py

Reads one JSON request a line on stdin, answers one JSON line on stdout:

    {"phase": "read", "vault": V, "export": DIR}    open, sync, rebuild, list, search, get, stats, health,
                                                    graph, export, reopen: touches no user file
    {"phase": "write", "vault": V}                  pin, unpin, set_salience, update keywords of every memory,
                                                    save one more, reopen, rebuild
    {"phase": "import", "vault": V, "source": S}    import S as documents and as an Obsidian vault

Answer: {"failures": [...], "ids": {...}, "problems": {...}, "caught": {...}}. A failure is an exception the
engine must never let out ("op: Type: message" and the traceback's last lines); ``caught`` counts the engine's
own errors (CuratorError: a sentence for the user), which are allowed where a file may refuse a change.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections import Counter
from pathlib import Path

from memory_curator.core.config import MemoryConfig
from memory_curator.core.errors import CuratorError
from memory_curator.core.service import MemoryService
from memory_curator.core.vault import codec, source_keys, yaml_handler

CONFIG = MemoryConfig(ollama_host="http://127.0.0.1:9", ollama_timeout_s=0.5)
SENTINEL = "SENTINELTOKEN"  # in every file outside the vault: never read, so never found
QUERIES = (SENTINEL, "garden tomatoes", "memory", "日本語", "kesä", "id", "---", "[[", "#tag", "\x00", "NOT OR AND")


class Run:
    def __init__(self) -> None:
        self.failures: list[str] = []
        self.caught: Counter[str] = Counter()

    def call(self, op: str, fn, *args, allowed: tuple[type[BaseException], ...] = (), **kwargs):
        """``fn`` must not raise, except ``allowed`` (counted)."""
        try:
            return fn(*args, **kwargs)
        except allowed as exc:
            self.caught[f"{op}: {type(exc).__name__}: {str(exc)[:70]}"] += 1
        except Exception as exc:  # noqa: BLE001 - what the suite is looking for
            tail = "".join(traceback.format_exception(exc)[-4:])
            self.failures.append(f"{op}: {type(exc).__name__}: {str(exc)[:300]}\n{tail[-1500:]}")
        return None


def _open(run: Run, vault: str) -> MemoryService | None:
    return run.call("open", MemoryService.open, vault, embedder="none", config=CONFIG)


def _listed(svc: MemoryService) -> dict[str, str]:
    return {m.id: m.file_path for m in svc.list_memories(limit=10_000)}


def read_phase(run: Run, vault: str, export: str) -> dict:
    svc = _open(run, vault)
    if svc is None:
        return {}
    ids: dict[str, str] = {}
    try:
        run.call("sync", svc.sync)
        run.call("rebuild", svc.rebuild_index, embed=False)
        ids = run.call("list", _listed, svc) or {}
        for order in ("updated", "created", "salience", "title", "session", "category", "access_count"):
            run.call(f"list {order}", svc.list_memories, order_by=order, limit=10_000)
        run.call("list_trash", svc.list_trash)
        for fn in (svc.count, svc.categories, svc.sessions, svc.keywords, svc.stats, svc.health, svc.problems):
            run.call(fn.__name__, fn)
        titles = [m.title for m in svc.list_memories(limit=50)] if ids else []
        for query in (*QUERIES, *titles[:5]):
            for mode in ("keyword", "hybrid", "semantic"):
                run.call(f"search {mode}", svc.search, query, mode=mode, record_access=False)
        for mid in ids:
            run.call("get", svc.get, mid)
            run.call("supersede_chain", svc.supersede_chain, mid)
            run.call("graph links", svc.graph.links, mid)
            run.call("graph neighbourhood", svc.graph.neighbourhood, mid)
            run.call("score", svc.get_score, mid)
        items = run.call("get_batch", svc.get_batch, list(ids)) or []
        if any(SENTINEL in (m.content + m.title + json.dumps(m.extra, default=str)) for m in items):
            run.failures.append("a file outside the vault was read into a memory")
        run.call("entities", svc.graph.entities)
        run.call("refresh_importance", svc.refresh_importance)
        run.call("export markdown", svc.export_memories, dest=Path(export) / "md")
        run.call("export json", svc.export_memories, format="json", dest=Path(export) / "all.json")
        run.call("export jsonl", svc.export_memories, format="jsonl", dest=Path(export) / "all.jsonl")
    finally:
        svc.close()
    again = _open(run, vault)
    if again is not None:
        try:
            after = run.call("list after reopen", _listed, again) or {}
            if after != ids:
                run.failures.append(f"reopen: the memories changed: {sorted(ids)} -> {sorted(after)}")
        finally:
            again.close()
    svc = _open(run, vault)
    problems = {p.path: p.reason for p in svc.problems()} if svc is not None else {}
    if svc is not None:
        svc.close()
    return {"ids": ids, "problems": problems}


def _keys_kept(old: bytes, new: bytes) -> None:
    """Every key the app does not know keeps its value and its source lines through pin, unpin, set_salience."""
    old_text, new_text = old.decode("utf-8"), new.decode("utf-8")
    args = {"default_category": "context", "default_id": "x", "fallback_title": "x"}
    was, now = codec.decode_memory(old_text, **args), codec.decode_memory(new_text, **args)
    assert now.extra == was.extra, f"unknown keys changed: {was.extra!r} -> {now.extra!r}"
    block = old_text.removeprefix("\ufeff")
    shape = source_keys.layout(yaml_handler.HANDLER.split(block)[0]) if yaml_handler.HANDLER.detect(block) else None
    for key, _, lines in shape.entries if shape is not None else ():
        assert key in codec.FORMAT_KEYS or lines in new_text, f"the lines of {key!r} changed: {lines!r}"


def write_phase(run: Run, vault: str) -> dict:
    svc = _open(run, vault)
    if svc is None:
        return {}
    try:
        ids = run.call("list", _listed, svc) or {}
        before = {mid: Path(path).read_bytes() for mid, path in ids.items()}
        for mid in ids:
            run.call("pin", svc.pin, mid, allowed=(CuratorError,))
            run.call("unpin", svc.unpin, mid, allowed=(CuratorError,))
            run.call("pin again", svc.pin, mid, allowed=(CuratorError,))
            run.call("set_salience", svc.set_salience, mid, 0.5, allowed=(CuratorError,))
            run.call("update keywords", svc.update, mid, keywords=["fuzz", "kept"], allowed=(CuratorError,))
        for mid, path in ids.items():
            now = run.call("get after writes", svc.get, mid)
            if now is None or now.file_path != path:
                run.failures.append(f"rewrite moved or lost {path} -> {now and now.file_path}")
            else:
                run.call("keys kept", _keys_kept, before[mid], Path(path).read_bytes())
        run.call("decay", svc.decay_salience, 0)
        saved = run.call("save", svc.save, "One more memory, saved beside the hostile files.")
        if saved is not None:
            run.call("update", svc.update, saved.id, keywords=["fuzz"])
        after = run.call("list after writes", _listed, svc) or {}
    finally:
        svc.close()
    again = _open(run, vault)
    if again is not None:
        try:
            run.call("rebuild after writes", again.rebuild_index, embed=False)
            reopened = run.call("list after reopen", _listed, again) or {}
            if reopened != after:
                run.failures.append(f"reopen after writes: {sorted(after)} -> {sorted(reopened)}")
        finally:
            again.close()
    return {"ids": after}


def import_phase(run: Run, vault: str, source: str) -> dict:
    svc = _open(run, vault)
    if svc is None:
        return {}
    try:
        report = run.call("import_paths", svc.import_paths, [source])
        run.call("sources preview", svc.sources.preview, source, format="obsidian")
        run.call("sources import", svc.sources.import_items, source, format="obsidian")
        run.call("sources import again", svc.sources.import_items, source, format="obsidian")
        ids = run.call("list", _listed, svc) or {}
        for mid in ids:
            run.call("get imported", svc.get, mid)
        imported = len(report.memory_ids) if report is not None else 0
    finally:
        svc.close()
    return {"ids": ids, "imported": imported}


PHASES = {"read": lambda run, r: read_phase(run, r["vault"], r["export"]),
          "write": lambda run, r: write_phase(run, r["vault"]),
          "import": lambda run, r: import_phase(run, r["vault"], r["source"])}


def main() -> None:
    sys.setrecursionlimit(10_000)  # as deep as a program embedding the engine may set it: the limits must hold
    for line in sys.stdin:
        request = json.loads(line)
        run = Run()
        try:
            answer = PHASES[request["phase"]](run, request)
        except Exception as exc:  # noqa: BLE001
            run.failures.append(f"{request['phase']}: {type(exc).__name__}: {exc}\n{traceback.format_exc()[-1500:]}")
            answer = {}
        sys.stdout.write(json.dumps({**answer, "failures": run.failures, "caught": dict(run.caught)},
                                    default=str) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
