"""Every vault file is untrusted input (a vault arrives by ``git pull``): one file never stops the vault, is
never followed out of it, and never makes the engine write or delete outside it. Issues #12 and #18."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory_curator.core.errors import MemoryNotFoundError, StorageError, ValidationError
from memory_curator.core.ingest.notes import ROOT_CATEGORY, folder_category
from memory_curator.core.service import MemoryService
from memory_curator.core.vault.slug import WINDOWS_DEVICES, validate_category
from memory_curator.core.vault.staging import StagedFiles
from memory_curator.core.vault.store import MAX_FILE_BYTES
from memory_curator.serving import calls

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="links and devices as on POSIX")


def _vault_with(vault_dir: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = vault_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))


def _open_and_use(vault_dir: Path, config) -> tuple[MemoryService, dict[str, str]]:
    """Open, save, search, list, count and read stats: everything a file could break for the whole vault."""
    svc = MemoryService.open(vault_dir, embedder="none", config=config)
    saved = svc.save("A normal memory about the garden and its tomatoes.")
    assert [r.memory.id for r in svc.search("tomatoes", mode="keyword")] == [saved.id]
    svc.list_memories(limit=500)
    svc.stats()
    return svc, {p.path: p.reason for p in svc.problems()}


@pytest.mark.parametrize("name, text, reason", [
    # #12.1: Sudachi refuses input over 49,149 bytes; a run without punctuation used to reach it whole.
    ("long_japanese", "日本語の文章" * 4000, None),
    ("bad_month", "---\nupdated_at: 2025-13-45\n---\nbody", "updated_at is not a date"),
    # #18.3
    ("date_key", "---\n2020-01-01: a date as a key\n---\nbody", None),
    ("nan_salience", "---\nsalience: .nan\n---\nbody", "salience is not a finite number"),
    ("deep_block", "---\n" + "".join(" " * i + f"k{i}:\n" for i in range(3000)) + "---\nbody", "larger than 256 KB"),
    ("deep_block_small", "---\n" + "".join(" " * i + f"k{i}:\n" for i in range(200)) + "---\nbody", "nested more than"),
    ("year_one", "---\nupdated_at: 0001-01-01\ncreated_at: 0001-01-01T00:00:00Z\n---\nbody", None),
    ("year_one_east", "---\ncreated_at: 0001-01-01T00:00:00+14:00\n---\nbody", "out of range"),
    ("huge_int", "---\nx: " + "9" * 6000 + "\n---\nbody", None),
    ("billion_laughs", "---\n" + "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
     + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9)) + "---\nbody",
     "expands to more than"),
    ("recursive_alias", "---\nx: &x [*x]\n---\nbody", "contains itself"),
    ("hex_int", "---\nx: 0x" + "f" * 5000 + "\n---\nbody", None),
    ("complex_key", "---\n? [a, b]\n: x\n---\nbody", "frontmatter is not valid YAML"),
    ("python_tag", "---\nx: !!python/object/apply:os.system [echo]\n---\nbody", "frontmatter is not valid YAML"),
    # found by the vault fuzz: PyYAML's constructors raise KeyError, ValueError, AttributeError, TypeError here
    ("bool_maybe", "---\nx: !!bool maybe\n---\nbody", "its tag cannot be"),
    ("float_x", "---\nx: !!float x\n---\nbody", "its tag cannot be"),
    ("timestamp_x", "---\nx: !!timestamp x\n---\nbody", "its tag cannot be"),
    ("map_of_list", "---\nx: !!map [a]\n---\nbody", "its tag cannot be"),
])  # fmt: skip
def test_one_hostile_file_never_stops_the_vault(vault_dir, config, name, text, reason):
    _vault_with(vault_dir, {f"context/{name}.md": text})
    svc, problems = _open_and_use(vault_dir, config)
    try:
        if reason is None:
            assert f"context/{name}.md" not in problems
        else:
            assert reason in problems[f"context/{name}.md"]
    finally:
        svc.close()


def test_a_merge_key_bomb_is_refused_or_read_as_the_few_keys_it_holds(vault_dir, config):
    """'<<: [*a, *a]' at each of 30 levels: PyYAML up to 6.0.3 copies 2^30 pairs (our loader stops it past the
    limit and reports the file); 6.0.4 merges each key once, and the file is three small mappings deep."""
    _vault_with(vault_dir, {"context/bomb.md": "---\nid: bomb\nb0: &b0 {k: 1}\n" + "".join(
        f"b{i}: &b{i} {{<<: [*b{i - 1}, *b{i - 1}]}}\n" for i in range(1, 30)) + "---\nbody"})
    svc, problems = _open_and_use(vault_dir, config)
    try:
        if "context/bomb.md" in problems:
            assert "expand past the limit" in problems["context/bomb.md"]
        else:
            assert svc.get("bomb").extra["b29"] == {"k": 1}
    finally:
        svc.close()


def test_a_date_as_a_key_is_kept_as_its_text(svc, vault_dir):
    _vault_with(vault_dir, {"context/d.md": "---\nid: d\n2020-01-01: new year\nyes: 1\n---\nbody"})
    svc.sync()
    assert svc.get("d").extra == {"2020-01-01": "new year", "yes": 1}


def test_year_one_lists_and_sorts(svc, vault_dir):
    _vault_with(vault_dir, {"context/old.md": "---\nid: old\nupdated_at: 0001-01-01\n---\nvery old"})
    svc.sync()
    assert svc.get("old").updated_at.year == 1
    assert [m.id for m in svc.list_memories(order_by="updated")][-1] == "old"
    assert [m.id for m in svc.list_memories(order_by="created", descending=False)][0] == "old"


DEEP_FLOW = "---\nx: " + "[" * 100_000 + "]" * 100_000 + "\n---\nbody"


def test_deep_flow_nesting_does_not_kill_the_process(tmp_path):
    """#18.2: libyaml's loader recursed until the C stack overflowed (SIGSEGV): run it where a crash shows."""
    vault = tmp_path / "vault"
    _vault_with(vault, {"context/deep.md": DEEP_FLOW, "context/fine.md": "a fine memory"})
    code = ("import sys\nfrom memory_curator.core.service import MemoryService\n"
            "svc = MemoryService.open(sys.argv[1], embedder='none')\n"
            "print(len(svc.list_memories()), [p.reason for p in svc.problems()])\n")
    done = subprocess.run([sys.executable, "-c", code, str(vault)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "OLLAMA_HOST": "http://127.0.0.1:9"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("1 [") and "nested more than 64 levels" in done.stdout


@posix_only
def test_a_link_out_of_the_vault_is_reported_and_never_read(vault_dir, config, tmp_path):
    """#12.2: context/passwd.md -> /etc/passwd was indexed and came back from search."""
    secret = tmp_path / "outside.txt"
    secret.write_text("root:x:0:0 the secret outside the vault")
    (vault_dir / "context").mkdir(parents=True)
    os.symlink(secret, vault_dir / "context" / "passwd.md")
    os.symlink("/dev/zero", vault_dir / "context" / "zero.md")  # #18.3: an endless read
    os.symlink(vault_dir / "context" / "missing", vault_dir / "context" / "dangling.md")
    svc, problems = _open_and_use(vault_dir, config)
    try:
        assert svc.search("secret root", mode="keyword") == []
        assert "a file outside the vault" in problems["context/passwd.md"]
        assert "link" in problems["context/zero.md"] and "link" in problems["context/dangling.md"]
    finally:
        svc.close()
    assert secret.read_text() == "root:x:0:0 the secret outside the vault"


@posix_only
def test_a_link_to_another_vault_file_is_not_a_second_copy(svc, vault_dir):
    m = svc.save("the one true copy", category="context")
    os.symlink(m.file_path, vault_dir / "context" / "alias.md")
    svc.sync()
    assert svc.get(m.id).file_path == m.file_path
    assert "another file of the vault" in {p.path: p.reason for p in svc.problems()}["context/alias.md"]
    svc.pin(m.id)
    assert os.path.islink(vault_dir / "context" / "alias.md")  # left as it was


@posix_only
def test_a_fifo_is_reported_without_blocking(svc, vault_dir):
    (vault_dir / "context").mkdir(exist_ok=True)
    os.mkfifo(vault_dir / "context" / "pipe.md")
    svc.sync()
    assert "not a file" in {p.path: p.reason for p in svc.problems()}["context/pipe.md"]


def test_a_folder_named_md_is_a_folder(svc, vault_dir):
    _vault_with(vault_dir, {"context/notes.md/inner.md": "inside a folder named like a file"})
    svc.sync()
    assert [m.title for m in svc.list_memories()] == ["inside a folder named like a file"]
    assert svc.problems() == []


@posix_only
def test_nothing_is_written_or_deleted_through_a_linked_folder(svc, vault_dir, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.md").write_text("not the vault's")
    os.symlink(outside, vault_dir / "ideas")
    with pytest.raises(StorageError, match="link"):
        svc.save("into a linked folder", category="ideas")
    m = svc.save("to trash")
    os.symlink(outside, vault_dir / ".trash")
    with pytest.raises(StorageError, match="link"):
        svc.delete(m.id)
    assert svc.empty_trash() == 0
    assert sorted(p.name for p in outside.iterdir()) == ["keep.md"]


@posix_only
def test_a_linked_index_or_state_folder_is_refused(tmp_path, config):
    vault = tmp_path / "vault"
    vault.mkdir()
    target = tmp_path / "precious.db"
    target.write_text("someone else's file")
    os.symlink(target, vault / "index.db")
    with pytest.raises(StorageError, match="index.db in it is a link"):
        MemoryService.open(vault, embedder="none", config=config)
    assert target.read_text() == "someone else's file"


@pytest.mark.parametrize("category", ["../../escaped", "/tmp/abs", ".trash", "a" * 300, "con", "x/y"])
def test_a_category_key_never_chooses_a_path(svc, vault_dir, tmp_path, category):
    """#18.1: pin took the category from the file and wrote ../../escaped/, deleting the vault's copy."""
    _vault_with(vault_dir, {"context/e.md": f"---\nid: t\ncategory: {category}\n---\nx"})
    svc.sync()
    assert "is not a category name" in {p.path: p.reason for p in svc.problems()}["context/e.md"]
    with pytest.raises(Exception, match="No memory"):
        svc.pin("t")
    assert (vault_dir / "context" / "e.md").exists()
    assert not (tmp_path / "escaped").exists() and not (vault_dir.parent.parent / "escaped").exists()


@pytest.mark.parametrize("name", ["con", "aux", "nul", "com1", "lpt1", "prn", "lpt9"])
def test_windows_reserved_names_are_not_categories(name):
    """#18.11: a vault with a folder named like a device cannot be checked out on Windows."""
    with pytest.raises(ValidationError):
        validate_category(name)
    with pytest.raises(ValidationError):
        validate_category(name.upper())


def test_a_file_where_a_folder_should_be_is_a_storage_error(svc, vault_dir):
    """Seed 000: a save into a category whose folder name is taken by a plain file was a bare FileExistsError."""
    (vault_dir / "decisions").write_text("a file, not a folder")
    with pytest.raises(StorageError, match="a file is where a folder should be"):
        svc.save("a decision", category="decisions")
    assert svc.count() == 0
    assert sorted(p.name for p in vault_dir.iterdir() if not p.name.startswith((".", "index.db"))) == ["decisions"]


# -- what a kill leaves behind (#18.11) ---------------------------------------------------------------------

def test_temp_files_of_killed_writes_are_removed_at_open(vault_dir, config):
    """`.tmp-*.md~` files a kill left inside the vault were never cleaned."""
    _vault_with(vault_dir, {"context/.tmp-k1l2m3.md~": "half a memo", "projects/a/.tmp-x.md~": "another half",
                            "context/kept.md": "a memory", "context/.obsidian-note.md": "hidden, not ours"})
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert svc.count() == 1
    assert not (vault_dir / "context" / ".tmp-k1l2m3.md~").exists()
    assert not (vault_dir / "projects" / "a" / ".tmp-x.md~").exists()
    assert (vault_dir / "context" / ".obsidian-note.md").exists()


def _staged_batch(vault_dir: Path, config, texts: list[str]) -> Path:
    """The staging folder of a save_batch killed after writing its files, before placing them."""
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        staged = StagedFiles(svc.vault.state_dir, svc.vault.root, svc.vault.checked)
        for i, text in enumerate(texts):
            staged.add(f"context/2025-01-01_batch_{i}.md", f"---\nid: batch-{i}\n---\n{text}\n")
    return staged.dir


def test_a_batch_killed_before_its_record_leaves_nothing(vault_dir, config):
    folder = _staged_batch(vault_dir, config, ["one", "two", "three"])
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert svc.count() == 0
    assert not folder.exists()


def test_a_staged_file_that_cannot_reach_the_disk_fails_the_whole_batch(vault_dir, config):
    """The staged files are synced together before the record: one that fails fails the batch, names its
    memory, and leaves nothing (no record, no staging folder, no file in place)."""
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        staged = StagedFiles(svc.vault.state_dir, svc.vault.root, svc.vault.checked)
        for i in range(12):
            staged.add(f"context/2025-01-01_batch_{i}.md", f"---\nid: batch-{i}\n---\ntext {i}\n")
        (staged.dir / "000007.md~").unlink()  # the kernel's own ENOENT where a sync fails
        with pytest.raises(StorageError, match="batch_7"):
            staged.commit()
        assert not staged.dir.exists()
        assert not (vault_dir / "context").exists() or not any((vault_dir / "context").iterdir())


def test_a_batch_killed_after_its_record_is_finished_at_open(vault_dir, config):
    folder = _staged_batch(vault_dir, config, ["one", "two", "three"])
    (folder / "COMMIT").write_text('["context/2025-01-01_batch_0.md", "context/2025-01-01_batch_1.md", '
                                   '"context/2025-01-01_batch_2.md"]')
    (vault_dir / "context").mkdir()
    os.link(folder / "000000.md~", vault_dir / "context" / "2025-01-01_batch_0.md")  # killed mid-move
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert sorted(m.id for m in svc.list_memories()) == ["batch-0", "batch-1", "batch-2"]
        assert svc.problems() == []
    assert not folder.exists()


def test_the_apps_opening_sync_finishes_killed_batches_and_scores_and_tidies_as_an_open_does(vault_dir, config):
    """The app opens without a sync and then asks for one (with progress): that sync must do what an open's
    does, or a batch a kill cut short stayed half placed until some other program opened the vault."""
    folder = _staged_batch(vault_dir, config, ["one", "two"])
    (folder / "COMMIT").write_text('["context/2025-01-01_batch_0.md", "context/2025-01-01_batch_1.md"]')
    (vault_dir / "context").mkdir()
    (vault_dir / "context" / ".tmp-k1l2m3.md~").write_text("half a memo")
    (vault_dir / "context" / "by-hand.md").write_text("---\nid: by-hand\n---\nwritten by another program\n")
    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False) as svc:
        svc.sync()
        assert sorted(m.id for m in svc.list_memories()) == ["batch-0", "batch-1", "by-hand"]
        assert all(m.importance > 0 for m in svc.list_memories())  # a first importance, not the placeholder
    assert not folder.exists() and not (vault_dir / "context" / ".tmp-k1l2m3.md~").exists()


def test_a_batch_record_from_git_cannot_place_files_outside(vault_dir, config, tmp_path):
    folder = _staged_batch(vault_dir, config, ["escape"])
    (folder / "COMMIT").write_text('["../../escaped.md"]')
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert svc.count() == 0
    assert not (tmp_path / "escaped.md").exists() and not folder.exists()


def test_save_batch_is_all_or_nothing_when_a_write_fails(svc, vault_dir):
    (vault_dir / "blocked").write_text("a file where the second item's folder would go")
    with pytest.raises(StorageError):
        svc.save_batch([{"content": "first"}, {"content": "second", "category": "blocked"}, {"content": "third"}])
    assert svc.count() == 0 and list((vault_dir / "context").glob("*.md")) == []


# -- the vault's other files, and folders to import: found by tests/fuzz/test_vault_fuzz.py -------------------

def _open_elsewhere(vault: Path) -> subprocess.CompletedProcess:
    """Open, list and read problems in another process: a hang or a crash fails the test, not the run."""
    code = ("import sys\nfrom memory_curator.core.service import MemoryService\n"
            "svc = MemoryService.open(sys.argv[1], embedder='none')\n"
            "print(len(svc.list_memories()), sorted(p.path for p in svc.problems()))\n"
            "svc.save('an assistant saves: the inbox setting is read from vault.json', source='ai')\nsvc.close()\n")
    return subprocess.run([sys.executable, "-c", code, str(vault)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "OLLAMA_HOST": "http://127.0.0.1:9"})


@posix_only
@pytest.mark.parametrize("what", ["fifo", "zero", "deep", "bad_dim"])
def test_a_hostile_vault_json_never_stops_the_vault(tmp_path, what):
    """A FIFO named .memory-curator/vault.json blocked open for ever; /dev/zero read without end."""
    vault = tmp_path / "vault"
    _vault_with(vault, {"context/fine.md": "a fine memory"})
    settings = vault / ".memory-curator" / "vault.json"
    settings.parent.mkdir()
    if what == "fifo":
        os.mkfifo(settings)
    elif what == "zero":
        os.symlink("/dev/zero", settings)
    elif what == "deep":
        settings.write_text('{"a": ' * 100_000)
    else:
        settings.write_text('{"embedding": {"provider": "ollama", "model": "m", "dim": "huge"}}')
    done = _open_elsewhere(vault)
    assert done.returncode == 0 and done.stdout.startswith("1 "), done.stderr[-2000:]


@posix_only
@pytest.mark.parametrize("what, reason", [
    ("fifo", "not a file"), ("zero", "link"), ("outside", "link"),
    ("laughs", "expands to more than"), ("deep", "nested more than"),
])  # fmt: skip
def test_a_hostile_entities_yaml_is_reported_and_never_read_through(tmp_path, config, what, reason):
    """entities.yaml was read with yaml.safe_load after a stat that followed links: a FIFO hung open, a link to
    /dev/zero read without end, a billion laughs expanded, and a link's target outside was read."""
    vault = tmp_path / "vault"
    _vault_with(vault, {"context/fine.md": "a fine memory"})
    target = vault / "entities.yaml"
    outside = tmp_path / "outside.yaml"
    outside.write_text("entities:\n  Secret: [outside]\n")
    if what == "fifo":
        os.mkfifo(target)
    elif what in ("zero", "outside"):
        os.symlink("/dev/zero" if what == "zero" else outside, target)
    elif what == "laughs":
        target.write_text("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
            f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9)))
    else:
        target.write_text("entities: " + "[" * 5000 + "]" * 5000 + "\n")
    done = _open_elsewhere(vault)
    assert done.returncode == 0 and done.stdout.startswith("1 "), done.stderr[-2000:]
    with MemoryService.open(vault, embedder="none", config=config) as svc:
        assert reason in {p.path: p.reason for p in svc.problems()}["entities.yaml"]
        assert svc.graph.entity("Secret") is None
    assert outside.read_text() == "entities:\n  Secret: [outside]\n"


