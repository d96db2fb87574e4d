"""`conflicts`: list, show and resolve sync conflicts from the command line, on a real git conflict and a
real Syncthing copy."""

from __future__ import annotations

from sync_machines import Machines


def _git_conflict(tmp_path, config):
    m = Machines(tmp_path, config)
    item = m.a.save("Release on Tuesdays.", title="Release day")
    m.share()
    m.b.update(item.id, content="Release on Thursdays.")
    m.push(m.b)
    m.a.update(item.id, content="Release on Fridays.")
    m.pull(m.a)
    m.close()  # the CLI opens the vault itself, as it would after the pull
    return m.root_a, item.id


def test_list_show_and_resolve_a_git_conflict(cli, tmp_path, config, monkeypatch):
    root, mid = _git_conflict(tmp_path, config)
    run = lambda *a: cli("--vault", str(root), *a)  # noqa: E731 - the vault of machine A
    listed = run("conflicts", "--json").json
    assert [(c["id"], c["tool"]) for c in listed] == [(mid, "git")]
    assert mid in run("conflicts").out
    shown = run("conflicts", "show", mid, "--json").json
    assert "Fridays" in shown["ours"]["text"] and "Thursdays" in shown["theirs"]["text"]
    assert any(f["field"] == "content" and f["merge"] == "conflict" for f in shown["fields"])
    text = run("conflicts", "show", mid).out
    assert "-Release on Fridays." in text and "+Release on Thursdays." in text
    refused = run("conflicts", "resolve", mid)
    assert refused.code == 2 and "--keep" in refused.err
    merged = tmp_path / "merged.md"
    merged.write_text(shown["proposal"].replace("Fridays.", "Fridays (Thursdays before)."))
    done = run("conflicts", "resolve", mid, "--merged", str(merged), "--json").json
    assert done["choice"] == "merged" and done["trashed"]
    assert run("conflicts", "--json").json == []
    assert run("get", mid, "--json").json["content"] == "Release on Fridays (Thursdays before)."


def test_resolve_a_syncthing_copy_and_bad_requests(cli, added, vault_dir):
    mid = added("Standup at nine.", "-t", "Standup")["id"]
    (original,) = vault_dir.glob("*/*.md")
    copy = original.with_name(original.stem + ".sync-conflict-20261123-082800-ABCDEFG.md")
    copy.write_text(original.read_text().replace("nine", "ten"))
    assert "Syncthing" in cli("conflicts").out
    assert cli("conflicts", "resolve", "no-such-id", "--keep", "ours").code == 2
    assert cli("conflicts", "resolve", mid, "--keep", "theirs").code == 0
    assert cli("get", mid, "--json").json["content"] == "Standup at ten." and not copy.exists()
    assert cli("conflicts").out.strip() == "no sync conflicts"
