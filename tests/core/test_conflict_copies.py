"""Conflict copies as sync tools name them (Syncthing, Dropbox, iCloud), and any second file with an id
that exists: the memory stays listed under its own file, the copy is a conflict, never a second memory."""

from __future__ import annotations

import os

import pytest

from memory_curator.core.conflicts.names import copy_name
from memory_curator.core.errors import ValidationError

COPIES = {
    "Syncthing": "{stem}.sync-conflict-20261123-082800-ABCDEFG.md",
    "Dropbox": "{stem} (conflicted copy).md",
    "Dropbox dated": "{stem} (Jane's conflicted copy 2026-11-23).md",
    "iCloud": "{stem} 2.md",
}


def _copy(svc, item, pattern, edit=None):
    rel = svc.store.file_info(item.id).file_path
    src = svc.vault.root / rel
    text = src.read_text()
    if edit:
        text = text.replace(*edit)
    folder, name = rel.rsplit("/", 1)
    copy_rel = f"{folder}/{pattern.format(stem=name[:-3])}"
    (svc.vault.root / copy_rel).write_text(text)
    return rel, copy_rel


@pytest.mark.parametrize("tool", list(COPIES))
def test_a_conflict_copy_is_a_conflict_not_a_second_memory(svc, tool):
    item = svc.save("Deploys go out on Tuesdays.", title="Deploy day")
    rel, copy_rel = _copy(svc, item, COPIES[tool], ("Tuesdays", "Thursdays"))
    os.utime(svc.vault.root / copy_rel, ns=(4_000_000_000 * 10**9,) * 2)  # the copy is newer: still not listed
    svc.sync()
    assert svc.count() == 1 and svc.get(item.id).content == "Deploys go out on Tuesdays."
    (c,) = svc.conflicts.list()
    assert (c.memory_id, c.kind, c.tool, c.path, c.copy_path) == (item.id, "copy", tool.split()[0], rel, copy_rel)
    health = svc.health()
    assert [p.path for p in health.conflicts] == [copy_rel] and health.unreadable == []
    sides = svc.conflicts.sides(item.id)
    assert sides.theirs.item.content.endswith("Thursdays.") and not sides.automatic


def test_keep_ours_trashes_the_copy_and_undo_brings_it_back(svc):
    item = svc.save("Deploys go out on Tuesdays.", title="Deploy day")
    rel, copy_rel = _copy(svc, item, COPIES["Syncthing"], ("Tuesdays", "Thursdays"))
    svc.sync()
    res = svc.conflicts.resolve(copy_rel, "ours")
    assert not (svc.vault.root / copy_rel).exists() and (svc.vault.root / rel).exists()
    assert svc.conflicts.list() == [] and svc.health().conflicts == []
    assert any(p.name.startswith("2") and "sync-conflict" in p.name for p in (svc.vault.root / ".trash").rglob("*"))
    svc.conflicts.undo(res)
    assert (svc.vault.root / copy_rel).exists() and [c.copy_path for c in svc.conflicts.list()] == [copy_rel]


def test_undo_never_loses_an_edit_made_after_the_resolution(svc):
    item = svc.save("Deploys go out on Tuesdays.", title="Deploy day")
    rel, copy_rel = _copy(svc, item, COPIES["Dropbox"], ("Tuesdays", "Thursdays"))
    svc.sync()
    res = svc.conflicts.resolve(item.id, "ours")
    svc.update(item.id, content="Deploys go out on Mondays now.")
    with pytest.raises(ValidationError, match="changed since"):
        svc.conflicts.undo(res)
    assert svc.get(item.id).content == "Deploys go out on Mondays now." and not (svc.vault.root / copy_rel).exists()


def test_keep_theirs_puts_the_copy_in_the_memory_file(svc):
    item = svc.save("Deploys go out on Tuesdays.", title="Deploy day")
    rel, copy_rel = _copy(svc, item, COPIES["Dropbox"], ("Tuesdays", "Thursdays"))
    svc.sync()
    svc.conflicts.resolve(item.id, "theirs")
    assert svc.get(item.id).content == "Deploys go out on Thursdays." and svc.get(item.id).file_path.endswith(rel)
    assert not (svc.vault.root / copy_rel).exists() and svc.count() == 1


def test_a_copy_that_differs_only_in_updated_at_is_merged_without_asking(svc):
    item = svc.save("Deploys go out on Tuesdays.", title="Deploy day")
    stamp = svc.vault.read(svc.store.file_info(item.id).file_path).updated_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    rel, copy_rel = _copy(svc, item, COPIES["iCloud"], (f"updated_at: '{stamp}'", "updated_at: '2099-01-01T00:00:00Z'"))
    svc.sync()
    assert svc.conflicts.list() == [] and not (svc.vault.root / copy_rel).exists()
    assert svc.get(item.id).updated_at.year == 2099  # the later one


def test_a_second_file_with_an_existing_id_is_a_conflict_too(svc):
    item = svc.save("Deploys go out on Tuesdays.", title="Deploy day")
    rel = svc.store.file_info(item.id).file_path
    text = (svc.vault.root / rel).read_text().replace("Tuesdays", "Fridays")
    (svc.vault.root / "decisions").mkdir(exist_ok=True)
    (svc.vault.root / "decisions" / "deploys.md").write_text(text)
    svc.sync()
    (c,) = svc.conflicts.list()
    assert c.tool == "duplicate id" and c.memory_id == item.id
    res = svc.conflicts.resolve(item.id, "both")
    assert svc.count() == 2 and svc.get(res.new_id).content.endswith("Fridays.")


def test_names_that_only_look_like_copies_are_memories(svc):
    svc.save("Notes of the second meeting.", title="Meeting")
    (svc.vault.root / "context" / "meeting 2.md").write_text("A memory of its own, no id.\n")
    svc.sync()
    assert svc.count() == 2 and svc.conflicts.list() == []


@pytest.mark.parametrize("name, tool, original", [
    ("a/n.sync-conflict-20261123-082800-ABCDEFG.md", "Syncthing", "a/n.md"),
    ("a/n (conflicted copy).md", "Dropbox", "a/n.md"),
    ("a/n (Jane Doe's conflicted copy 2026-11-23).md", "Dropbox", "a/n.md"),
    ("a/n 2.md", "iCloud", "a/n.md"),
    ("a/2026-01-01_n_2.md", None, None),
    ("a/n.sync-conflict-2026.md", None, None),
])  # fmt: skip
def test_copy_names(name, tool, original):
    found = copy_name(name)
    assert (found.tool, found.original) == (tool, original) if tool else found is None
