"""Real git conflicts: two clones of a vault, the same memory edited on both, ``git pull``. The memory stays
found, what needs no person is merged, the rest is shown side by side and resolved (and taken back)."""

from __future__ import annotations

import pytest

from memory_curator.core.conflicts import markers
from memory_curator.core.errors import StorageError
from sync_machines import Machines, git


@pytest.fixture
def machines(tmp_path, config):
    m = Machines(tmp_path, config)
    yield m
    m.close()


def _shared_memory(machines):
    item = machines.a.save("We store vectors in SQLite with sqlite-vec.", title="Vector store",
                           keywords=["sqlite"])
    machines.share()
    return item


def test_different_fields_on_two_machines_end_in_one_clean_memory_with_both_edits(machines):
    item = _shared_memory(machines)
    a, b = machines.a, machines.b
    b.update(item.id, keywords=["sqlite", "vectors"])
    machines.push(b)
    a.update(item.id, title="Vector store: SQLite")
    pulled = machines.pull(a)
    assert pulled.returncode != 0 and "CONFLICT" in pulled.stdout + pulled.stderr  # git could not merge alone
    rel = a.store.file_info(item.id).file_path
    assert markers.has_markers((a.vault.root / rel).read_text())

    a.sync()  # what the app does when it sees the files change

    merged = a.get(item.id)
    assert (merged.title, merged.keywords) == ("Vector store: SQLite", ("sqlite", "vectors"))
    assert a.conflicts.list() == [] and a.health().conflicts == []
    assert not markers.has_markers((a.vault.root / rel).read_text())
    assert not (a.vault.root / ".git" / "MERGE_HEAD").exists()  # the merge was concluded by the app's commit
    log = git(a.vault.root, "log", "-1", "--format=%B").stdout
    assert "Merged the sync conflict of" in log and "without asking" in log
    machines.push(a)
    machines.pull(b)
    b.sync()
    assert (b.get(item.id).title, b.get(item.id).keywords) == ("Vector store: SQLite", ("sqlite", "vectors"))


def test_adjacent_fields_merge_through_the_merge_base(machines):
    """Keywords and salience are neighbouring lines: git puts both in one conflict block, and only the merge
    base (git's stage 1) shows that each machine changed one of them."""
    item = _shared_memory(machines)
    a, b = machines.a, machines.b
    b.update(item.id, salience=0.3)
    machines.push(b)
    a.update(item.id, keywords=["sqlite", "search"])
    machines.pull(a)
    split = markers.split((a.vault.root / a.store.file_info(item.id).file_path).read_text())
    assert "- search" in split.ours and "- search" not in split.theirs and "salience: 0.3" in split.theirs
    a.sync()
    got = a.get(item.id)
    assert (got.keywords, got.salience) == (("sqlite", "search"), 0.3)
    assert a.conflicts.list() == []


@pytest.fixture
def conflicted(machines):
    """The same sentence rewritten on both machines: a conflict only a person can settle."""
    item = _shared_memory(machines)
    a, b = machines.a, machines.b
    b.update(item.id, content="We store vectors in LanceDB.")
    machines.push(b)
    a.update(item.id, content="We store vectors in Postgres with pgvector.")
    machines.pull(a)
    a.sync()
    return a, item


def test_a_conflict_keeps_the_memory_found_and_shows_both_versions(conflicted):
    a, item = conflicted
    (c,) = a.conflicts.list()
    assert (c.memory_id, c.kind, c.tool) == (item.id, "git", "git")
    assert a.get(item.id).content == "We store vectors in Postgres with pgvector."  # this machine's side
    assert [r.memory.id for r in a.search("pgvector")] == [item.id]
    health = a.health()
    assert len(health.conflicts) == 1 and health.unreadable == [] and not health.healthy
    sides = a.conflicts.sides(item.id)
    assert sides.ours.item.content.endswith("pgvector.") and sides.theirs.item.content.endswith("LanceDB.")
    assert sides.base is not None and sides.base.content.endswith("sqlite-vec.")  # git's stage 1
    assert not sides.automatic and sides.merge.conflicting == ["content"]
    with pytest.raises(StorageError, match="sync conflict"):
        a.update(item.id, title="An edit would write over the other version")


