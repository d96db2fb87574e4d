"""``memory-curator import-from`` and ``export-claude-code``: list, choose, import, export back (in-process)."""

from __future__ import annotations

import json

from source_fixtures import chatgpt_conversation, claude_code_memory, mem0_record, write_export_zip


def test_list_then_import_chosen_conversations(cli, tmp_path):
    z = write_export_zip(tmp_path / "export.zip", [
        chatgpt_conversation("c1", "Kyoto trip", [("user", "Plan Kyoto"), ("assistant", "Temples first")]),
        chatgpt_conversation("c2", "Budget", [("user", "Groceries?"), ("assistant", "400 euros")])])
    r = cli("import-from", str(z), "--list")
    assert r.code == 0 and "new       2024-03-01 2 messages" in r.out and "key: c1" in r.out
    assert cli("stats", "--json").json["stats"]["total_count"] == 0  # listing imports nothing
    r = cli("import-from", str(z), "--item", "c2", "--mode", "turns", "--json")
    assert r.code == 0 and r.json["imported_items"] == 1 and r.json["memory_count"] == 2
    r = cli("import-from", str(z), "--list", "--mode", "turns", "--json")
    assert [i["state"] for i in r.json["items"]] == ["new", "imported"]
    r = cli("import-from", str(z), "--item", "c2", "--mode", "turns")
    assert r.code == 1 and "skipped   Budget  (already in this vault)" in r.out


def test_several_sources_at_once_and_bad_input(cli, tmp_path):
    folder = claude_code_memory(tmp_path / "memory")
    m0 = tmp_path / "mem0.json"
    m0.write_text(json.dumps({"results": [mem0_record("m1", "Likes green tea")]}))
    r = cli("import-from", str(folder), str(m0))
    assert r.code == 0 and "claude-code: 3 memories from 3 items" in r.out and "mem0: 1 memory from 1 item;" in r.out
    assert cli("import-from", str(m0), str(folder), "--item", "m1").code == 2  # --item needs one source
    r = cli("import-from", str(tmp_path / "missing.zip"), "--json")
    assert r.code == 2 and r.json["error"]["code"] == "VALIDATION_ERROR"
    assert cli("import-from", str(m0), "--item", "nope").code == 2


def test_export_claude_code_by_category_and_replace(cli, added, tmp_path):
    a = added("Run the linter first.", "--title", "Lint", "-c", "decisions", "--salience", "0.9")
    added("Second decision.", "--title", "Other", "-c", "decisions", "--salience", "0.4")
    added("Not exported.", "--title", "Context note")
    out = tmp_path / "memory"
    r = cli("export-claude-code", str(out), "-c", "decisions")
    assert r.code == 0 and "wrote 2 memories" in r.out
    index = (out / "MEMORY.md").read_text()
    assert index.index("[Lint]") < index.index("[Other]") and "Context note" not in index
    assert cli("export-claude-code", str(out), "--id", a["id"]).code == 2  # would overwrite
    r = cli("export-claude-code", str(out), "--id", a["id"], "--replace", "--json")
    assert r.code == 0 and r.json["backup"] and r.json["files"] == ["lint.md", "MEMORY.md"]
    assert cli("export-claude-code", str(out)).code == 2  # no selection
