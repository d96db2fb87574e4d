"""Printing for the CLI: human text or ``--json``. Values become JSON through one function."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from memory_curator.core.contract.results import to_jsonable
from memory_curator.core.model import NOT_EMBEDDED_YET, MemoryItem, SearchResult


def emit_json(value: Any) -> None:
    json.dump(to_jsonable(value), sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def error(message: str, as_json: bool, code: str = "ERROR") -> None:
    if as_json:
        json.dump({"error": {"code": code, "message": message}}, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(f"memory-curator: {message}", file=sys.stderr)


def silence_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real file (tests capture it): nothing will be flushed to a closed pipe
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


# What a command-line user can do about a warning the engine gives with a code (see model.Notice).
NEXT_STEPS = {NOT_EMBEDDED_YET: "Run `memory-curator reindex` to embed them now "
                                "(a command embeds in the background only while it runs)."}


def warn(message: str) -> None:
    step = NEXT_STEPS.get(getattr(message, "code", ""))
    print(f"warning: {message}{' ' + step if step else ''}", file=sys.stderr)


def item_line(item: MemoryItem) -> str:
    flag = "" if item.embedded else "  (not embedded)"
    return f"{item.id}  [{item.category}]  {item.salience:.2f}  {item.title}{flag}"


def item_full(item: MemoryItem) -> str:
    lines = [
        f"id:         {item.id}",
        f"title:      {item.title}",
        f"category:   {item.category}",
        f"salience:   {item.salience:.2f}",
        f"keywords:   {', '.join(item.keywords) or '-'}",
        f"session:    {item.session_id or '-'}",
        f"source:     {item.source}",
        f"created:    {item.created_at.isoformat()}",
        f"updated:    {item.updated_at.isoformat()}",
        f"accessed:   {item.access_count} times",
        f"embedded:   {f'yes, {item.chunk_count} chunk(s)' if item.embedded else 'no'}",
        f"file:       {item.file_path}",
        "",
        item.content,
    ]
    return "\n".join(lines)


def result_line(rank: int, r: SearchResult) -> str:
    snippet = " ".join(r.matched_snippet.split())
    if len(snippet) > 160:
        snippet = snippet[:157] + "..."
    return f"{rank:>2}. {r.score:.3f}  {r.memory.title}  [{r.memory.category}]  {r.memory.id}\n    {snippet}"


class ProgressPrinter:
    """A one-line progress display on stderr for long commands (silent when stderr is not a terminal)."""

    def __init__(self, label: str):
        self.label = label
        self.tty = sys.stderr.isatty()

    def __call__(self, done: int, total: int, message: str = "") -> None:
        if self.tty and total:
            sys.stderr.write(f"\r{self.label}: {done}/{total} {message}   ")
            sys.stderr.flush()

    def finish(self) -> None:
        if self.tty:
            sys.stderr.write("\n")
