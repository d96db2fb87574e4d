"""Claude Code's project memory: ``CLAUDE.md`` files and the auto-memory folder.

Claude Code reads instructions from ``CLAUDE.md`` (``./CLAUDE.md``, ``./.claude/CLAUDE.md``, ``CLAUDE.local.md``,
``.claude/rules/*.md``; ``~/.claude/CLAUDE.md`` for every project) and keeps its own notes in a memory folder
(``~/.claude/projects/<project>/memory/``): ``MEMORY.md``, an index it loads at every start (the first 200
lines), and topic files it opens when they matter, often with frontmatter (``name``, ``description``,
``type``).

Read: each section of a ``CLAUDE.md`` or ``MEMORY.md`` (split at the shallowest heading level that occurs more
than once) is an item, and each topic file is one; a ``MEMORY.md`` line that only points to a topic file of
the folder is left out (the topic file is imported itself). Topic files' frontmatter gives the title
(``name``), summary (``description``) and a keyword (``type``) and is kept in ``provenance``. ``@path``
imports are kept as text, not followed. A project's instructions get ``scope: project``; the user's
(``~/.claude/``) ``scope: global``.

Files written by ``claude_code_export`` carry each memory's id (and the fingerprint of the text written), so
importing them again updates those memories instead of adding copies.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from memory_curator.core.ingest.external import (
    ImportOptions,
    Source,
    SourceItem,
    item_id,
    memory_fields,
)
from memory_curator.core.ingest.reading import decode_text, read_bytes
from memory_curator.core.ingest.report import ImportFileError
from memory_curator.core.vault.codec import FrontmatterError, split_frontmatter

INSTRUCTION_FILES = ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md")
INDEX = "MEMORY.md"
MAX_FILE_BYTES = 10 * 1024 * 1024
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"\[[^\]]*\]\(<?([^)>\s]+\.md)>?\)")
_MARK = re.compile(r"^<!--\s*memory-curator\s+id=(\S+)\s+fingerprint=(\S+)\s*-->\s*$")
_MARK_LINE = re.compile(r"^<!--\s*memory-curator\s+id=", re.M)
# Levels a CLAUDE.md export pushes a memory's own headings down, so its sections stay the only ## ones.
DEMOTE = 2


def is_claude_code(path: Path) -> bool:
    if path.is_file():
        return path.name in ("CLAUDE.md", "CLAUDE.local.md", INDEX) or (path.parent / INDEX).is_file()
    return path.is_dir() and (any((path / f).is_file() for f in (*INSTRUCTION_FILES, INDEX))
                              or (path / ".claude" / "rules").is_dir())


def collect(path: Path) -> tuple[Path, list[Path]]:
    """(the folder keys are relative to, the files to read, index first)."""
    if path.is_file():
        return path.parent, [path]
    if (path / INDEX).is_file():
        topics = sorted(p for p in path.glob("*.md") if p.name != INDEX and p.is_file() and not p.is_symlink())
        return path, [path / INDEX, *topics]
    files = [path / f for f in INSTRUCTION_FILES if (path / f).is_file()]
    rules = path / ".claude" / "rules"
    if rules.is_dir():
        files += sorted(p for p in rules.rglob("*.md") if p.is_file() and not p.is_symlink())
    return path, files


def read_claude_code(path: Path) -> Source:
    root, files = collect(path)
    topic_names = {p.name.lower() for p in files if p.name != INDEX and (root / INDEX).is_file()}
    items: list[SourceItem] = []
    problems: list[dict[str, str]] = []
    for file in files:
        rel = file.relative_to(root).as_posix()
        try:
            text, _ = decode_text(read_bytes(file, MAX_FILE_BYTES))
        except ImportFileError as exc:
            problems.append({"where": rel, "reason": str(exc)})
            continue
        scope = _scope(file)
        if file.name in ("CLAUDE.md", "CLAUDE.local.md", INDEX) or file.parent.name == "rules":
            items += _section_items(rel, text, scope, topic_names if file.name == INDEX else set())
        else:
            try:
                items.append(_topic_item(rel, text, scope))
            except FrontmatterError as exc:
                problems.append({"where": rel, "reason": f"has a broken frontmatter ({exc})"})
    return Source(format="claude-code", path=str(path), items=items, problems=problems,
                  to_memories=lambda item, options: [_memory(str(path), item, options)])


def _scope(file: Path) -> str:
    home = Path.home() / ".claude"
    return "global" if file.parent in (home, home / "rules") else "project"


# -- sections -----------------------------------------------------------------------------------------


def headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line number, level, text) of each heading outside code blocks."""
    out = []
    fenced = False
    for n, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else _HEADING.match(line)
        if m:
            out.append((n, len(m.group(1)), m.group(2).strip()))
    return out


