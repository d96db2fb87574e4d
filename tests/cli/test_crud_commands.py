"""add / get / update / delete through ``memory_curator.cli.main.main``: text and JSON, stdin, exit codes."""

from __future__ import annotations

import io
import json
import socket
import sys
from pathlib import Path

import pytest

from memory_curator import __version__
from memory_curator.cli.main import main


def test_version(cli):
    r = cli("--version")
    assert r.code == 0 and r.out.strip() == f"memory-curator {__version__}"


def test_add_prints_a_line_and_writes_the_file(cli, vault_dir):
    r = cli("add", "We chose SQLite with sqlite-vec.", "--title", "Vector store", "-c", "decisions",
            "-k", "sqlite, vectors,", "-s", "s1", "--salience", "0.9")
    assert r.code == 0 and r.err == ""
    mid, cat, sal, title = r.out.split()[0], r.out.split()[1], r.out.split()[2], "Vector store"
    assert (cat, sal) == ("[decisions]", "0.90") and title in r.out
    files = list((vault_dir / "decisions").glob("*.md"))
    assert len(files) == 1 and f"id: {mid}" in files[0].read_text(encoding="utf-8")


def test_add_json_is_the_saved_memory(added, vault_dir):
    item = added("We chose SQLite.", "-k", "sqlite,db", "--source", "ai")
    assert item["content"] == "We chose SQLite." and item["keywords"] == ["sqlite", "db"]
    assert item["source"] == "ai" and item["category"] == "context" and item["chunk_count"] == 0
    assert Path(item["file_path"]).is_file() and Path(item["file_path"]).is_relative_to(vault_dir)


@pytest.mark.parametrize("arg", [None, "-"])
def test_add_reads_stdin(cli, arg):
    args = ("add", "--json") if arg is None else ("add", arg, "--json")
    r = cli(*args, stdin="# From a pipe\n\nLine one.\nLine two.\n")
    assert r.code == 0
    assert r.json["title"] == "From a pipe" and "Line two." in r.json["content"]


def test_stdin_bytes_are_read_as_utf8(cli, monkeypatch, vault_dir):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("\ufeffCafé ☕ 日本語".encode())))
    r = cli("add", "--json")
    assert r.code == 0 and r.json["content"] == "Café ☕ 日本語"  # the byte-order mark is not content
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"caf\xe9 in Latin-1")))
    r = cli("add")
    assert r.code == 2 and "Standard input is not UTF-8 text (byte 3)" in r.err and "Traceback" not in r.err
    assert len(list(vault_dir.rglob("*.md"))) == 1


@pytest.mark.parametrize("content, stdin", [("", None), ("   \n\t", None), (None, ""), (None, "  \n")])
def test_empty_content_is_bad_input(cli, vault_dir, content, stdin):
    args = ("add",) if content is None else ("add", content)
    r = cli(*args, stdin=stdin)
    assert r.code == 2 and "Content is empty" in r.err and r.out == ""
    assert not list(vault_dir.rglob("*.md"))


@pytest.mark.parametrize("args, field", [
    (("-c", "Bad Cat"), "Category"),
    (("-c", "../escape"), "Category"),
    (("--salience", "1.5"), "salience"),
    (("--salience", "-0.1"), "salience"),
])  # fmt: skip
def test_bad_values_are_exit_2_with_a_json_error(cli, vault_dir, args, field):
    r = cli("add", "text", *args, "--json")
    assert r.code == 2
    assert r.json["error"]["code"] in ("VALIDATION_ERROR", "INVALID_CATEGORY") and field in r.json["error"]["message"]
    assert not list(vault_dir.rglob("*.md"))


def test_unparsable_numbers_and_choices_are_usage_errors(cli):
    for args in (("add", "x", "--salience", "abc"), ("add", "x", "--source", "robot"), ("search", "x", "-n", "many"),
                 ("frobnicate",), ("get",)):
        r = cli(*args)
        assert r.code == 2 and "usage: memory-curator" in r.err, args


