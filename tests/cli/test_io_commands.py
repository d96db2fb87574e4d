"""``memory-curator import`` and ``export``: per-file results, --json, exit codes (run in-process)."""

from __future__ import annotations

import json

from memory_curator.cli.main import main
from pdf_samples import page_text, write_pdf


def run(capsys, vault, *argv):
    code = main(["--vault", str(vault), "--embedder", "none", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_import_prints_each_file_and_exits_2_when_one_failed(tmp_path, capsys):
    vault = tmp_path / "v"
    (tmp_path / "good.md").write_text("# Good\n\nfine text", encoding="utf-8")
    (tmp_path / "bad.md").write_bytes(b"\x89PNG\r\n\x1a\n....")
    pdf = write_pdf(tmp_path / "doc.pdf", [page_text(1, 20)])
    code, out, _ = run(capsys, vault, "import", tmp_path / "good.md", tmp_path / "bad.md", pdf, "-c", "decisions")
    assert code == 2
    assert "imported  " in out and "good.md" in out and "failed    " in out and "PNG image" in out
    assert "2 memories from 2 files; 0 skipped, 1 failed" in out
    code, out, _ = run(capsys, vault, "list", "-c", "decisions", "--json")
    assert code == 0 and len(json.loads(out)) == 2


def test_counts_of_one_are_singular(tmp_path, capsys):
    """A new user's first import said '(1 memories)' and '1 memories from 1 files'."""
    vault = tmp_path / "v"
    (tmp_path / "note.md").write_text("# Note\n\nGandros keeps the keys.", encoding="utf-8")
    code, out, _ = run(capsys, vault, "import", tmp_path / "note.md")
    assert code == 0
    assert out.splitlines() == [f"imported  {tmp_path / 'note.md'}  (1 memory)", "1 memory from 1 file; 0 skipped, 0 failed"]
    code, out, _ = run(capsys, vault, "entity", "Gandros")
    assert code == 0 and out.startswith("Gandros: 1 memory\n")
    code, out, _ = run(capsys, vault, "export", "--out", tmp_path / "tree")
    assert code == 0 and out.startswith("exported 1 memory to ")
    code, out, _ = run(capsys, vault, "rebuild")
    assert code == 0 and out.strip() == "indexed 1 memory"
    code, out, _ = run(capsys, vault, "classify")
    assert code == 0 and out.strip().endswith(" of 1 memory got new labels")


def test_import_json_output_and_exit_codes(tmp_path, capsys):
    vault = tmp_path / "v"
    (tmp_path / "a.txt").write_text("alpha text", encoding="utf-8")
    code, out, _ = run(capsys, vault, "import", tmp_path / "a.txt", "--json")
    data = json.loads(out)
    assert code == 0 and data["memory_count"] == 1 and data["files"][0]["status"] == "imported"
    assert data["files"][0]["importer"] == "text" and len(data["files"][0]["memory_ids"]) == 1


def test_export_then_import_round_trip_on_the_command_line(tmp_path, capsys):
    vault = tmp_path / "v"
    run(capsys, vault, "add", "We chose SQLite", "-t", "Vector store", "-c", "decisions", "-k", "sqlite")
    run(capsys, vault, "add", "A context note", "-c", "context")
    code, out, _ = run(capsys, vault, "export", "--format", "json", "--out", tmp_path / "all.json", "--json")
    assert code == 0 and json.loads(out)["count"] == 2
    code, out, _ = run(capsys, vault, "export", "-c", "decisions", "--out", tmp_path / "tree")
    assert code == 0 and "exported 1 memory to" in out and list((tmp_path / "tree" / "decisions").glob("*.md"))
    code, out, _ = run(capsys, tmp_path / "v2", "import", tmp_path / "all.json")
    assert code == 0 and "2 memories from 1 file;" in out
    code, out, _ = run(capsys, tmp_path / "v2", "import", tmp_path / "all.json")
    assert code == 1 and "skipped" in out  # nothing new


def test_export_refuses_to_overwrite(tmp_path, capsys):
    vault = tmp_path / "v"
    (tmp_path / "taken.json").write_text("{}", encoding="utf-8")
    code, out, _ = run(capsys, vault, "export", "--format", "json", "--out", tmp_path / "taken.json", "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == "VALIDATION_ERROR"


def test_import_again_skips_updates_and_with_replace_edited_takes_the_files_version(tmp_path, capsys):
    vault = tmp_path / "v"
    src = tmp_path / "plan.md"
    src.write_text("# Plan\n\nShip on Friday.\n", encoding="utf-8")
    code, out, _ = run(capsys, vault, "import", src, "--json")
    (mid,) = json.loads(out)["files"][0]["memory_ids"]
    code, out, _ = run(capsys, vault, "import", src)
    assert code == 1 and "skipped" in out and "has not changed" in out  # nothing new: exit 1
    src.write_text("# Plan\n\nShip on Monday.\n", encoding="utf-8")
    code, out, _ = run(capsys, vault, "import", src)
    assert code == 0 and out.startswith("updated") and "1 updated" in out
    assert run(capsys, vault, "update", mid, "--content", "Ship on Monday; Tuesday at the latest.")[0] == 0
    src.write_text("# Plan\n\nShip next month.\n", encoding="utf-8")
    code, out, _ = run(capsys, vault, "import", src, "--json")
    assert code == 1 and json.loads(out)["files"][0]["conflict"] is True
    code, out, _ = run(capsys, vault, "import", src, "--replace-edited")
    assert code == 0 and out.startswith("updated")
    code, out, _ = run(capsys, vault, "get", mid, "--json")
    assert "next month" in json.loads(out)["content"]
