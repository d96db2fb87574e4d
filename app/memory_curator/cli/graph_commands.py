"""Entities and links on the command line (issue 11 item 6): the same operations, fields and JSON answers as
MCP and HTTP (core/contract/graph.py), run as the vault's owner, who sees every memory."""

from __future__ import annotations

import argparse
from typing import Any

from memory_curator.cli import output
from memory_curator.cli.registry import command, ctrl_c_cancels, open_service
from memory_curator.core.contract.errors import parse
from memory_curator.core.contract.operations import operation
from memory_curator.serving import calls, graph_calls

OWNER = calls.Caller("cli", vault_owner=True)
EXIT_NOT_FOUND, EXIT_CANCELLED = 1, 130


def _run(args: argparse.Namespace, vault, config, name: str, values: dict[str, Any]) -> dict[str, Any]:
    op = operation(name)
    inp = parse(op.input, {k: v for k, v in values.items() if v is not None})
    with open_service(args, vault, config) as svc:
        return calls.run(svc, name, inp, OWNER)


def _emit(args, data: dict[str, Any], lines: list[str]) -> None:
    if args.json:
        output.emit_json(data)
    else:
        print("\n".join(lines) if lines else "nothing found")


def _entities_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("query", nargs="?", help="only entities whose name or an alias contains this")
    p.add_argument("--min-count", type=int, default=1, help="mentioned by at least this many memories")
    p.add_argument("-n", "--limit", type=int, default=50)
    p.add_argument("--include-hidden", action="store_true", help="also names marked 'not an entity'")


@command("entities", "the entities the memories mention, most mentioned first", _entities_args)
def cmd_entities(args, vault, config):
    data = _run(args, vault, config, "entities", {"query": args.query, "min_count": args.min_count,
                                                   "limit": args.limit, "include_hidden": args.include_hidden})
    _emit(args, data, [f"{e['count']:5d}  {e['name']}" + (f"  (also {', '.join(e['aliases'])})" if e["aliases"]
                                                          else "") for e in data["entities"]])


def _entity_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="an entity's name or alias")
    p.add_argument("-n", "--limit", type=int, default=20)


@command("entity", "one entity and the memories that mention it, newest first", _entity_args)
def cmd_entity(args, vault, config):
    try:
        data = _run(args, vault, config, "entity", {"name": args.name, "limit": args.limit})
    except graph_calls.EntityNotFound:
        # The servers' text points at memory_entities and GET /v1/entities; here the command is the way.
        output.error(f"No entity named {args.name!r} in this vault: `memory-curator entities [QUERY]` lists them.",
                     args.json, code="NOT_FOUND")
        return EXIT_NOT_FOUND
    e = data["entity"]
    _emit(args, data, [f"{e['name']}: {output.counted(e['count'], 'memory')}"
                       + (f", also {', '.join(e['aliases'])}" if e["aliases"] else ""),
                       *(f"{m['id']}  [{m['category']}]  {m['title']}" for m in data["memories"])])


def _links_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="the memory's id")
    p.add_argument("-n", "--limit", type=int, default=20, help="memories sharing an entity with it, at most")


@command("links", "a memory's links both ways and the entities it mentions", _links_args)
def cmd_links(args, vault, config):
    data = _run(args, vault, config, "links", {"memory_id": args.id, "limit": args.limit})
    mid = data["memory_id"]
    _emit(args, data, [*(f"entity  {e['name']} ({e['source']})" for e in data["entities"]),
                       *(f"{lk['kind']:<18} {lk['target'] if lk['source'] == mid else lk['source']}"
                         + (f"  via {', '.join(lk['via'])}" if lk["via"] else "") for lk in data["links"])])


def _graph_query_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("query", help="a question naming entities, e.g. 'what does the wizard owe us'")
    p.add_argument("-n", "--limit", type=int, default=10)


@command("graph-query", "memories connected to the entities a question names (seed 002's graph query)",
         _graph_query_args)
def cmd_graph_query(args, vault, config):
    data = _run(args, vault, config, "graph_query", {"query": args.query, "limit": args.limit})
    head = [f"entities: {', '.join(data['entities']) or '-'}; expanded with: {', '.join(data['expansion']) or '-'}"]
    _emit(args, data, head + [f"{h['score']:.3f}  {h['memory']['id']}  {h['memory']['title']}  ({h['why']})"
                              for h in data["results"]])
    return 0 if data["results"] else 1


def _merge_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("names", nargs="+", help="the entities that are the same as --into")
    p.add_argument("--into", required=True, help="the entity to keep; the others become its aliases")


@command("entity-merge", "merge entities into one (kept in entities.yaml, across rebuilds)", _merge_args)
def cmd_entity_merge(args, vault, config):
    try:
        data = _run(args, vault, config, "entity_merge", {"names": args.names, "into": args.into})
    except graph_calls.EntityNotFound as exc:
        output.error(f"{exc} `memory-curator entities [QUERY]` lists them.", args.json, code=exc.code)
        return EXIT_NOT_FOUND
    e = data["entity"]
    _emit(args, data, [f"{e['name']}: {output.counted(e['count'], 'memory')}, also {', '.join(e['aliases'])}"
                       if e else "merged"])


def _rename_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("name")
    p.add_argument("new_name")


@command("entity-rename", "show an entity under another name", _rename_args)
def cmd_entity_rename(args, vault, config):
    try:
        data = _run(args, vault, config, "entity_rename", {"name": args.name, "new_name": args.new_name})
    except graph_calls.EntityNotFound as exc:
        output.error(f"{exc} `memory-curator entities [QUERY]` lists them.", args.json, code=exc.code)
        return EXIT_NOT_FOUND
    _emit(args, data, [f"renamed to {args.new_name}"])


def _hide_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("name")
    p.add_argument("--undo", action="store_true", help="it is an entity after all")


@command("entity-hide", "mark a name as not an entity (--undo takes it back)", _hide_args)
def cmd_entity_hide(args, vault, config):
    data = _run(args, vault, config, "entity_hide", {"name": args.name, "hidden": not args.undo})
    _emit(args, data, [f"{args.name}: {'an entity again' if args.undo else 'not an entity'}"])


def _link_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    p.add_argument("target", help="the other memory's id")
    p.add_argument("--remove", action="store_true", help="keep a link the graph found from showing")


@command("link", "link two memories by hand (--remove: unlink)", _link_args)
def cmd_link(args, vault, config):
    data = _run(args, vault, config, "link", {"memory_id": args.id, "target": args.target, "linked": not args.remove})
    _emit(args, data, [f"{'unlinked' if args.remove else 'linked'} {args.id} and {args.target}"])


def _classify_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("ids", nargs="*", help="only these memories (default: every memory)")


@command("classify", "label memories again with the vault's label set (labels a person set are kept; Ctrl-C "
         "stops after the batch in progress, keeping what was labelled)", _classify_args)
def cmd_classify(args, vault, config):
    inp = parse(operation("classify").input, {"memory_ids": args.ids} if args.ids else {})
    with ctrl_c_cancels() as token, open_service(args, vault, config) as svc:
        bar = output.ProgressPrinter("labelling")
        data = graph_calls.classify(svc, inp, OWNER, progress=bar, cancel=token)
        bar.finish()
    stopped = f"cancelled after {data['done']} of {data['total']}; " if data["cancelled"] else ""
    _emit(args, data, [f"{stopped}{data['changed']} of {output.counted(data['done'], 'memory')} got new labels"])
    return EXIT_CANCELLED if data["cancelled"] else 0
