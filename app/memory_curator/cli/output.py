"""Printing for the CLI: human text or ``--json``. Values become JSON through one function."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from memory_curator.core.contract.results import to_jsonable
from memory_curator.core.index.migrations import CREATING
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


def note(message: str) -> None:
    print(f"note: {message}", file=sys.stderr)


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
        f"accessed:   {counted(item.access_count, 'time')}",
        f"embedded:   {'yes, ' + counted(item.chunk_count, 'chunk') if item.embedded else 'no'}",
        f"file:       {item.file_path}",
        "",
        item.content,
    ]
    return "\n".join(lines)


def counted(n: int, noun: str) -> str:
    """``n`` and the noun that agrees with it: "1 memory", "2 memories", "0 files", "30 days"."""
    if n == 1:
        return f"{n} {noun}"
    return f"{n} {noun[:-1]}ies" if noun.endswith("y") and noun[-2:-1] not in "aeiou" else f"{n} {noun}s"


def result_line(rank: int, r: SearchResult) -> str:
    snippet = " ".join(r.matched_snippet.split())
    if len(snippet) > 160:
        snippet = snippet[:157] + "..."
    return f"{rank:>2}. {r.score:.3f}  {r.memory.title}  [{r.memory.category}]  {r.memory.id}\n    {snippet}"


class ProgressPrinter:
    """Progress of a long command on stderr (stdout stays the command's output, which scripts read). On a terminal
    one line kept up to date from the first call; elsewhere (a script, a cron or service log) nothing unless the work
    has taken ``after_s``, then a line for each new message and one every ``every_s`` while it lasts (``lines``:
    every message at once, a server's log). ``label`` comes before each message (the command's work: "rebuilding");
    ``items``: the messages name the items done (an import's files), so a log gets them every ``every_s`` only,
    not one line per file. ``finished``: said at the end with the time taken, if anything was said."""

    def __init__(self, label: str = "", stream: TextIO | None = None, *, items: bool = False, after_s: float = 1.0,
                 every_s: float = 10.0, lines: bool = False, clock: Callable[[], float] = time.monotonic,
                 finished: str | None = None):
        self._stream = stream or sys.stderr
        self._tty = not lines and self._stream.isatty()
        self._label, self._items = label, items
        self._after_s = 0.0 if lines else after_s
        self._every_s, self._clock, self._finished = every_s, clock, finished
        self._start = clock()
        self._message, self._since, self._printed, self._last = "", self._start, float("-inf"), self._start
        self._spoke, self._unsaid, self._written = False, "", ""  # unsaid: the last count a log did not get yet

    def __call__(self, done: int, total: int, message: str = "") -> None:
        now = self._last = self._clock()
        step = message != self._message and not self._items  # a new step of the work: a log says it at once
        if message != self._message:
            self._message, self._since = message, self._since if self._items else now
        took = now - self._since
        said = ": ".join(part for part in dict.fromkeys((self._label, message)) if part)  # "updating" once
        text = said + (f": {done:,} of {total:,}" if total else "") + (f" ({took:.0f} s)" if took >= 1 else "")
        if not self._tty and (now - self._start < self._after_s or (not step and now - self._printed < self._every_s)):
            self._unsaid = text if text != self._written else ""  # the same words again are nothing new
            return
        self._unsaid, self._written = "", text
        if self._tty:
            self._stream.write(f"\r{text[:200]}\x1b[K")
        else:
            self._stream.write(f"memory-curator: {text}\n")
        self._stream.flush()
        self._printed, self._spoke = now, True

    def finish(self, ok: bool = True) -> None:
        """At the end: ``finished`` with the time taken, if anything was said (``ok`` False: the terminal's line
        ends, the error follows)."""
        if not self._spoke:
            return
        if ok and self._finished:
            took = self._last - self._start
            self._stream.write(("\r" if self._tty else "memory-curator: ") + f"{self._finished} ({took:.0f} s)."
                               + ("\x1b[K\n" if self._tty else "\n"))
        elif self._unsaid and not self._tty:  # a log ends with the last count, not one up to ten seconds older
            self._stream.write(f"memory-curator: {self._unsaid}\n")
        elif self._tty:  # done: the line goes (its last count was not the end); failed: it stays above the error
            self._stream.write("\r\x1b[K" if ok else "\n")
        self._stream.flush()


class OpeningPrinter(ProgressPrinter):
    """What opening the vault does that takes long: an older index's migrations (46-98 s at 1,000,000 memories, load 5-8)."""

    def __init__(self, stream: TextIO | None = None, **options: Any):
        super().__init__("", stream, finished="The index is upgraded", **options)

    def __call__(self, done: int, total: int, message: str = "") -> None:
        if message.startswith(CREATING):  # a new index: its one line says it all, no "upgraded" after it
            self._finished = None
        super().__call__(done, total, message)
