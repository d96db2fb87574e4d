"""The core CLI commands (add, get, update, delete, search, list, stats, rebuild, reindex).

Each opens the vault, does one thing, closes. Registered with ``registry.command``."""

from __future__ import annotations

import argparse
import sys

from memory_curator.cli import output, upkeep_note
from memory_curator.cli.registry import command, ctrl_c_cancels, open_service
from memory_curator.cli.upkeep_note import MAINTAIN
from memory_curator.core.contract import cursors
from memory_curator.core.contract.errors import parse
from memory_curator.core.contract.operations import operation
from memory_curator.core.errors import ValidationError
from memory_curator.core.index.upkeep import Pending
from memory_curator.core.model import MEMORY_TYPES, SEARCH_MODES, SORT_KEYS
from memory_curator.serving import calls


def _read_content(value: str | None) -> str:
    if value is None or value == "-":
        if sys.stdin.isatty():
            output.warn("reading the memory from the terminal; end it with Ctrl-D (or pass it as an argument)")
        return read_stdin_text()
    return value


def read_stdin_text() -> str:
    """Standard input as UTF-8 text (a byte-order mark is dropped); anything else is bad input, not a crash."""
    raw = getattr(sys.stdin, "buffer", None)
    if raw is None:
        return sys.stdin.read()  # already text (a caller replaced stdin)
    try:
        return raw.read().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValidationError(f"Standard input is not UTF-8 text (byte {exc.start}): convert it first, for example "
                              "with `iconv -t UTF-8`.", field="content") from None


def _not_found(memory_id: str, as_json: bool) -> int:
    output.error(f"No memory with id {memory_id!r} in this vault.", as_json, code="NOT_FOUND")
    return 1