@posix_only
def test_a_linked_gitignore_is_never_written_through(tmp_path, config):
    """History appended the index's lines to .gitignore through a link: to a file outside the vault."""
    vault = tmp_path / "vault"
    vault.mkdir()
    outside = tmp_path / "bashrc"
    outside.write_text("export KEEP=1\n")
    os.symlink(outside, vault / ".gitignore")
    subprocess.run(["git", "init", "-q"], cwd=vault, check=True)
    with MemoryService.open(vault, embedder="none", config=config) as svc:
        svc.save("Something worth a commit")
        svc.commit_history(force=True)
    assert outside.read_text() == "export KEEP=1\n"
    assert os.path.islink(vault / ".gitignore")
    assert "index.db" in (vault / ".git" / "info" / "exclude").read_text()


@posix_only
def test_importing_a_folder_never_follows_its_links_nor_blocks_on_a_fifo(svc, tmp_path):
    """A folder to import (a notes repository from someone else) linked notes.md -> a file outside: it was
    imported into the vault, and from there served to every LLM client. A FIFO blocked the import."""
    source = tmp_path / "source"
    source.mkdir()
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY of the user")
    os.symlink(secret, source / "notes.md")
    os.mkfifo(source / "pipe.md")
    (source / "real.md").write_text("# Real\n\nA real note to import.")
    report = svc.import_paths([source])
    assert [m.title for m in svc.list_memories()] == ["Real"]
    reasons = {Path(f.path).name: f.error for f in report.files}
    assert "is a link" in reasons["notes.md"] and "not a file" in reasons["pipe.md"]
    svc.sources.import_items(source, format="obsidian")
    assert svc.search("PRIVATE", mode="keyword") == []