def test_usage_errors_are_json_too_when_asked(cli):
    r = cli("add", "x", "--salience", "abc", "--json")
    assert r.code == 2 and "usage: memory-curator add" in r.err
    assert r.json == {"error": {"code": "USAGE_ERROR",
                                "message": "memory-curator add: argument --salience: invalid float value: 'abc'"}}


def test_get_text_and_json(cli, added):
    item = added("Body text here.", "--title", "A title", "-k", "x")
    r = cli("get", item["id"])
    assert r.code == 0 and f"id:         {item['id']}" in r.out and r.out.rstrip().endswith("Body text here.")
    j = cli("get", item["id"], "--json").json
    assert j["id"] == item["id"] and j["access_count"] == 2  # both gets were recalls


def test_unknown_id_is_exit_1(cli):
    for cmd in (("get", "nope"), ("delete", "nope"), ("update", "nope", "--title", "x")):
        r = cli(*cmd)
        assert r.code == 1 and "No memory with id 'nope'" in r.err and r.out == "", cmd
        j = cli(*cmd, "--json")
        assert j.code == 1 and j.json == {"error": {"code": "NOT_FOUND", "message": "No memory with id 'nope' in this vault."}}


def test_update_fields_and_content_from_stdin(cli, added, vault_dir):
    item = added("Old text.", "-k", "a")
    r = cli("update", item["id"], "--title", "New title", "-k", "b,c", "--salience", "0.3", "-c", "decisions")
    assert r.code == 0 and "[decisions]" in r.out and "0.30" in r.out and "New title" in r.out
    r = cli("update", item["id"], "--content", "-", "--json", stdin="New text from stdin.")
    assert r.code == 0
    j = r.json
    assert (j["content"], j["keywords"], j["category"], j["salience"]) == ("New text from stdin.", ["b", "c"], "decisions", 0.3)
    assert not list((vault_dir / "context").glob("*.md")) and len(list((vault_dir / "decisions").glob("*.md"))) == 1


def test_update_with_nothing_to_change_or_bad_values_keeps_the_file(cli, added):
    item = added("Stays the same.")
    before = Path(item["file_path"]).read_bytes()
    for args in ((), ("--salience", "7"), ("--content", "  "), ("-c", "NO SPACES")):
        r = cli("update", item["id"], *args)
        assert r.code == 2 and r.err.startswith("memory-curator: "), args
    assert Path(item["file_path"]).read_bytes() == before


def test_delete_moves_the_file_to_the_trash(cli, added, vault_dir):
    one, two = added("First."), added("Second.")
    r = cli("delete", one["id"])
    assert r.code == 0 and r.out.strip() == f"moved {one['id']} to the trash"
    assert cli("delete", two["id"], "--json").json == {"deleted": True, "id": two["id"]}
    assert not list((vault_dir / "context").glob("*.md")) and len(list((vault_dir / ".trash").rglob("*.md"))) == 2
    assert cli("get", one["id"]).code == 1


def test_a_file_where_the_vault_should_be_is_an_environment_error(cli, tmp_path, capsys):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    assert main(["--vault", str(blocker), "--embedder", "none", "list"]) == 3
    assert "Cannot use" in capsys.readouterr().err


