"""Claude Code's memory: CLAUDE.md sections and the memory folder's topic files become memories; re-importing
after the assistant wrote more adds only what is new; a curated selection exported back is what Claude Code
reads, and round-trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_curator.core.errors import ValidationError
from memory_curator.core.ingest import claude_code
from memory_curator.core.service import MemoryService
from source_fixtures import claude_code_memory, claude_code_project


def by_title(svc):
    return {m.title: m for m in svc.list_memories(limit=1000)}


def test_each_section_of_claude_md_is_a_memory(svc, tmp_path):
    project = claude_code_project(tmp_path / "acme")
    source = svc.sources.read(project)
    assert source.format == "claude-code"
    assert [i.title for i in source.items] == ["Acme shop", "Commands", "Code style", "Architecture"]
    svc.sources.import_items(source)
    mem = by_title(svc)
    assert mem["Acme shop"].content == "Acme is a web shop written in TypeScript."
    assert mem["Code style"].content.startswith("- Two-space indentation\n### Naming")
    assert "## not a heading: inside a code block" in mem["Code style"].content
    assert mem["Architecture"].content == "See @docs/architecture.md for the services."  # imports stay text
    assert {m.scope for m in mem.values()} == {"project"} and {m.category for m in mem.values()} == {"context"}
    assert mem["Commands"].provenance["file"] == "CLAUDE.md" and mem["Commands"].provenance["importer"] == "claude-code"


def test_the_memory_folder_gives_topic_files_and_what_the_index_holds_itself(svc, tmp_path):
    folder = claude_code_memory(tmp_path / "memory")
    source = svc.sources.read(folder)
    # The index's pointer lines are not memories: the topic files they point to are.
    assert [(i.key, i.kind) for i in source.items] == [("MEMORY.md#Build", "section"), ("debugging.md", "topic"),
                                                       ("user_prefs.md", "topic")]
    svc.sources.import_items(source, category="decisions")
    mem = by_title(svc)
    debugging = mem["Debugging notes"]
    assert debugging.summary == "flaky tests and how they were fixed" and debugging.keywords == ("feedback",)
    assert debugging.content.startswith("The checkout test is flaky")
    assert debugging.provenance["frontmatter"]["type"] == "feedback"
    assert mem["Build"].content == "- The CI image caches node_modules; clear it when lockfile changes."


def test_reimporting_after_the_assistant_wrote_more_adds_only_what_is_new(svc, tmp_path):
    folder = claude_code_memory(tmp_path / "memory")
    svc.sources.import_items(folder)
    before = {m.id: m.content for m in svc.list_memories()}
    index = folder / "MEMORY.md"
    index.write_text(index.read_text() + "- Run the e2e suite with --headed to debug selectors.\n\n"
                     "## Deploy\n- Deploys go out on Tuesdays.\n")
    (folder / "testing.md").write_text("---\nname: Testing\ntype: project\n---\n\nUse vitest, not jest.\n")
    assert svc.sources.preview(folder).states == {"MEMORY.md#Build": "changed", "MEMORY.md#Deploy": "new",
                                                 "debugging.md": "imported", "testing.md": "new",
                                                 "user_prefs.md": "imported"}
    report = svc.sources.import_items(folder)
    assert {i.key: i.status for i in report.items} == {"MEMORY.md#Build": "updated", "MEMORY.md#Deploy": "imported",
                                                       "debugging.md": "skipped", "testing.md": "imported",
                                                       "user_prefs.md": "skipped"}
    mem = by_title(svc)
    assert mem["Build"].content.endswith("--headed to debug selectors.") and mem["Build"].id in before
    assert svc.count() == len(before) + 2
    assert [i.status for i in svc.sources.import_items(folder).items] == ["skipped"] * 5


def test_a_selection_exported_as_a_memory_folder_round_trips(svc, tmp_path, vault_dir, config):
    a = svc.save("Always run ruff before committing.", title="Lint first", category="decisions",
                 keywords=["feedback"])
    b = svc.save("The staging database is reset nightly.\n\n## Why\nTests need a clean slate.", title="Staging",
                 summary="staging resets at night")
    svc.save("Not chosen", title="Private")
    out = tmp_path / "claude" / "memory"
    report = svc.sources.export_claude_code([a.id, b.id], out)
    assert sorted(report.files) == ["MEMORY.md", "lint_first.md", "staging.md"]
    index = (out / "MEMORY.md").read_text()
    assert "- [Lint first](lint_first.md): Always run ruff before committing." in index
    assert "- [Staging](staging.md): staging resets at night" in index and "Private" not in index
    topic = (out / "lint_first.md").read_text()
    assert topic.startswith("---\nname: Lint first\ndescription: Always run ruff before committing.\ntype: feedback\n")
    # Importing it back into this vault adds nothing: the files carry the memories' ids.
    assert [i.status for i in svc.sources.import_items(out).items] == ["skipped", "skipped"]
    assert svc.count() == 3
    # And into an empty vault it gives the same memories.
    with MemoryService.open(tmp_path / "other", embedder="none", config=config) as other:
        other.sources.import_items(out)
        got = {m.title: m for m in other.list_memories()}
        assert {t: m.content for t, m in got.items()} == {"Lint first": a.content, "Staging": b.content}
        assert got["Staging"].id == b.id and got["Staging"].summary == "staging resets at night"


def test_an_edit_claude_code_made_to_an_exported_file_comes_back(svc, tmp_path):
    item = svc.save("Use pnpm.", title="Package manager")
    other = svc.save("Prefer tabs.", title="Indentation")
    out = tmp_path / "memory"
    svc.sources.export_claude_code([item.id, other.id], out)
    topic = out / "package_manager.md"
    topic.write_text(topic.read_text().replace("Use pnpm.", "Use pnpm; never npm."))
    # Both sides changed the other memory: the vault keeps its version and says so.
    svc.update(other.id, content="Prefer spaces, four of them.")
    (out / "indentation.md").write_text((out / "indentation.md").read_text().replace("Prefer tabs.", "Tabs!"))
    report = svc.sources.import_items(out)
    assert {i.key: i.status for i in report.items} == {"indentation.md": "skipped", "package_manager.md": "updated"}
    assert svc.get(item.id).content == "Use pnpm; never npm."
    assert svc.get(other.id).content == "Prefer spaces, four of them."
    assert "kept" in report.items[0].warnings[0]


def test_a_claude_md_export_round_trips_even_with_headings_inside(svc, tmp_path, config):
    one = svc.save("# Setup\nRun make.\n\n## Details\nMake calls pip.", title="Build")
    out = tmp_path / "proj"
    svc.sources.export_claude_code([one.id], out, layout="claude-md")
    text = (out / "CLAUDE.md").read_text()
    assert "## Build\n<!-- memory-curator id=" in text and "### Setup" in text and "#### Details" in text
    assert [i.status for i in svc.sources.import_items(out).items] == ["skipped"]
    with MemoryService.open(tmp_path / "fresh", embedder="none", config=config) as fresh:
        fresh.sources.import_items(out)
        [got] = fresh.list_memories()
        assert (got.id, got.title, got.content) == (one.id, "Build", one.content)


def test_an_export_never_overwrites_without_being_told_and_keeps_a_backup(svc, tmp_path):
    item = svc.save("Keep answers short.", title="Style")
    out = claude_code_memory(tmp_path / "memory")
    with pytest.raises(ValidationError, match="already holds"):
        svc.sources.export_claude_code([item.id], out)
    report = svc.sources.export_claude_code([item.id], out, replace=True)
    backup = sorted(p.name for p in (out / ".memory-curator-backup").rglob("*.md"))
    assert backup == ["MEMORY.md", "debugging.md", "user_prefs.md"] and report.backup
    assert sorted(p.name for p in out.glob("*.md")) == ["MEMORY.md", "style.md"]


def test_a_long_index_warns_that_claude_code_reads_200_lines(svc, tmp_path):
    ids = svc.save_batch([{"content": f"Fact {i}", "title": f"Fact {i}"} for i in range(205)]).created_ids
    report = svc.sources.export_claude_code(ids, tmp_path / "memory")
    assert report.count == 205 and "first 200" in report.warnings[0]


def test_unknown_ids_are_refused(svc, tmp_path):
    with pytest.raises(Exception, match="No memory"):
        svc.sources.export_claude_code(["nope"], tmp_path / "memory")
    assert not (tmp_path / "memory").exists()


@settings(max_examples=80)
@given(st.lists(st.one_of(st.from_regex(r"#{1,4} [A-Za-z][A-Za-z ]{0,10}", fullmatch=True),
                          st.text(alphabet="abc xyz-*.", min_size=1, max_size=30),
                          st.just("```"), st.just("")), max_size=25))
def test_sections_keep_every_line_that_is_not_a_heading(lines):
    text = "\n".join(lines)
    title, sections = claude_code.split_sections(text)
    kept = [ln.strip() for _, body in sections for ln in body.splitlines() if not ln.startswith("#")]
    assert [ln for ln in kept if ln] == [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    heads = claude_code.headings(text.splitlines())
    assert len([h for h, _ in sections if h]) + (title is not None) <= len(heads)