@pytest.mark.parametrize("folder", ["com1", "lpt9", "con", "aux"])
def test_an_imported_folder_named_like_a_windows_device_is_not_a_category(folder):
    """#18.11: Obsidian import took com1/ and lpt1/ as categories (only con, prn, aux and nul were refused)."""
    assert folder_category(f"{folder}/note.md") == ROOT_CATEGORY
    assert folder_category(f"{folder.upper()}/note.md") == ROOT_CATEGORY


@posix_only
def test_a_file_named_in_bytes_that_are_not_utf8_is_reported_not_fatal(tmp_path, config):
    """A file named b'\\xff\\xfe.md' (from another system, by git or a zip) stopped open: its path has no UTF-8
    for the id, the index or JSON (UnicodeEncodeError). Import of such a folder failed the same way."""
    vault = tmp_path / "vault"
    _vault_with(vault, {"context/fine.md": "a fine memory"})
    for folder in (b"context", b"caf\xe9"):
        os.makedirs(os.path.join(os.fsencode(vault), folder), exist_ok=True)
        with open(os.path.join(os.fsencode(vault), folder, b"\xff\xfe.md"), "wb") as fh:
            fh.write(b"---\ntitle: bytes\n---\nbody")
    with MemoryService.open(vault, embedder="none", config=config) as svc:
        assert [m.title for m in svc.list_memories()] == ["a fine memory"]
        reasons = {p.path: p.reason for p in svc.problems()}
        assert "not UTF-8" in reasons["context/\ufffd\ufffd.md"] and "not UTF-8" in reasons["caf\ufffd"]
        assert {p.path for p in svc.health().unreadable} >= {"context/\ufffd\ufffd.md", "caf\ufffd"}
        svc.sources.import_items(vault, format="obsidian")
        assert svc.sources.preview(vault, format="obsidian") is not None