def test_global_options_also_work_after_the_command(tmp_path, capsys):
    other = tmp_path / "other-vault"
    assert main(["--vault", str(tmp_path / "first"), "add", "x", "--vault", str(other), "--embedder", "none"]) == 0
    capsys.readouterr()
    assert main(["list", "--json", "--vault", str(other), "--embedder", "none"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 1
    assert not (tmp_path / "first").exists()


def test_list_pages_by_the_cursor_it_prints(cli, added):
    ids = {added(f"note number {n}", "--salience", f"0.{n % 3 + 1}")["id"] for n in range(7)}
    seen, args = [], ["list", "--order", "salience", "-n", "3", "--json"]
    while True:
        r = cli(*args)
        assert r.code == 0, r.err
        seen += [it["id"] for it in r.json]
        if "more:" not in r.err:
            break
        cursor = r.err.split("--cursor ", 1)[1].split()[0]
        args = ["list", "--order", "salience", "-n", "3", "--json", "--cursor", cursor]
        added("saved between pages", "--salience", "0.9")  # above the cursor: shifts nothing below it
    assert len(seen) == 7 and set(seen) == ids  # each once, in three pages
    bad = cli("list", "--cursor", "garbage")
    assert bad.code == 2 and "is not a cursor of this list" in bad.err
    other_order = cli("list", "--order", "title", "--cursor", cursor)
    assert other_order.code == 2 and "was made for order_by" in other_order.err
    assert cli("list", "-n", "0").code == 2 and cli("list", "-n", "-1").code == 2  # -1 was no limit at all


def test_an_unknown_entity_is_not_found_with_the_command_that_lists_them(cli):
    """`entity nope` exited 3 (an environment problem) and pointed at memory_entities (GET /v1/entities)."""
    assert cli("add", "We chose SQLite for the index", "-c", "decisions").code == 0
    assert cli("entity", "SQLite").code == 0
    r = cli("entity", "nope")
    assert r.code == 1 and r.err == ("memory-curator: No entity named 'nope' in this vault: "
                                     "`memory-curator entities [QUERY]` lists them.\n")
    r = cli("entity", "nope", "--json")
    assert r.code == 1 and r.json["error"]["code"] == "NOT_FOUND"


@pytest.mark.parametrize("command", [["serve"], ["mcp", "--http"]])
@pytest.mark.parametrize("port", ["99999", "0", "-1", "http"])
def test_a_port_out_of_range_is_a_usage_error(cli, command, port):
    """`serve --port 99999` went through to the socket's bind and ended with uvicorn's traceback."""
    r = cli(*command, "--port", port)
    assert r.code == 2 and f"--port: must be a port number from 1 to 65535 (got '{port}')" in r.err


def test_merging_or_renaming_entities_no_memory_mentions_is_not_found_and_writes_nothing(cli, vault_dir):
    """`entity-merge a --into b` printed 'merged' and exited 0 for names no memory mentions."""
    assert cli("add", "We chose SQLite for the index", "-c", "decisions").code == 0
    r = cli("entity-merge", "nope", "--into", "nada")
    assert r.code == 1 and r.err == ("memory-curator: No entity named 'nope' or 'nada' in this vault (no memory "
                                     "mentions any of them): nothing was merged. `memory-curator entities "
                                     "[QUERY]` lists them.\n")
    r = cli("entity-merge", "nope", "--into", "nada", "--json")
    assert r.code == 1 and r.json["error"]["code"] == "NOT_FOUND"
    assert not (vault_dir / "entities.yaml").exists()
    r = cli("entity-rename", "nope", "other")  # renamed nothing, said 'renamed to other' and exited 0
    assert r.code == 1 and r.err == ("memory-curator: No entity named 'nope' in this vault (no memory mentions "
                                     "it): nothing was renamed. `memory-curator entities [QUERY]` lists them.\n")
    assert not (vault_dir / "entities.yaml").exists()
    # An alias declared ahead for a known entity is a merge, as before.
    r = cli("entity-merge", "the embedded database", "--into", "SQLite", "--json")
    assert r.code == 0 and "the embedded database" in r.json["entity"]["aliases"]


@pytest.mark.parametrize("command", [["serve"], ["mcp", "--http"]])
def test_a_port_in_use_is_said_before_the_vault_opens(cli, command, vault_dir, tmp_path, monkeypatch):
    """A port in use printed 'Memory Curator API on ...' after opening the vault, then uvicorn's 'address already
    in use'."""
    monkeypatch.setenv("MEMORY_CURATOR_TOKEN_FILE", str(tmp_path / "token"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        r = cli(*command, "--port", port)
        assert r.code == 3 and r.out == ""
        assert r.err == (f"memory-curator: Port {port} on 127.0.0.1 is already in use (another Memory Curator "
                         "server, or another program): stop that one, or choose another port with --port.\n")
        r = cli(*command, "--port", port, "--json")
        assert r.code == 3 and r.json["error"]["code"] == "CANNOT_LISTEN"
    assert not vault_dir.exists()  # nothing opened, nothing created
