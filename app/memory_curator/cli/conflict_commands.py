"""`conflicts`: the vault's sync conflicts (git's markers, Syncthing / Dropbox / iCloud copies) listed, shown
side by side, and resolved: keep one version, keep both, or a merge edited in a file."""

from __future__ import annotations

import argparse
import difflib
from pathlib import Path

from memory_curator.cli import output
from memory_curator.cli.registry import command, open_service
from memory_curator.core.errors import ValidationError


def _conflicts_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", nargs="?", choices=("list", "show", "resolve"), default="list")
    p.add_argument("id", nargs="?", help="a memory id, or the path of either file")
    keep = p.add_mutually_exclusive_group()
    keep.add_argument("--keep", choices=("ours", "theirs", "both"),
                      help="ours: the listed version (this machine's); theirs: the other; both: the other "
                           "becomes a new memory, linked")
    keep.add_argument("--merged", type=Path, metavar="FILE",
                      help="a memory file holding the merge as it should be (start from `conflicts show ID`)")


@command("conflicts", "sync conflicts: list, show ID (both versions), resolve ID --keep ours|theirs|both or "
         "--merged FILE", _conflicts_args)
def cmd_conflicts(args, vault, config):
    with open_service(args, vault, config) as svc:
        if args.action == "list":
            found = svc.conflicts.list()
            if args.json:
                output.emit_json([c.as_dict() for c in found])
            for c in [] if args.json else found:
                where = f"{c.path} and {c.copy_path}" if c.copy_path else c.path
                print(f"{c.memory_id}  {c.title}  ({c.tool}: {where})")
            if not found and not args.json:
                print("no sync conflicts")
            return 0
        if not args.id:
            raise ValidationError(f"Give the id of a memory in conflict: `memory-curator conflicts {args.action} "
                                  "ID` (`memory-curator conflicts` lists them).", field="id")
        if args.action == "show":
            return _show(svc.conflicts.sides(args.id), args.json)
        if args.keep is None and args.merged is None:
            raise ValidationError("Say what to keep: --keep ours, --keep theirs, --keep both, or --merged FILE.",
                                  field="keep")
        merged = None
        if args.merged is not None:
            try:
                merged = args.merged.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ValidationError(f"Cannot read {args.merged}: {exc}", field="merged") from None
        res = svc.conflicts.resolve(args.id, args.keep or "merged", merged)
        if args.json:
            output.emit_json(res.as_dict())
        else:
            print(res.note + (f" New memory: {res.new_id}." if res.new_id else ""))
            print("the replaced files are in the vault's trash (`memory-curator trash`)")
        return 0


def _show(sides, as_json: bool) -> int:
    c = sides.conflict
    fields = [{"field": f.name, "ours": output.to_jsonable(f.ours), "theirs": output.to_jsonable(f.theirs),
               "merge": f.taken} for f in (sides.merge.fields if sides.merge else ())]
    if as_json:
        output.emit_json({**c.as_dict(), "ours": {"label": sides.ours.label, "text": sides.ours.text},
                          "theirs": {"label": sides.theirs.label, "text": sides.theirs.text},
                          "fields": fields, "automatic": sides.automatic, "proposal": sides.proposal})
        return 0
    print(f"{c.title}  ({c.tool})\n  ours:   {sides.ours.label}\n  theirs: {sides.theirs.label}\n")
    for f in fields:
        if f["field"] != "content":
            print(f"  {f['field']}: ours {f['ours']!r}  theirs {f['theirs']!r}  -> {f['merge']}")
    ours = sides.ours.item.content if sides.ours.item else sides.ours.text
    theirs = sides.theirs.item.content if sides.theirs.item else sides.theirs.text
    diff = difflib.unified_diff(ours.splitlines(keepends=True), theirs.splitlines(keepends=True), "ours", "theirs")
    text = "".join(diff)
    print("\n" + (text if text.endswith("\n") else text + "\n") if text else "\n  the text is the same")
    return 0