@pytest.mark.parametrize("folder", ["con", "ünïcödé", "a b", "-rf", "COM1"])
def test_a_memory_in_a_folder_that_is_no_category_name_survives_a_rewrite(svc, vault_dir, folder):
    """An adopted file in con/ took 'con' as its category; pin wrote 'category: con' into it, which no longer
    reads back: the memory vanished from the vault at the next sync."""
    _vault_with(vault_dir, {f"{folder}/note.md": "---\nid: n\n---\na note in an odd folder"})
    svc.sync()
    assert svc.get("n").category == "context"
    svc.pin("n")
    svc.sync()
    assert svc.get("n").pinned and svc.get("n").file_path.endswith(f"{folder}/note.md")
    assert svc.problems() == []


@posix_only
def test_importing_a_file_named_in_bytes_that_are_not_utf8_skips_it(svc, tmp_path):
    """Found by the vault fuzz: import_paths failed such a file with a logged traceback (UnicodeEncodeError in
    its id) and put the undecodable name in its report, which JSON cannot carry."""
    source = os.fsencode(tmp_path / "source")
    os.makedirs(source)
    with open(os.path.join(source, b"ok\x80.md"), "wb") as fh:
        fh.write(b"# Bytes\n\nA note with a strange name.")
    report = svc.import_paths([os.fsdecode(source)])
    [result] = report.files
    assert result.status == "skipped" and "not UTF-8" in result.error and result.path.endswith("ok\ufffd.md")
    assert svc.count() == 0


