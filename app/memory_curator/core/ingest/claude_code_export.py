"""Curated memories written back for Claude Code, so what is curated here is what the assistant remembers.

Two layouts:

- ``memory`` (a memory folder, e.g. ``~/.claude/projects/<project>/memory/``): one topic file per memory, with
  the frontmatter Claude Code's own topic files use (``name``, ``description``, ``type``), and ``MEMORY.md``,
  the index Claude Code loads at every start: one line per memory, grouped by category, pointing to its file.
- ``claude-md``: one ``CLAUDE.md`` with a ``##`` section per memory (the memory's own headings pushed two
  levels down, so the sections stay apart).

Each topic file or section carries the memory's id and the fingerprint of the text written, so importing the
folder again (after Claude Code edited it) updates those memories instead of adding copies. Files already
there are never overwritten silently: ``replace=True`` moves them into ``.memory-curator-backup/<time>/``
first.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from memory_curator.core.errors import MemoryNotFoundError, ValidationError
from memory_curator.core.ingest import claude_code
from memory_curator.core.ingest.external import fingerprint, short_title
from memory_curator.core.model import MemoryItem, utcnow
from memory_curator.core.vault.files import atomic_write_text
from memory_curator.core.vault.slug import slugify

LAYOUTS = ("memory", "claude-md")
INDEX_LINES = 200  # Claude Code loads this much of MEMORY.md at start
TYPES = ("user", "feedback", "project", "reference")  # the kinds of Claude Code's own topic files
BACKUP = ".memory-curator-backup"


@dataclass
class ClaudeCodeExport:
    path: str
    layout: str
    count: int = 0
    files: list[str] = field(default_factory=list)
    backup: str | None = None
    warnings: list[str] = field(default_factory=list)


def export_memories(get_many: Callable[[Sequence[str]], dict[str, MemoryItem]], memory_ids: Sequence[str],
                    dest: Path, layout: str = "memory", *, replace: bool = False) -> ClaudeCodeExport:
    """``write_claude_code`` for memories named by id, in the order given (an unknown id writes nothing)."""
    found = get_many(list(memory_ids))
    missing = [mid for mid in memory_ids if mid not in found]
    if missing:
        raise MemoryNotFoundError(missing[0])
    return write_claude_code([found[mid] for mid in dict.fromkeys(memory_ids)], dest, layout, replace=replace)


def write_claude_code(items: Sequence[MemoryItem], dest: Path, layout: str = "memory", *,
                      replace: bool = False) -> ClaudeCodeExport:
    if layout not in LAYOUTS:
        raise ValidationError(f"Unknown layout {layout!r}: use {' or '.join(LAYOUTS)}.", field="layout")
    dest = Path(dest).expanduser()
    if dest.exists() and not dest.is_dir():
        raise ValidationError(f"{dest} is a file: give the folder to write into.", field="dest")
    mine = ["CLAUDE.md"] if layout == "claude-md" else sorted(p.name for p in dest.glob("*.md")) if dest.exists() else []
    taken = [name for name in mine if (dest / name).exists()]
    report = ClaudeCodeExport(str(dest.resolve()), layout, len(items))
    if taken:
        if not replace:
            raise ValidationError(
                f"{dest} already holds {', '.join(taken[:3])}{' ...' if len(taken) > 3 else ''}: replace them "
                f"(their current versions are moved to {BACKUP}/) or choose an empty folder.", field="dest")
        report.backup = str(_back_up(dest, taken))
    dest.mkdir(parents=True, exist_ok=True)
    if layout == "memory":
        _write_memory_folder(items, dest, report)
    else:
        _write(dest / "CLAUDE.md", claude_md(items), report)
    return report


def _back_up(dest: Path, names: list[str]) -> Path:
    folder = dest / BACKUP / utcnow().strftime("%Y%m%d-%H%M%S")
    n = 1
    while folder.exists():
        n += 1
        folder = folder.with_name(f"{folder.name.split('_')[0]}_{n}")
    folder.mkdir(parents=True)
    for name in names:
        shutil.move(str(dest / name), str(folder / name))
    return folder


def _write(path: Path, text: str, report: ClaudeCodeExport) -> None:
    atomic_write_text(path, text)
    report.files.append(path.name)


def _kind(item: MemoryItem) -> str:
    for kw in item.keywords:
        if kw.lower() in TYPES:
            return kw.lower()
    front = (item.provenance or {}).get("frontmatter")
    kind = front.get("type") if isinstance(front, dict) else None
    return kind if kind in TYPES else "project"


def _description(item: MemoryItem) -> str:
    text = item.summary or item.content
    return short_title(" ".join(text.split()), item.title)


def topic_file(item: MemoryItem) -> str:
    meta = {"name": item.title, "description": _description(item), "type": _kind(item),
            "memory_curator_id": item.id, "memory_curator_fingerprint": fingerprint(item.content)}
    head = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, default_flow_style=False, width=10_000)
    return f"---\n{head}---\n\n{item.content.strip()}\n"


def _write_memory_folder(items: Sequence[MemoryItem], dest: Path, report: ClaudeCodeExport) -> None:
    names: dict[str, str] = {}
    used: set[str] = {claude_code.INDEX.lower()}
    for item in items:
        stem = slugify(item.title)
        name, n = f"{stem}.md", 1
        while name.lower() in used:
            n += 1
            name = f"{stem}_{n}.md"
        used.add(name.lower())
        names[item.id] = name
        _write(dest / name, topic_file(item), report)
    lines = ["# Memory", ""]
    by_category: dict[str, list[MemoryItem]] = {}
    for item in items:
        by_category.setdefault(item.category, []).append(item)
    for category, members in by_category.items():
        lines += [f"## {category}", ""]
        lines += [f"- [{_link_text(it.title)}]({names[it.id]}): {_description(it)}" for it in members]
        lines.append("")
    index = "\n".join(lines).rstrip() + "\n"
    if index.count("\n") > INDEX_LINES:
        report.warnings.append(
            f"MEMORY.md has {index.count(chr(10))} lines: Claude Code loads the first {INDEX_LINES} at start, so "
            "it does not see the entries after them; export fewer memories or consolidate some.")
    _write(dest / claude_code.INDEX, index, report)


def _link_text(title: str) -> str:
    return title.replace("[", "(").replace("]", ")")


def claude_md(items: Sequence[MemoryItem]) -> str:
    parts = ["# Memory", ""]
    for item in items:
        body = claude_code.demote(item.content.strip())
        # What importing the section gives back: the fingerprint the next import compares with.
        read_back = fingerprint(claude_code.promote(body))
        parts += [f"## {' '.join(item.title.split())}",
                  f"<!-- memory-curator id={item.id} fingerprint={read_back} -->", "", body, ""]
    return "\n".join(parts).rstrip() + "\n"
