"""Lifecycle commands: importance scores, decay, pinning, supersede, cleanup, consolidation, the trash,
expiry and batch updates. Each prints a line per memory, or JSON with ``--json``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from memory_curator.cli import output, upkeep_note
from memory_curator.cli.registry import command, open_service
from memory_curator.core.errors import ValidationError
from memory_curator.core.lifecycle.batches import MODES


def _emit(args, data, lines) -> None:
    if args.json:
        output.emit_json(data)
    else:
        for line in lines:
            print(line)


def _score_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("get", "set"))
    p.add_argument("id")
    p.add_argument("value", nargs="?", help="for set: a number 0..1, or 'none' to return to the formula")


@command("score", "show a memory's importance and its parts, or set it by hand", _score_args)
def cmd_score(args, vault, config):
    with open_service(args, vault, config) as svc:
        if args.action == "set":
            if args.value is None:
                raise ValidationError("score set needs a value: a number between 0 and 1, or 'none'.", field="value")
            s = svc.set_score(args.id, None if args.value.lower() == "none" else _number(args.value))
        else:
            s = svc.get_score(args.id)
        manual = f"  (set by hand; formula {s.computed:.3f})" if s.override is not None else ""
        _emit(args, s, [
            f"importance {s.importance:.3f}{manual}",
            f"  frequency {s.access_frequency:.3f} ({output.counted(s.recent_accesses, 'recall')} in "
            f"{output.counted(config.access_log_days, 'day')})"
            f"  recency {s.recency:.3f}  age {s.age_factor:.3f}",
        ])


def _number(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise ValidationError(f"{value!r} is not a number between 0 and 1.", field="value") from None


def _decay_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--days", type=int, default=None, help="decay memories unused for this many days (default 7)")


@command("decay", "lower the salience of unused memories by their category's rate", _decay_args)
def cmd_decay(args, vault, config):
    with open_service(args, vault, config) as svc:
        n = svc.decay_salience(args.days)
        _emit(args, {"decayed": n}, [f"decayed {output.counted(n, 'memory')}"])


def _pin_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    p.add_argument("--floor", type=float, default=None, help="lowest salience it may decay to (default: now)")


@command("pin", "keep a memory: it never decays below its floor and cleanup skips it", _pin_args)
def cmd_pin(args, vault, config):
    with open_service(args, vault, config) as svc:
        item = svc.pin(args.id, args.floor)
        _emit(args, item, [f"pinned {item.id} at floor {item.salience_floor:.2f}"])


@command("unpin", "let a pinned memory decay again", lambda p: p.add_argument("id"))
def cmd_unpin(args, vault, config):
    with open_service(args, vault, config) as svc:
        item = svc.unpin(args.id)
        _emit(args, item, [f"unpinned {item.id}"])


def _supersede_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("old_id", help="the memory that is no longer true")
    p.add_argument("new_id", help="the memory that replaces it")


@command("supersede", "mark a memory as replaced by another (kept, hidden from default search)", _supersede_args)
def cmd_supersede(args, vault, config):
    with open_service(args, vault, config) as svc:
        old, new = svc.supersede(args.old_id, args.new_id)
        _emit(args, {"old": old, "new": new}, [f"{old.id} is superseded by {new.id}"])


@command("versions", "the supersede chain of a memory, oldest first", lambda p: p.add_argument("id"))
def cmd_versions(args, vault, config):
    with open_service(args, vault, config) as svc:
        chain = svc.supersede_chain(args.id)
        _emit(args, chain, [output.item_line(it) + ("  (superseded)" if it.superseded_by else "") for it in chain])


def _cleanup_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--min-salience", type=float, default=None, help="threshold (default 0.1)")


@command("cleanup", "move unpinned memories below a salience threshold to the trash", _cleanup_args)
def cmd_cleanup(args, vault, config):
    with open_service(args, vault, config) as svc:
        n = svc.cleanup(args.min_salience)
        _emit(args, {"trashed": n}, [f"moved {output.counted(n, 'memory')} to the trash"])


@command("clear-expired", "move memories whose expires_at has passed to the trash")
def cmd_clear_expired(args, vault, config):
    with open_service(args, vault, config) as svc:
        n = svc.clear_expired()
        _emit(args, {"trashed": n}, [f"moved {output.counted(n, 'expired memory')} to the trash"])


def _consolidate_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("ids", nargs="*", help="2 to 50 memory ids (or use --query)")
    p.add_argument("-q", "--query", help="consolidate the best hits of this search instead")
    p.add_argument("-n", "--limit", type=int, default=10, help="how many hits of --query (default 10)")
    p.add_argument("-t", "--title")
    p.add_argument("-c", "--category")
    p.add_argument("--trash-originals", action="store_true", help="move the originals to the trash")
    p.add_argument("--preview", action="store_true", help="show the summary without writing anything")
    p.add_argument("--undo", metavar="SUMMARY_ID",
                   help="take a consolidation back: its originals return, the summary goes to the trash")


@command("consolidate", "merge 2..50 memories into one extractive summary", _consolidate_args)
def cmd_consolidate(args, vault, config):
    ids = args.ids or None
    with open_service(args, vault, config) as svc:
        if args.undo:
            back = svc.undo_consolidation(args.undo)
            _emit(args, {"restored": [it.id for it in back], "trashed": args.undo},
                  [*(output.item_line(it) for it in back),
                   f"{output.counted(len(back), 'memory')} back; the summary is in the trash"])
            return
        searches = []  # --query's search (the service's default mode), for the upkeep note after the answer
        if args.preview:
            p = svc.preview_consolidation(ids, query=args.query, limit=args.limit, title=args.title,
                                          category=args.category, searched=searches.append)
            _emit(args, p, [f"{p.title}  [{p.category}]  from {len(p.source_ids)} memories", "", p.content])
        else:
            r = svc.consolidate(ids, query=args.query, limit=args.limit, title=args.title, category=args.category,
                                preserve_originals=not args.trash_originals, searched=searches.append)
            kept = "moved to the trash" if r.trashed else "kept"
            _emit(args, r, [output.item_line(r.memory), f"from {len(r.source_ids)} memories ({kept})"])
        for results in searches:
            upkeep_note.slower_search(svc, results.mode_used or "hybrid")


def _groups_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("-c", "--category")
    p.add_argument("--threshold", type=float, default=None, help="similarity a member needs (default by method)")


@command("groups", "suggest groups of similar memories to consolidate", _groups_args)
def cmd_groups(args, vault, config):
    with open_service(args, vault, config) as svc:
        groups = svc.suggest_groups(category=args.category, threshold=args.threshold)
        lines = []
        for g in groups:
            lines.append(f"{len(g.memory_ids)} memories, {g.method} similarity {g.similarity:.2f}: "
                         f"memory-curator consolidate {' '.join(g.memory_ids)}")
            lines.extend(f"    {t}" for t in g.titles)
        _emit(args, groups, lines or ["no groups of similar memories"])


def _trash_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("list", "restore", "empty"))
    p.add_argument("id", nargs="?", help="for restore: the memory's id")
    p.add_argument("-y", "--yes", action="store_true",
                   help="for empty: delete without asking (it cannot be undone); without it a terminal is asked")


@command("trash", "list, restore or empty the vault's trash", _trash_args)
def cmd_trash(args, vault, config):
    with open_service(args, vault, config) as svc:
        if args.action == "list":
            items = svc.list_trash()
            _emit(args, items, [output.item_line(it) for it in items] or ["the trash is empty"])
        elif args.action == "restore":
            if not args.id:
                raise ValidationError("trash restore needs the id of a memory in the trash.", field="id")
            item = svc.restore(args.id)
            _emit(args, item, [f"restored {output.item_line(item)}"])
        else:
            waiting = len(svc.list_trash())
            if waiting and not args.yes and not _confirmed(f"Delete the {output.counted(waiting, 'memory')} in the "
                                                           "trash for good? This cannot be undone. [y/N] "):
                print("nothing deleted", file=sys.stderr)
                return 1
            n = svc.empty_trash()
            _emit(args, {"deleted": n}, [f"deleted {output.counted(n, 'file')} from the trash for good"])


def _confirmed(question: str) -> bool:
    """Ask on the terminal; without one (a script, a pipe) nothing is deleted unless --yes says so."""
    if not sys.stdin.isatty():
        raise ValidationError("trash empty deletes the trashed memories for good: add --yes to confirm, or run it "
                              "in a terminal to be asked.", field="yes")
    print(question, end="", file=sys.stderr, flush=True)
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def _update_batch_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a JSON list of updates, each with 'id' and the fields to change; '-' reads stdin")
    p.add_argument("--mode", choices=MODES, default="rollback",
                   help="rollback: all or nothing (default); skip: apply the valid ones, report the rest")


@command("update-batch", "apply many updates from a JSON file", _update_batch_args)
def cmd_update_batch(args, vault, config):
    text = sys.stdin.read() if args.file == "-" else _read(Path(args.file))
    try:
        updates = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"{args.file} is not JSON ({exc.msg}, line {exc.lineno}).", field="file") from None
    if not isinstance(updates, list):
        raise ValidationError("The file must hold a JSON list of updates.", field="file")
    with open_service(args, vault, config) as svc:
        bar = output.ProgressPrinter("updating")
        result = svc.update_batch(updates, mode=args.mode, progress=bar)
        bar.finish()
        lines = [f"updated {result.success_count}, failed {result.error_count}"]
        lines += [f"  update {e['index']}: {e['error']}" for e in result.errors]
        _emit(args, result.as_dict(), lines)
        return 2 if result.error_count else 0


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValidationError(f"Cannot read {path}: {getattr(exc, 'strerror', None) or exc}.", field="file") from None