@pytest.mark.parametrize("name", ["con", "AUX", "nul", "com1", "LPT1", "com¹", "prn"])
def test_windows_device_names_never_become_file_or_folder_names(svc, name):
    """#18.11: no file or folder the engine makes is named like a Windows device (the vault could not be checked
    out there); as a category the name is refused on save and on update, with what to choose instead."""
    m = svc.save("a memory titled like a device", title=name)
    stem = Path(m.file_path).name.split(".")[0].split("_", 1)[1]  # {date}_{slug}.md
    assert stem.lower() not in WINDOWS_DEVICES and stem == "memory"
    reason = "Windows keeps for a device" if name.isascii() else "not allowed"  # 'com¹' is no category name at all
    with pytest.raises(ValidationError, match=reason):
        svc.save("x", category=name)
    with pytest.raises(ValidationError, match=reason):
        svc.update(m.id, category=name)
    assert not any(p.name.lower() in WINDOWS_DEVICES for p in Path(m.file_path).parents[1].iterdir())


@pytest.mark.parametrize("value", ["!!bool maybe", "!!float x", "!!timestamp x", "!!map [a]"])
def test_a_tag_yaml_cannot_build_is_a_problem_of_that_note_on_import(svc, tmp_path, value):
    """Found by the vault fuzz: Obsidian preview and import raised KeyError/ValueError/AttributeError/TypeError
    from PyYAML's constructors for one note; now that note is reported and the others come in."""
    source = tmp_path / "notes"
    (source / ".obsidian").mkdir(parents=True)
    (source / "bad.md").write_text(f"---\nx: {value}\n---\nbad")
    (source / "good.md").write_text("---\ntags: [a]\n---\n# Good\n\ngood note")
    svc.sources.import_items(source, format="obsidian")
    assert [m.title for m in svc.list_memories()] == ["good"]  # Obsidian: the title is the file name