def split_sections(text: str, level: int | None = None) -> tuple[str | None, list[tuple[str | None, str]]]:
    """(the file's title, [(section heading, or None for the text before the first one, body)]). Sections
    start at ``level``, by default the shallowest heading level that occurs more than once; a shallower
    heading (the file's title) only ends the section before it."""
    lines = text.splitlines()
    found = headings(lines)
    levels = [lvl for _, lvl, _ in found]
    split_at = level or min((lvl for lvl in set(levels) if levels.count(lvl) > 1), default=None)
    if split_at is None:  # one section; a heading on its first line is the file's title
        first = next((n for n, ln in enumerate(lines) if ln.strip()), None)
        top = found[0] if found and found[0][0] == first else None
        body = "\n".join(ln for n, ln in enumerate(lines) if top is None or n != top[0]).strip()
        return (top[2] if top else None), ([(None, body)] if body else [])
    title = next((t for _, lvl, t in found if lvl < split_at), None)
    starts = {n: (lvl, t) for n, lvl, t in found if lvl <= split_at}
    sections: list[tuple[str | None, str]] = []
    heading: str | None = None
    buf: list[str] = []
    for n, line in enumerate([*lines, None]):
        if line is not None and n not in starts:
            buf.append(line)
            continue
        body = "\n".join(buf).strip()
        if body:
            sections.append((heading, body))
        if line is not None:
            lvl, t = starts[n]
            heading, buf = (t if lvl == split_at else None), []
    return title, sections


def _section_items(rel: str, text: str, scope: str, topic_names: set[str]) -> list[SourceItem]:
    try:
        meta, body = split_frontmatter(text)
    except FrontmatterError:
        meta, body = None, text
    # An export of ours has one ## section per memory, even when it holds one memory.
    title, sections = split_sections(body, level=2 if _MARK_LINE.search(body) else None)
    name = title or Path(rel).stem
    items = []
    seen: dict[str, int] = {}
    for heading, section in sections:
        section = _without_pointers(section, topic_names)
        mark = None
        first, _, rest = section.partition("\n")
        m = _MARK.match(first.strip())
        if m:  # written by our export: the memory it came from
            mark = (m.group(1), m.group(2))
            section = promote(rest.strip())
        if not section.strip():
            continue
        label = heading or name
        seen[label] = seen.get(label, 0) + 1
        key = f"{rel}#{label}" + (f" ({seen[label]})" if seen[label] > 1 else "")
        items.append(SourceItem(
            key=key, title=label if heading else (title or name), kind="section", chars=len(section),
            where=f"{rel} § {label}" if heading else rel,
            payload={"text": section, "file": rel, "scope": scope, "mark": mark, "frontmatter": meta}))
    return items


def _without_pointers(section: str, topic_names: set[str]) -> str:
    """A MEMORY.md section without the lines that only point to a topic file of the folder."""
    if not topic_names:
        return section
    kept = []
    for line in section.splitlines():
        links = _LINK.findall(line)
        if links and all(Path(link).name.lower() in topic_names for link in links) and _only_pointer(line):
            continue
        kept.append(line)
    if all(_HEADING.match(ln) for ln in kept if ln.strip()):
        return ""  # only the headings the pointers were grouped under
    return "\n".join(kept).strip()


def _only_pointer(line: str) -> bool:
    """A list item (or a bare line) made of a link and a short description of it."""
    return bool(re.match(r"^\s*([-*+]|\d+\.)?\s*\[", line))


def demote(text: str, levels: int = DEMOTE) -> str:
    return _shift(text, levels)


def promote(text: str) -> str:
    return _shift(text, -DEMOTE)


def _shift(text: str, by: int) -> str:
    out = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        m = None if fenced else _HEADING.match(line)
        if m:
            line = "#" * min(6, max(1, len(m.group(1)) + by)) + " " + m.group(2).strip()
        out.append(line)
    return "\n".join(out)


# -- topic files --------------------------------------------------------------------------------------


def _topic_item(rel: str, text: str, scope: str) -> SourceItem:
    meta, body = split_frontmatter(text)
    meta = meta if isinstance(meta, dict) else {}
    title, sections = split_sections(body)
    name = str(meta.get("name") or "").strip() or title or Path(rel).stem.replace("_", " ").replace("-", " ")
    mark = None
    if meta.get("memory_curator_id") and meta.get("memory_curator_fingerprint"):
        mark = (str(meta["memory_curator_id"]), str(meta["memory_curator_fingerprint"]))
    body = body.strip()
    return SourceItem(key=rel, title=name, kind="topic", chars=len(body), where=rel,
                      payload={"text": body, "file": rel, "scope": scope, "mark": mark, "frontmatter": meta})


# -- memories -----------------------------------------------------------------------------------------


def _memory(path: str, item: SourceItem, options: ImportOptions) -> dict[str, Any]:
    p = item.payload
    meta = {k: v for k, v in (p["frontmatter"] or {}).items() if not str(k).startswith("memory_curator_")}
    prov: dict[str, Any] = {"importer": "claude-code", "source": path, "file": p["file"], "key": item.key}
    if meta:
        prov["frontmatter"] = meta
    fields: dict[str, Any] = {"scope": p["scope"]}
    kind = meta.get("type") if item.kind == "topic" else None
    if item.kind == "topic" and isinstance(meta.get("description"), str) and meta["description"].strip():
        fields["summary"] = meta["description"].strip()
    mid = item_id("claude-code", item.key)
    if p["mark"]:
        mid = p["mark"][0]
        fields["_base_fingerprint"] = p["mark"][1]
    return memory_fields(mid, item.title, p["text"], options.category or "context", prov,
                         keywords=[str(kind)] if isinstance(kind, str) and kind.strip() else [], **fields)
