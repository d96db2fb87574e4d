"""Git's conflict markers: the two (or, in diff3 style, three) versions git leaves in one file.

    <<<<<<< HEAD
    this machine's lines
    ||||||| base           (only with merge.conflictStyle = diff3 or zdiff3)
    the common ancestor's lines
    =======
    the other machine's lines
    >>>>>>> origin/main

Files come from other machines and other programs: this never raises, and a file whose markers do not
nest as git writes them is not taken for a conflict (its text is read as it is). Markers inside a fenced
code block are text (a memory about git quoting them), not a conflict.
"""

from __future__ import annotations

from dataclasses import dataclass

OPEN, BASE, SEP, CLOSE = "<<<<<<<", "|||||||", "=======", ">>>>>>>"
_FENCES = ("```", "~~~")


@dataclass(frozen=True)
class Sides:
    ours: str  # the file with this machine's side of every conflict (HEAD when merging)
    theirs: str  # ... with the other side
    base: str | None  # ... with the common ancestor's, when git wrote it (diff3); else None
    in_frontmatter: bool  # a conflict inside the --- block
    in_body: bool  # a conflict after it


def _marker(line: str, mark: str) -> bool:
    if not line.startswith(mark):
        return False
    rest = line[len(mark):].rstrip("\r\n")
    return rest == "" or (mark != SEP and rest[0] in " \t")


def has_markers(text: str) -> bool:
    return OPEN in text and split(text) is not None


def split(text: str) -> Sides | None:
    """The sides of ``text``, or None when it holds no well-formed conflict."""
    if OPEN not in text:
        return None
    ours: list[str] = []
    theirs: list[str] = []
    base: list[str] = []
    state = ""  # "" outside a conflict, else the side being read
    found = has_base = in_front = in_body = False
    front = "start"  # "start" -> "open" (inside the --- block) -> "done"
    fence = False
    for line in text.splitlines(keepends=True):  # a setext underline (=======) outside a conflict is text
        if state == "":
            if _marker(line, OPEN) and not fence:
                state, found = "ours", True
                in_front = in_front or front == "open"
                in_body = in_body or front != "open"
                continue
            stripped = line.strip()
            if front == "start" and stripped == "---":
                front = "open"
            elif front == "open" and stripped in ("---", "..."):
                front = "done"
            elif front != "open" and stripped.startswith(_FENCES):
                front = "done"
                fence = not fence
            else:
                front = "done" if front == "start" else front
            ours.append(line)
            theirs.append(line)
            base.append(line)
        elif state == "ours":
            if _marker(line, BASE):
                state, has_base = "base", True
            elif _marker(line, SEP):
                state = "theirs"
            elif _marker(line, OPEN) or _marker(line, CLOSE):
                return None
            else:
                ours.append(line)
        elif state == "base":
            if _marker(line, SEP):
                state = "theirs"
            elif any(_marker(line, m) for m in (OPEN, BASE, CLOSE)):
                return None
            else:
                base.append(line)
        else:  # theirs
            if _marker(line, CLOSE):
                state = ""
            elif any(_marker(line, m) for m in (OPEN, BASE, SEP)):
                return None
            else:
                theirs.append(line)
    if state or not found:
        return None
    return Sides("".join(ours), "".join(theirs), "".join(base) if has_base else None, in_front, in_body)