# The fuzz vault whose import hung past 30 s (#18): "----" is no frontmatter fence, so a 97 KB run of "[" after
# "<<: " was the note's body, and the wiki-link pattern scanned from every "[" to the end (quadratic: minutes).
BRACKETS = {"bomb.md": b"\xef\xbb\xbf----\n<<: " + b"[" * 97_000 + b"\n----\nbody\n",
            "decisions/CLAUDE.md": b"\xef\xbb\xbf----\n<<: " + b"[[a#" * 25_000 + b"\n----\n",
            "-rf.md": b"\xff\xfe", "links.md": b"---\ntitle: t\n---\n" + b"](" * 60_000 + b"[[a|" * 30_000}


@posix_only
def test_runs_of_link_brackets_are_read_in_one_pass(tmp_path):
    """Open, import as files and as an Obsidian vault: each is one pass over the brackets, so it ends well inside
    the timeout (before the fix the import alone took minutes; the timeout is generous for a loaded machine)."""
    source, vault = tmp_path / "source", tmp_path / "vault"
    _vault_with(source, BRACKETS)
    with open(os.path.join(os.fsencode(source), b"\xff\xfe.md"), "wb") as fh:
        fh.write(("---\n" + "\n".join(" " * i + f"k{i}:" for i in range(200)) + "\n---\nx\n").encode())
    _vault_with(vault, {"context/links.md": BRACKETS["links.md"], "context/fine.md": "a fine memory"})
    code = ("import sys\nfrom memory_curator.core.service import MemoryService\n"
            "svc = MemoryService.open(sys.argv[1], embedder='none')\n"
            "report = svc.import_paths([sys.argv[2]])\n"
            "preview = svc.sources.preview(sys.argv[2], format='obsidian')\n"
            "svc.sources.import_items(sys.argv[2], format='obsidian')\n"
            "print(len(report.memory_ids), len(svc.list_memories(limit=1000)))\n")
    done = subprocess.run([sys.executable, "-c", code, str(vault), str(source)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "OLLAMA_HOST": "http://127.0.0.1:9"})
    assert done.returncode == 0, done.stderr[-2000:]
    imported, listed = map(int, done.stdout.split())
    assert imported >= 2 and listed > imported