def test_keep_theirs_writes_one_clean_file_commits_and_can_be_undone(conflicted):
    a, item = conflicted
    root = a.vault.root
    rel = a.store.file_info(item.id).file_path
    conflicted_text = (root / rel).read_text()
    res = a.conflicts.resolve(item.id, "theirs")
    assert a.get(item.id).content == "We store vectors in LanceDB."
    assert a.conflicts.list() == [] and not markers.has_markers((root / rel).read_text())
    assert [t for t in (root / ".trash").rglob("*.md")]  # the marked file kept in the trash, listed there
    assert [t.content for t in a.list_trash()] == ["We store vectors in Postgres with pgvector."]
    assert not (root / ".git" / "MERGE_HEAD").exists()
    assert "kept the other version" in git(root, "log", "-1", "--format=%B").stdout
    a.conflicts.undo(res)
    assert (root / rel).read_text() == conflicted_text
    assert [c.memory_id for c in a.conflicts.list()] == [item.id]


def test_keep_both_makes_the_other_version_a_linked_memory(conflicted):
    a, item = conflicted
    res = a.conflicts.resolve(item.id, "both")
    assert a.get(item.id).content.endswith("pgvector.")
    other = a.get(res.new_id)
    assert other.content.endswith("LanceDB.") and other.provenance["sync_conflict_of"] == item.id
    assert a.conflicts.list() == []
    a.conflicts.undo(res)
    assert a.get(res.new_id) is None and len(a.conflicts.list()) == 1


def test_a_merge_edited_by_hand(conflicted):
    a, item = conflicted
    sides = a.conflicts.sides(item.id)
    text = sides.proposal.replace("pgvector.", "pgvector; LanceDB was tried too.")
    with pytest.raises(Exception, match="markers"):
        a.conflicts.resolve(item.id, "merged", merged=(a.vault.root / sides.conflict.path).read_text())
    a.conflicts.resolve(item.id, "merged", merged=text)
    assert a.get(item.id).content == "We store vectors in Postgres with pgvector; LanceDB was tried too."
    assert a.conflicts.list() == []


def test_a_rebuilt_index_lists_the_conflicted_memory(conflicted):
    a, item = conflicted
    a.rebuild_index(embed=False)
    assert a.get(item.id).content.endswith("pgvector.")
    assert [c.memory_id for c in a.conflicts.list()] == [item.id]


def test_a_merged_key_keeps_the_spelling_of_the_side_it_was_taken_from(machines):
    """Keys the app does not know are written as their side wrote them, not re-typed by YAML 1.1 rules
    (``13:45`` is 825 to YAML 1.1 and "13:45" to Obsidian): the merged file takes the other side's lines for
    what it takes from the other side."""
    item = _shared_memory(machines)
    a, b = machines.a, machines.b
    path_a = a.vault.root / a.store.file_info(item.id).file_path
    path_a.write_text(path_a.read_text().replace("\n---\n", "\nstart: 12:30\nzip: 012345\n---\n", 1))
    git(a.vault.root, "commit", "-qam", "keys added by hand")
    a.sync()
    machines.push(a)
    machines.pull(b)
    b.sync()
    path_b = b.vault.root / b.store.file_info(item.id).file_path
    path_b.write_text(path_b.read_text().replace("start: 12:30", "start: 13:45  # moved"))  # by hand, in an editor
    git(b.vault.root, "commit", "-qam", "moved by hand")
    b.sync()
    b.update(item.id, salience=0.3)
    machines.push(b)
    a.update(item.id, keywords=["sqlite", "search"])
    machines.pull(a)
    assert markers.has_markers(path_a.read_text())
    a.sync()
    got = a.get(item.id)
    assert (got.keywords, got.salience) == (("sqlite", "search"), 0.3)
    text = path_a.read_text()
    assert "\nstart: 13:45  # moved\n" in text and "\nzip: 012345\n" in text, text