def _keywords(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [k.strip() for k in value.split(",") if k.strip()]


# -- add / get / update / delete ------------------------------------------------------------------------


def _add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("content", nargs="?", help="the memory's text (markdown); '-' or omitted reads stdin")
    p.add_argument("-t", "--title")
    p.add_argument("-c", "--category", default="context")
    p.add_argument("-k", "--keywords", help="comma-separated tags")
    p.add_argument("-s", "--session")
    p.add_argument("--source", default="user", choices=("user", "ai", "system"))
    p.add_argument("--salience", type=float, default=None)
    _lifecycle_args(p)
    p.add_argument("--on-duplicate", choices=("add", "skip", "merge"),
                   help="check for a near-duplicate first and add anyway, skip, or merge into it")


def _lifecycle_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scope", help="global, project, session, or another short lower-case name")
    p.add_argument("--actors", help="comma-separated people, agents or entities the memory is about")
    p.add_argument("--ttl", type=float, help="seconds until it expires (hidden from search, then clear-expired)")
    p.add_argument("--expires-at", help="when it expires, e.g. 2026-01-01T00:00:00Z")
    p.add_argument("--summary", help="a short summary, searched beside the text")
    p.add_argument("--raw-ttl", type=int, help="seconds the text is kept while the summary stays (without a "
                   "summary: until the memory expires)")
    p.add_argument("--field", action="append", default=[], metavar="KEY=VALUE",
                   help="a typed field, e.g. event_timestamp=2025-06-15T09:00:00Z, valence=0.5, skill_name=ansible "
                        "(KEY= with no value removes it on update)")


def _optional_fields(args: argparse.Namespace) -> dict:
    given = {"scope": args.scope, "actors": _keywords(args.actors), "ttl": args.ttl, "expires_at": args.expires_at,
             "summary": args.summary, "raw_ttl": args.raw_ttl}
    fields = {k: v for k, v in given.items() if v is not None}
    for pair in args.field:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValidationError(f"--field takes KEY=VALUE (got {pair!r}).", field="field")
        fields[key.strip()] = value.strip() or None  # empty: remove the field (update)
    return fields


@command("add", "save a new memory", _add_args)
def cmd_add(args, vault, config):
    with open_service(args, vault, config) as svc:
        values = dict(category=args.category, title=args.title, keywords=_keywords(args.keywords),
                      session_id=args.session, source=args.source, salience=args.salience, **_optional_fields(args))
        if args.on_duplicate:
            outcome = svc.save_checked(_read_content(args.content), on_duplicate=args.on_duplicate, **values)
            item = outcome.memory
            if outcome.checked_by == "keyword":  # a keyword search found the candidates (vectors: no search)
                upkeep_note.slower_search(svc, "keyword", "the duplicate check's search")
            if args.json:
                output.emit_json(outcome)
                return
            if outcome.duplicate is not None:
                d = outcome.duplicate
                output.warn(f"near-duplicate of {d.memory_id} ({d.method} similarity {d.similarity:.3f}): {outcome.action}")
        else:
            item = svc.save(_read_content(args.content), **values)
        # The save is done; its embedding runs in the background: wait for it (Ctrl+C still exits at once).
        if svc.embedding.settle(config.ollama_timeout_s):
            item = svc.get(item.id, record_access=False) or item
        if args.json:
            output.emit_json(item)
        else:
            print(output.item_line(item))
            if not item.embedded and svc.embedder is not None:
                progress = svc.embedding.progress  # says what to do: start Ollama, pull the model...
                why = progress.message if progress.message else svc.embedder_status().detail
                output.warn(f"saved without embedding ({why}); run `memory-curator reindex` later")


def _id_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")


@command("get", "show one memory", _id_arg)
def cmd_get(args, vault, config):
    with open_service(args, vault, config) as svc:
        item = svc.get(args.id)
        if item is None:
            return _not_found(args.id, args.json)
        output.emit_json(item) if args.json else print(output.item_full(item))


def _update_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    p.add_argument("--content", help="new text; '-' reads stdin")
    p.add_argument("-t", "--title")
    p.add_argument("-c", "--category")
    p.add_argument("-k", "--keywords", help="comma-separated tags (replaces the old ones)")
    p.add_argument("-s", "--session")
    p.add_argument("--salience", type=float)
    _lifecycle_args(p)


@command("update", "change a memory", _update_args)
def cmd_update(args, vault, config):
    changes = (args.content, args.title, args.category, args.keywords, args.session, args.salience)
    fields = _optional_fields(args)
    if all(v is None for v in changes) and not fields:
        raise ValidationError("Nothing to change: give --content, --title, --category, --keywords, --session, "
                              "--salience, --scope, --actors, --ttl, --expires-at or --field.")
    with open_service(args, vault, config) as svc:
        content = _read_content(args.content) if args.content is not None else None
        item = svc.update(args.id, content=content, title=args.title, category=args.category,
                          keywords=_keywords(args.keywords), session_id=args.session, salience=args.salience,
                          **fields)
        output.emit_json(item) if args.json else print(output.item_line(item))


@command("delete", "move a memory to the vault's trash", _id_arg)
def cmd_delete(args, vault, config):
    with open_service(args, vault, config) as svc:
        if not svc.delete(args.id):
            return _not_found(args.id, args.json)
        output.emit_json({"deleted": True, "id": args.id}) if args.json else print(f"moved {args.id} to the trash")


# -- search / list / stats ------------------------------------------------------------------------------


def _search_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("query")
    p.add_argument("-n", "--limit", type=int, default=5)
    p.add_argument("-m", "--mode", choices=SEARCH_MODES, default="hybrid")
    p.add_argument("-c", "--category")
    p.add_argument("-s", "--session")
    p.add_argument("--min-salience", type=float, default=0.0)
    p.add_argument("--sort", choices=SORT_KEYS, default="relevance")
    p.add_argument("--keyword-weight", type=float, default=None)
    p.add_argument("--importance-weight", type=float, default=0.0,
                   help="blend importance into the score: 0 relevance only (default) .. 1 importance only")
    p.add_argument("--min-score", type=float, default=0.0, help="leave out hits scoring below this (0..1)")
    _filter_args(p)


def _filter_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scope", help="only these scopes (comma-separated)")
    p.add_argument("--actor", help="only memories about this actor")
    p.add_argument("--type", choices=MEMORY_TYPES, help="only episodic, emotional or procedural memories")
    p.add_argument("--label", help="only memories carrying this classification label (event, location...)")


@command("search", "search memories (hybrid, semantic or keyword)", _search_args)
def cmd_search(args, vault, config):
    with open_service(args, vault, config) as svc:
        results = svc.search(args.query, limit=args.limit, mode=args.mode, category=args.category,
                             session_id=args.session, min_salience=args.min_salience, sort_by=args.sort,
                             keyword_weight=args.keyword_weight, scope=_keywords(args.scope), actor=args.actor,
                             memory_type=args.type, importance_weight=args.importance_weight,
                             min_score=args.min_score, label=args.label)
        if args.json:
            output.emit_json({"query": results.query, "results": list(results), "warnings": list(results.warnings)})
        else:
            for w in results.warnings:
                output.warn(w)
            print("\n".join(output.result_line(i, r) for i, r in enumerate(results, start=1)) or "no matches")
        upkeep_note.slower_search(svc, results.mode_used or args.mode)
        return 0 if results else 1  # like grep: 1 when nothing matched


def _page_size(text: str) -> int:
    size = int(text)
    if size < 1:  # SQLite reads a negative LIMIT as none: -n -1 listed every memory
        raise argparse.ArgumentTypeError("must be 1 or more")
    return size


def _list_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("-c", "--category")
    p.add_argument("-s", "--session")
    p.add_argument("-n", "--limit", type=_page_size, default=50)
    p.add_argument("--offset", type=int, default=0)
    p.add_argument("--cursor", help="start where the last page ended: the cursor it printed on stderr (instead of "
                                    "--offset: nothing is skipped or listed twice when memories change meanwhile)")
    p.add_argument("--order", choices=("updated", "created", "title", "salience", "session"), default="updated")
    _filter_args(p)


@command("list", "list memories", _list_args)
def cmd_list(args, vault, config):
    # The cursor is checked as the servers check it (it decodes, was made for this --order, comes without
    # --offset); the limit stays the CLI's own (the servers cap a page at 100).
    paging = parse(operation("list").input, {"order_by": args.order, "offset": args.offset, "cursor": args.cursor})
    start = cursors.decode(paging.cursor) if paging.cursor else cursors.Cursor(args.order, offset=args.offset)
    with open_service(args, vault, config) as svc:
        items, following = calls.page(svc, start, args.limit, None, category=args.category,
                                      session_id=args.session, actor=args.actor, memory_type=args.type,
                                      scope=_keywords(args.scope), label=args.label)
        if args.json:
            output.emit_json(items)
        else:
            for it in items:
                print(output.item_line(it))
        if following:  # on stderr: stdout stays the page alone, as scripts read it
            print(f"more: add --cursor {following} (same --order and filters) for the next page", file=sys.stderr)


@command("stats", "counts, tokens, salience, index size, embedder")
def cmd_stats(args, vault, config):
    with open_service(args, vault, config) as svc:
        stats = svc.stats()
        status = svc.embedder_status()
        problems = svc.problems()
        upkeep = svc.upkeep.pending()
        if args.json:
            output.emit_json({"stats": stats, "embedder": status, "problems": problems,
                              "upkeep": {"pending": upkeep.describe(), "command": "memory-curator maintain"}})
            return
        print(f"vault:        {svc.vault.root}")
        print(f"memories:     {stats.total_count}  ({', '.join(f'{k} {v}' for k, v in sorted(stats.by_category.items()))})")
        print(f"tokens:       ~{stats.total_tokens}")
        print(f"salience:     {stats.avg_salience:.2f} on average")
        print(f"embedded:     {stats.embedded_count} ({stats.unembedded_count} waiting)  model: {stats.embedding_model or '-'}")
        print(f"embedder:     {status.detail}")
        print(f"index:        {stats.index_size_bytes / 1e6:.1f} MB")
        print(f"trash:        {stats.trash_count}")
        print(f"upkeep:       {'; '.join(upkeep.describe()) + MAINTAIN if upkeep else 'none pending'}")
        for p in problems:
            output.warn(f"unreadable file {p.path}: {p.reason}")


# -- maintenance ------------------------------------------------------------------------------------------


@command("rebuild", "rebuild the index from the markdown files")
def cmd_rebuild(args, vault, config):
    # No opening sync: it would read every file before the rebuild reads them all again (a missing index was
    # filled twice: at 1,000,000 files minutes without a progress bar, then the rebuild's).
    with open_service(args, vault, config, sync=False) as svc:
        bar = output.ProgressPrinter("rebuilding")
        report = svc.rebuild_index(progress=bar)
        bar.finish()
        left, _ = _run_upkeep(svc)
        for warning in report.warnings:
            output.warn(warning)
        if left:
            output.warn("upkeep is pending: " + "; ".join(left.describe()) + MAINTAIN)
        data = {"memories": report.added, "problems": [{"path": p, "reason": r} for p, r in report.problems]}
        if args.json:
            output.emit_json(data)
        else:
            print(f"indexed {output.counted(report.added, 'memory')}")
            for p, r in report.problems:
                output.warn(f"skipped {p}: {r}")


def _run_upkeep(svc) -> tuple[Pending, bool]:
    """What the app's and the servers' polls do in the background (core/index/upkeep.py), run to the end with
    progress: a command-line process never polls, so a vault used only from here would never get it. Ctrl-C stops
    at the next step, keeping the steps done. Returns what is left, and whether Ctrl-C stopped it."""
    bar = output.ProgressPrinter()
    with ctrl_c_cancels() as token:
        left = svc.upkeep.run(progress=bar, cancel=token)
    bar.finish()
    return left, token.cancelled


@command("maintain", "finish the index's background upkeep now: the unreadable shares an older index lacks, "
         "the keyword postings (built, or rows written since folded back in)")
def cmd_maintain(args, vault, config):
    # No opening sync: at 1,000,000 files it reads every one (~20 s) and upkeep needs none of it.
    with open_service(args, vault, config, sync=False) as svc:
        before = svc.upkeep.pending()
        left, stopped = _run_upkeep(svc)
        if args.json:
            output.emit_json({"done": [] if left else before.finished(), "pending": left.describe(),
                              "stopped": stopped})
        elif not before:
            print("nothing to do: no upkeep is pending")
        elif left:
            print(("stopped" if stopped else "not finished") + "; still pending: " + "; ".join(left.describe())
                  + ". Run it again to go on from there.")
        else:
            print("done: " + "; ".join(before.finished()))
        return 130 if stopped else 1 if left else 0


def _reindex_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", help="switch the vault to another model: PROVIDER[:MODEL], e.g. ollama:bge-m3 or local")


@command("reindex", "embed memories that have no vectors yet (or switch model with --model)", _reindex_args)
def cmd_reindex(args, vault, config):
    with open_service(args, vault, config) as svc:
        bar = output.ProgressPrinter("embedding")
        if args.model:
            provider, _, model = args.model.partition(":")
            n = svc.change_embedder(provider, model or None, progress=bar)
        else:
            n = svc.reindex_missing(progress=bar)
        bar.finish()
        output.emit_json({"embedded": n}) if args.json else print(f"embedded {output.counted(n, 'memory')}")