@pytest.mark.parametrize("name, text", [
    (" .md", "\ufeff---\r\n0x10: \"\\0\"\r\n# a comment\r\nnull: []\r\n---\r\n"),  # found by the long fuzz run
    ("blank.md", "---\ntitle: '  '\n---\n"),
])
def test_a_memory_title_is_never_blank(svc, vault_dir, name, text):
    _vault_with(vault_dir, {f"projects/alpha/{name}": text})
    svc.sync()
    titles = [m.title for m in svc.list_memories()]
    assert titles and all(t.strip() for t in titles)
    for title in titles:
        svc.search(title, mode="keyword")


@pytest.mark.parametrize("change", ["pin", "salience", "update"])
def test_a_rewrite_never_grows_a_file_past_what_the_vault_reads(vault_dir, config, change):
    """A file of exactly the 10 MiB limit is listed; a pin adding one line used to write 10 MiB + 13 bytes,
    which the next open skips: the memory vanished (found by the vault fuzz). The rewrite is refused instead,
    the file is left as it was, and the memory is still there after reopening."""
    head = "---\nid: big\ntitle: Big\n---\n"
    text = head + "x" * (MAX_FILE_BYTES - len(head))
    _vault_with(vault_dir, {"context/big.md": text})
    svc = MemoryService.open(vault_dir, embedder="none", config=config)
    assert svc.get("big").title == "Big"
    with pytest.raises(ValidationError, match="10 MiB") as refused:
        if change == "pin":
            svc.pin("big")
        elif change == "salience":
            svc.set_salience("big", 0.9)
        else:
            svc.update("big", title="A longer title than before")
    assert refused.value.code == "TOO_LONG"
    assert (vault_dir / "context/big.md").read_text() == text
    svc.close()
    again = MemoryService.open(vault_dir, embedder="none", config=config)
    assert again.get("big").title == "Big" and not again.problems()


