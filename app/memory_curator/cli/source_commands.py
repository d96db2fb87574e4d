"""``import-from`` and ``export-claude-code``: the memories of other assistants in, curated memories back out.

``import-from SOURCE --list`` shows the items of a source and what each is in this vault; without ``--list``
it imports them (all, or those named with ``--item``). Exit codes as ``import``: 0 imported or updated
something, 1 nothing new, 2 an item failed, 130 interrupted (what was imported is kept).
"""

from __future__ import annotations

import argparse

from memory_curator.cli import output
from memory_curator.cli.registry import command, ctrl_c_cancels, open_service
from memory_curator.core.errors import ValidationError
from memory_curator.core.ingest.claude_code_export import LAYOUTS
from memory_curator.core.ingest.external import MODES
from memory_curator.core.ingest.report import FAILED
from memory_curator.core.ingest.sources import FORMATS

EXIT_NOTHING, EXIT_FAILED, EXIT_CANCELLED = 1, 2, 130


def _import_from_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("sources", nargs="+", metavar="SOURCE",
                   help="a Claude Code project or memory folder, a ChatGPT or Claude export (.zip or "
                        "conversations.json), mem0 get_all JSON, an Obsidian or basic-memory folder")
    p.add_argument("--list", action="store_true", help="list the items and what each is here; import nothing")
    p.add_argument("--item", action="append", dest="items", metavar="KEY",
                   help="import only this item (its key, as --list shows it); repeat for more")
    p.add_argument("--mode", choices=MODES, default="memory",
                   help="conversations: one memory each (memory) or one per message (turns)")
    p.add_argument("-c", "--category", default=None, help="category for the memories (default: the format's)")
    p.add_argument("--format", choices=FORMATS, default=None, help="the source's format, when not found from it")


@command("import-from", "list or import the memories of another assistant (Claude Code, ChatGPT, Claude, mem0, "
                        "Obsidian, basic-memory)", _import_from_args)
def cmd_import_from(args, vault, config):
    with open_service(args, vault, config) as svc:
        read = [svc.sources.read(path, args.format) for path in args.sources]
        if args.list:
            previews = [svc.sources.preview(src, mode=args.mode).as_dict() for src in read]
            if args.json:
                output.emit_json(previews if len(previews) > 1 else previews[0])
            else:
                for p in previews:
                    _print_preview(p)
            return 0
        if args.items and len(read) > 1:
            raise ValidationError("--item names items of one source: give one SOURCE with it.", field="item")
        with ctrl_c_cancels() as token:  # finish this item, then stop
            reports = []
            for src in read:
                bar = output.ProgressPrinter(f"importing {src.format}", items=True)
                reports.append(svc.sources.import_items(src, args.items, mode=args.mode, category=args.category,
                                                 progress=bar, cancel=token))
                bar.finish()
                if reports[-1].cancelled:
                    break
    if args.json:
        dicts = [r.as_dict() for r in reports]
        output.emit_json(dicts if len(dicts) > 1 else dicts[0])
    else:
        for r in reports:
            _print_report(r)
    if any(r.cancelled for r in reports):
        return EXIT_CANCELLED
    if any(it.status == FAILED for r in reports for it in r.items):
        return EXIT_FAILED
    return 0 if any(it.memory_ids or it.updated_ids for r in reports for it in r.items) else EXIT_NOTHING


def _print_preview(p: dict) -> None:
    print(f"{p['format']}: {p['path']} ({output.counted(len(p['items']), 'item')})")
    for it in p["items"]:
        when = (it["updated_at"] or it["created_at"] or "")[:10]
        size = f"{output.counted(it['messages'], 'message')}, " if it["messages"] else ""
        print(f"  {it['state']:<9} {when:<10} {size}{it['chars']:>7} chars  {it['title']}\n            key: {it['key']}")
    for prob in p["problems"]:
        output.warn(f"not readable: {prob['where']}: {prob['reason']}")
    for rel in p.get("not_read_in_place", []):
        output.warn(f"{rel} is at the top of the folder: opened as a vault it is not read (importing copies it)")


def _print_report(r) -> None:
    for it in r.items:
        if it.status == "imported":
            detail = output.counted(len(it.memory_ids), "memory") + (
                f", {len(it.updated_ids)} updated" if it.updated_ids else "")
        elif it.status == "updated":
            detail = f"{len(it.updated_ids)} updated"
        else:
            detail = it.error or ""
        print(f"{it.status:<9} {it.title}  ({detail})")
        for w in it.warnings:
            print(f"          warning: {w}")
    for prob in r.problems:
        output.warn(f"not readable: {prob['where']}: {prob['reason']}")
    d = r.as_dict()
    print(f"{r.format}: {output.counted(d['memory_count'], 'memory')} from "
          f"{output.counted(d['imported_items'], 'item')}; "
          f"{d['updated_items']} updated, "
          f"{d['skipped_items']} skipped, {d['failed_items']} failed" + ("; cancelled" if r.cancelled else ""))


def _export_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("dest", metavar="FOLDER", help="a Claude Code memory folder, or a project folder (claude-md)")
    p.add_argument("--id", action="append", dest="ids", metavar="ID", help="a memory to export; repeat for more")
    p.add_argument("-c", "--category", default=None, help="every memory of this category")
    p.add_argument("--layout", choices=LAYOUTS, default="memory",
                   help="memory: MEMORY.md and a topic file per memory; claude-md: one CLAUDE.md")
    p.add_argument("--replace", action="store_true",
                   help="replace the files there (they are moved to .memory-curator-backup/ first)")


@command("export-claude-code", "write chosen memories as Claude Code memory (MEMORY.md and topic files, or "
                               "CLAUDE.md)", _export_args)
def cmd_export_claude_code(args, vault, config):
    if not args.ids and not args.category:
        raise ValidationError("Choose the memories: --id ID (repeat it) or --category NAME.", field="ids")
    with open_service(args, vault, config) as svc:
        ids = list(args.ids or [])
        if args.category:
            # Most salient first: Claude Code reads only the top of MEMORY.md.
            ids += [m.id for m in svc.list_memories(category=args.category, limit=100_000, order_by="salience",
                                                    include_superseded=False)]
        report = svc.sources.export_claude_code(list(dict.fromkeys(ids)), args.dest, layout=args.layout,
                                        replace=args.replace)
    if args.json:
        output.emit_json(report)
    else:
        print(f"wrote {output.counted(report.count, 'memory')} to {report.path} ({', '.join(report.files[:5])}"
              f"{' ...' if len(report.files) > 5 else ''})")
        if report.backup:
            print(f"the files it replaced are in {report.backup}")
        for w in report.warnings:
            output.warn(w)
    return 0
