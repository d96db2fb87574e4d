"""`history`, `diff` and `restore-version`: a memory's versions when the vault is a git repository; and
`inbox` to review what LLM clients wrote."""

from __future__ import annotations

import argparse

from memory_curator.cli import output
from memory_curator.cli.registry import command, open_service
from memory_curator.core.inbox import Provenance


def _history_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", nargs="?")
    p.add_argument("--init", action="store_true", help="make the vault a git repository (turns history on)")


@command("history", "list a memory's versions (the vault must be a git repository)", _history_args)
def cmd_history(args, vault, config):
    with open_service(args, vault, config) as svc:
        if args.init:
            commit = svc.versions.enable()
            print(f"history is on for {svc.vault.root}" + (f" (first commit {commit[:10]})" if commit else ""))
            if not args.id:
                return 0
        if not args.id:
            output.error("Give a memory id (or --init).", args.json, code="VALIDATION_ERROR")
            return 2
        versions = svc.versions.of(args.id)
        if args.json:
            output.emit_json([{"number": i, **output.to_jsonable(v)} for i, v in enumerate(versions, start=1)])
            return 0
        for i, v in enumerate(versions, start=1):
            print(f"{i:>3}  {v.commit[:10]}  {v.when:%Y-%m-%d %H:%M}  {v.message}")
        return 0 if versions else 1


def _diff_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    p.add_argument("old", help="version number from `history` (1 = newest) or commit id")
    p.add_argument("new", nargs="?", help="another version (default: the file as it is now)")


@command("diff", "show what changed in a memory between two versions", _diff_args)
def cmd_diff(args, vault, config):
    with open_service(args, vault, config) as svc:
        text = svc.versions.diff(args.id, args.old, args.new)
        output.emit_json({"diff": text}) if args.json else print(text or "no differences", end="" if text else "\n")


def _restore_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    p.add_argument("version", help="version number from `history` (1 = newest) or commit id")


@command("restore-version", "make an old version of a memory the current one (a new change, itself undoable)",
         _restore_args)
def cmd_restore_version(args, vault, config):
    with open_service(args, vault, config) as svc:
        item = svc.versions.restore(args.id, args.version)
        output.emit_json(item) if args.json else print(f"restored version {args.version}: {output.item_line(item)}")


def _inbox_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", nargs="?", choices=("list", "approve", "reject", "on", "off"), default="list",
                   help="on/off: whether new memories from LLM clients wait for review (a vault setting)")
    p.add_argument("ids", nargs="*")


@command("inbox", "review memories written by LLM clients: list, approve IDS, reject IDS, on, off", _inbox_args)
def cmd_inbox(args, vault, config):
    with open_service(args, vault, config) as svc:
        if args.action in ("on", "off"):
            svc.inbox.set_enabled(args.action == "on")
            print(f"review inbox {args.action} for {svc.vault.root}")
            return 0
        if args.action == "list":
            items = svc.inbox.items()
            if args.json:
                output.emit_json([{**output.to_jsonable(it), "provenance": output.to_jsonable(Provenance.of(it))}
                                  for it in items])
                return 0
            for it in items:
                p = Provenance.of(it)
                print(f"{output.item_line(it)}  from {p.client or '?'} session {p.session or '-'} at {p.time}")
            if not items:
                print("the review inbox is empty" + ("" if svc.inbox.enabled else " (and off: `inbox on`)"))
            return 0
        action = svc.inbox.approve(args.ids) if args.action == "approve" else svc.inbox.reject(args.ids)
        done = {"approve": "approved", "reject": "moved to the trash"}[action.kind]
        output.emit_json({"action": action.kind, "ids": action.ids}) if args.json else print(
            f"{done}: {output.counted(len(action.ids), 'memory')}")