def test_new_files_are_refused_before_one_the_vault_cannot_read(svc, vault_dir):
    """The engine's own limits keep a saved memory far below the file limit; an importer or a later limit that
    let one through would still get a refusal before anything is written, not a memory lost at the next open."""
    small, huge = (svc.vault.decode("context/x.md", text) for text in ("small", "y" * MAX_FILE_BYTES))
    for batch in ([huge], [small, huge]):
        with pytest.raises(ValidationError) as refused:
            svc.vault.write_new(batch)
        assert refused.value.code == "TOO_LONG"
    assert not list(vault_dir.rglob("*.md"))


def test_a_missing_id_points_at_the_files_that_could_not_be_read(svc, vault_dir):
    """A memory whose file a merge broke is not listed: pinning it by id says where to look, not only 'no memory'."""
    saved = svc.save("A memory whose file will break.")
    path = vault_dir / saved.file_path
    text = path.read_text()
    path.write_text(text.replace("---\n", "---\nbroken: [\n", 1))
    svc.sync()
    with pytest.raises(MemoryNotFoundError, match="1 file of this vault could not be read") as missing:
        svc.pin(saved.id)
    assert "Vault health" in str(missing.value) and missing.value.code == "NOT_FOUND"
    for by_face in (lambda: calls.owned(svc, saved.id, calls.Caller("http")), lambda: svc.supersede_chain(saved.id)):
        with pytest.raises(MemoryNotFoundError, match="could not be read"):  # every not-found says it, HTTP's too
            by_face()
    path.write_text(text)
    svc.sync()
    assert svc.pin(saved.id).pinned
    with pytest.raises(MemoryNotFoundError) as plain:
        svc.pin("no-such-id")
    assert str(plain.value) == "No memory with id 'no-such-id' in this vault."


@posix_only
def test_a_linked_folder_is_reported_and_never_read(vault_dir, config, tmp_path):
    """A folder of notes linked into the vault was skipped in silence: its memories were missing and Vault
    health said nothing."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.md").write_text("the secret outside the vault")
    (vault_dir / "context").mkdir(parents=True)
    os.symlink(outside, vault_dir / "context" / "linked")
    os.symlink(outside, vault_dir / "ideas")  # a category folder at the top
    os.symlink(vault_dir / "context", vault_dir / "again")  # inside the vault: not a second copy either
    svc, problems = _open_and_use(vault_dir, config)
    try:
        assert svc.search("secret", mode="keyword") == []
        for rel, target in (("context/linked", outside), ("ideas", outside), ("again", vault_dir / "context")):
            assert problems[rel].startswith(f"is a link to a folder ({target})"), problems
        assert {p.path for p in svc.health().unreadable} >= {"context/linked", "ideas", "again"}
        svc.sync()  # the next scan still says it
        assert "ideas" in {p.path for p in svc.problems()}
    finally:
        svc.close()
