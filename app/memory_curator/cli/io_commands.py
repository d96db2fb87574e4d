"""``import`` and ``export``: files and folders in, a markdown tree or JSON out.

``import`` exits 0 when memories were imported or updated and no file failed, 1 when there was nothing new
to import (a file imported before and unchanged since is skipped),
2 when a file failed (the others are still imported; each file's result is printed), 130 when interrupted
(what was imported is kept).
"""

from __future__ import annotations

import argparse

from memory_curator.cli import output
from memory_curator.cli.registry import command, ctrl_c_cancels, open_service
from memory_curator.core.ingest.exports import FORMATS

EXIT_NOTHING, EXIT_FAILED, EXIT_CANCELLED = 1, 2, 130


def _import_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="markdown, text, PDF, JSON/JSONL export files, or folders of them")
    p.add_argument("-c", "--category", default=None,
                   help="category for imported documents (default: context); memories from this app keep theirs")
    p.add_argument("--replace-edited", action="store_true",
                   help="a file imported before that changed, while its memories were edited here too, replaces "
                        "those edits (without it such a file is skipped and says so)")


@command("import", "import files and folders (markdown, text, PDF, JSON/JSONL exports)", _import_args)
def cmd_import(args, vault, config):
    with ctrl_c_cancels() as token, open_service(args, vault, config) as svc:  # Ctrl-C: finish this file, then stop
        bar = output.ProgressPrinter("importing", items=True)
        report = svc.import_paths(args.paths, category=args.category, progress=bar, cancel=token,
                                  replace_edited=args.replace_edited)
        bar.finish()
    if args.json:
        output.emit_json(report.as_dict())
    else:
        for f in report.files:
            detail = {"imported": output.counted(len(f.memory_ids), "memory"),
                      "updated": f"{output.counted(len(f.updated_ids), 'memory')} took the file's new text"}.get(
                f.status, f.error)
            print(f"{f.status:<9} {f.path}  ({detail})")
            for w in f.warnings:
                print(f"          warning: {w}")
        d = report.as_dict()
        updated = f"{d['updated_files']} updated, " if d["updated_files"] else ""
        print(f"{output.counted(d['memory_count'], 'memory')} from {output.counted(d['imported_files'], 'file')}; "
              f"{updated}{d['skipped_files']} skipped, "
              f"{d['failed_files']} failed" + ("; cancelled" if report.cancelled else ""))
    if report.cancelled:
        return EXIT_CANCELLED
    if report.failed:
        return EXIT_FAILED
    return 0 if report.memory_ids or report.count("updated") else EXIT_NOTHING


def _export_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("-c", "--category", default=None, help="only this category (default: all)")
    p.add_argument("-f", "--format", choices=FORMATS, default="markdown",
                   help="markdown: a folder laid out like the vault; json or jsonl: one file")
    p.add_argument("-o", "--out", required=True, help="a new or empty folder (markdown) or a new file")


@command("export", "export memories to a markdown folder or a JSON/JSONL file", _export_args)
def cmd_export(args, vault, config):
    with open_service(args, vault, config) as svc:
        report = svc.export_memories(category=args.category, format=args.format, dest=args.out)
    if args.json:
        output.emit_json(report)
    else:
        print(f"exported {output.counted(report.count, 'memory')} to {report.path}")
        for p in report.problems:
            output.warn(f"skipped unreadable file {p['path']}: {p['reason']}")
    return 0
