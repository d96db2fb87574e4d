"""Importing real files: markdown, text, PDF (reportlab), JSON/JSONL; per-file results; bad files never hurt."""

from __future__ import annotations

import json
import os

import pytest

from memory_curator.core.config import MemoryConfig
from memory_curator.core.errors import ValidationError
from memory_curator.core.ingest.documents import PART_CHARS
from memory_curator.core.progress import CancelToken
from memory_curator.core.service import MemoryService
from pdf_samples import JAPANESE_FONT, page_text, write_pdf

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


def only(report):
    (f,) = report.files
    return f


def files_in(vault_dir):
    return sorted(p.relative_to(vault_dir).as_posix() for p in vault_dir.rglob("*.md") if ".trash" not in p.parts)


# -- markdown and text ----------------------------------------------------------------------------------


def test_markdown_without_frontmatter_becomes_one_memory_with_provenance(svc, tmp_path):
    src = tmp_path / "notes.md"
    src.write_text("# Release plan\n\nShip the importer on Friday.\n", encoding="utf-8")
    f = only(svc.import_paths([src], category="decisions"))
    assert f.status == "imported" and f.importer == "markdown" and len(f.memory_ids) == 1
    item = svc.get(f.memory_ids[0])
    assert item.title == "Release plan" and item.category == "decisions"
    assert "Ship the importer on Friday." in item.content
    prov = item.provenance
    assert prov["source"] == str(src.resolve()) and prov["importer"] == "markdown" and prov["imported_at"]
    assert svc.search("importer Friday", mode="keyword")[0].memory.id == item.id


def test_markdown_with_foreign_frontmatter_keeps_title_tags_and_other_keys(svc, tmp_path):
    src = tmp_path / "obsidian.md"
    src.write_text("---\ntitle: Vector store\ntags: [sqlite, vectors]\naliases: [vs]\n---\nWe use sqlite-vec.\n",
                   encoding="utf-8")
    item = svc.get(only(svc.import_paths([src])).memory_ids[0])
    assert item.title == "Vector store" and item.keywords == ("sqlite", "vectors") and item.category == "context"
    assert item.provenance["frontmatter"] == {"aliases": ["vs"]}
    assert item.content == "We use sqlite-vec."


def test_a_memory_file_of_this_app_keeps_its_fields(svc, tmp_path, config):
    other = MemoryService.open(tmp_path / "other", embedder="none", config=config)
    original = other.save("Remember the milk", category="summaries", title="Shopping", keywords=["milk"],
                          session_id="s9", salience=0.33, summary="milk", scope="project", source="ai")
    path = original.file_path
    other.close()
    f = only(svc.import_paths([path], category="decisions"))
    got = svc.get(f.memory_ids[0])
    assert got.id == original.id and got.category == "summaries"  # its own category wins
    for key in ("title", "content", "keywords", "session_id", "salience", "summary", "scope", "source",
                "created_at", "updated_at"):
        assert getattr(got, key) == getattr(original, key), key
    again = only(svc.import_paths([path]))
    assert again.status == "skipped" and "already in this vault" in again.error
    assert svc.count() == 1


def test_text_in_utf8_and_latin1(svc, tmp_path):
    utf = tmp_path / "utf8.txt"
    utf.write_text("Muistipalvelu tallentaa muistit.\n日本語のメモも読める。\n", encoding="utf-8")
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("Hyvää päivää! Päätös: käytetään SQLiteä.\n".encode("latin-1"))
    report = svc.import_paths([utf, latin])
    a, b = report.files
    assert a.status == b.status == "imported" and not a.warnings
    assert "日本語のメモ" in svc.get(a.memory_ids[0]).content
    item = svc.get(b.memory_ids[0])
    assert item.content == "Hyvää päivää! Päätös: käytetään SQLiteä."
    assert item.provenance["encoding"] == "cp1252" and "Latin-1" in b.warnings[0]


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("image.md", PNG, "PNG image"),
        ("blob.md", b"abc\x00\x01\x02def" * 100, "binary"),
        ("empty.md", b"  \n\n", "empty"),
        ("garbled.txt", b"caf\xe9 \x81\x01 not text", "not UTF-8"),
        ("broken.md", b"---\ntitle: [unclosed\n---\nbody\n", "frontmatter"),
        ("fake.pdf", b"just some text pretending", "not a readable PDF"),
    ],
)
def test_bad_files_fail_with_a_clear_reason(svc, tmp_path, name, data, reason):
    (tmp_path / name).write_bytes(data)
    f = only(svc.import_paths([tmp_path / name]))
    assert f.status == "failed" and reason in f.error and not f.memory_ids
    assert svc.count() == 0


def test_a_huge_file_is_refused_before_it_is_read(tmp_path, config):
    big = tmp_path / "huge.md"
    with open(big, "wb") as fh:
        fh.write(b"# Huge\n\n" + b"word " * (config.max_content_bytes // 5 + 1000))
    with MemoryService.open(tmp_path / "v", embedder="none", config=config) as svc:
        f = only(svc.import_paths([big]))
        assert f.status == "failed" and "too large" in f.error and "MiB" in f.error
        assert svc.count() == 0


def test_long_markdown_becomes_a_parent_and_one_part_per_section(svc, tmp_path):
    sections = [f"## Section {i}\n\n" + f"sectionword{i} " + ("lorem ipsum dolor sit amet " * 200) for i in range(4)]
    src = tmp_path / "handbook.md"
    src.write_text("# Handbook\n\nIntro.\n\n" + "\n\n".join(sections), encoding="utf-8")
    f = only(svc.import_paths([src]))
    parent = svc.get(f.memory_ids[0])
    children = [svc.get(i) for i in f.memory_ids[1:]]
    assert parent.provenance["parts"] == [c.id for c in children] and len(children) >= 4
    assert all(len(c.content) <= PART_CHARS for c in children)
    assert all(c.provenance["parent"] == parent.id for c in children)
    assert [c.provenance["part"] for c in children] == list(range(1, len(children) + 1))
    hit = svc.search("sectionword2", mode="keyword")[0].memory
    assert hit.provenance["section"] == "Section 2" and hit.provenance["parent"] == parent.id


# -- PDF ------------------------------------------------------------------------------------------------


def test_short_multi_page_pdf_is_one_memory_with_its_pages(svc, tmp_path):
    pdf = write_pdf(tmp_path / "minutes.pdf", [page_text(1, 20), page_text(2, 20), page_text(3, 20)],
                    title="Meeting minutes")
    f = only(svc.import_paths([pdf]))
    assert f.importer == "pdf" and len(f.memory_ids) == 1
    item = svc.get(f.memory_ids[0])
    assert item.title == "Meeting minutes" and item.provenance["pages"] == "1-3"
    assert all(f"pagemarker{n}" in item.content for n in (1, 2, 3))
    assert "\n\n" in item.content  # reflowed into paragraphs, not one line per layout line


def test_long_pdf_is_chunked_parent_child_with_page_ranges(svc, tmp_path):
    pdf = write_pdf(tmp_path / "long_report.pdf", [page_text(n, 260) for n in range(1, 31)])
    f = only(svc.import_paths([pdf]))
    parent, *children = [svc.get(i) for i in f.memory_ids]
    assert parent.title == "long report" and parent.provenance["pages"] == "1-30"
    assert parent.provenance["parts"] == [c.id for c in children] and len(children) > 3
    assert "kept in" in parent.content and "pages 1-" in parent.content
    covered = []
    for c in children:
        first, _, last = c.provenance["pages"].partition("-")
        covered += list(range(int(first), int(last or first) + 1))
        assert c.provenance["parent"] == parent.id and c.provenance["source"] == str(pdf.resolve())
    assert covered == list(range(1, 31))  # every page in exactly one part, in order
    hit = svc.search("pagemarker17", mode="keyword")[0].memory
    first, _, last = hit.provenance["pages"].partition("-")
    assert int(first) <= 17 <= int(last or first) and hit.id in parent.provenance["parts"]


def test_pdf_outline_names_the_sections(svc, tmp_path):
    pages = [page_text(n, 600) for n in range(1, 7)]
    pdf = write_pdf(tmp_path / "book.pdf", pages, bookmarks={0: "Introduction", 2: "Design", 4: "Results"})
    f = only(svc.import_paths([pdf]))
    children = [svc.get(i) for i in f.memory_ids[1:]]
    assert [c.provenance["section"] for c in children] == ["Introduction", "Design", "Results"]
    assert [c.provenance["pages"] for c in children] == ["1-2", "3-4", "5-6"]
    assert children[1].title.endswith("Design (pages 3-4)")


def test_japanese_pdf_text_is_searchable(svc, tmp_path):
    text = "summary があれば summary を埋め込み対象にする。なければ text を埋め込み対象にする。Redis は TTL 管理（デフォルト 24時間）。"
    pdf = write_pdf(tmp_path / "仕様.pdf", [text], font=JAPANESE_FONT, width=40)
    f = only(svc.import_paths([pdf]))
    item = svc.get(f.memory_ids[0])
    assert "埋め込み対象" in item.content.replace("\n", "")
    assert svc.search("埋め込み", mode="keyword")[0].memory.id == item.id


def test_encrypted_pdf_is_refused_and_says_what_to_do(svc, tmp_path):
    pdf = write_pdf(tmp_path / "secret.pdf", ["top secret"], password="hunter2")
    f = only(svc.import_paths([pdf]))
    assert f.status == "failed" and "encrypted" in f.error and "password" in f.error


def test_corrupt_pdf_is_refused(svc, tmp_path):
    good = write_pdf(tmp_path / "good.pdf", [page_text(1)]).read_bytes()
    bad = tmp_path / "corrupt.pdf"
    bad.write_bytes(good[:9] + os.urandom(len(good) // 2))
    f = only(svc.import_paths([bad]))
    assert f.status == "failed" and "PDF" in f.error


def test_a_pdf_named_md_is_read_as_a_pdf(svc, tmp_path):
    src = tmp_path / "actually.md"
    src.write_bytes(write_pdf(tmp_path / "x.pdf", [page_text(5, 20)]).read_bytes())
    f = only(svc.import_paths([src]))
    assert f.status == "imported" and f.importer == "pdf"


# -- folders, failures, progress, cancel ----------------------------------------------------------------


def test_folder_tree_imports_every_supported_file_and_reports_each(svc, tmp_path, vault_dir):
    root = tmp_path / "docs"
    (root / "a" / "b").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "a" / "one.md").write_text("# One\n\nfirst file", encoding="utf-8")
    (root / "a" / "b" / "two.txt").write_text("second file", encoding="utf-8")
    write_pdf(root / "a" / "b" / "three.pdf", [page_text(3, 20)])
    (root / "a" / "clip.gif").write_bytes(b"GIF89a" + bytes(64))
    (root / "a" / "bad.md").write_bytes(PNG)
    (root / ".git" / "HEAD.md").write_text("hidden", encoding="utf-8")
    before = files_in(vault_dir)
    report = svc.import_paths([root])
    by_name = {os.path.basename(f.path): f for f in report.files}
    assert set(by_name) == {"one.md", "two.txt", "three.pdf", "clip.gif", "bad.md"}
    assert [by_name[n].status for n in ("one.md", "two.txt", "three.pdf")] == ["imported"] * 3
    assert by_name["clip.gif"].status == "skipped" and by_name["bad.md"].status == "failed"
    assert svc.count() == 3 == len(report.memory_ids)
    assert len(files_in(vault_dir)) == len(before) + 3
    d = report.as_dict()
    assert d["imported_files"] == 3 and d["failed_files"] == 1 and d["skipped_files"] == 1


def test_progress_reports_every_file_and_cancel_keeps_what_was_done(svc, tmp_path):
    for i in range(5):
        (tmp_path / f"f{i}.md").write_text(f"# F{i}\n\nfile number {i}", encoding="utf-8")
    token = CancelToken()
    seen = []

    def progress(done, total, message):
        seen.append((done, total, message))
        if done == 2:
            token.cancel()

    report = svc.import_paths([tmp_path / f"f{i}.md" for i in range(5)], progress=progress, cancel=token)
    assert report.cancelled and seen[:2] == [(1, 5, "f0.md"), (2, 5, "f1.md")]
    assert len(report.memory_ids) == 2 == svc.count()


def test_unknown_category_is_refused_up_front(svc, tmp_path):
    (tmp_path / "a.md").write_text("x", encoding="utf-8")
    with pytest.raises(ValidationError):
        svc.import_paths([tmp_path / "a.md"], category="../escape")


def test_seed_import_memories_returns_the_count(svc, tmp_path):
    (tmp_path / "a.md").write_text("alpha", encoding="utf-8")
    (tmp_path / "b.txt").write_text("beta", encoding="utf-8")
    assert svc.import_memories(tmp_path, category="summaries") == 2
    assert svc.categories()["summaries"] == 2


# -- JSON / JSONL ---------------------------------------------------------------------------------------


def test_jsonl_with_a_bad_line_imports_the_rest(svc, tmp_path):
    src = tmp_path / "dump.jsonl"
    src.write_text(
        json.dumps({"content": "first record", "title": "First", "keywords": ["a"]}) + "\n"
        + "{not json\n"
        + json.dumps({"title": "no content"}) + "\n"
        + json.dumps({"content": "third record", "category": "decisions", "salience": 0.4}) + "\n",
        encoding="utf-8",
    )
    f = only(svc.import_paths([src]))
    assert f.status == "imported" and f.importer == "json" and len(f.memory_ids) == 2
    assert any("line 2" in w for w in f.warnings) and any("content" in w for w in f.warnings)
    third = svc.get(f.memory_ids[1])
    assert third.category == "decisions" and third.salience == 0.4


def test_json_that_is_not_an_export_is_refused(svc, tmp_path):
    src = tmp_path / "other.json"
    src.write_text(json.dumps({"hello": "world"}), encoding="utf-8")
    f = only(svc.import_paths([src]))
    assert f.status == "failed" and "not an export of this app" in f.error


def test_save_batch_keeps_given_ids_and_refuses_taken_ones(svc):
    (item,) = svc.save_batch([{"content": "kept id", "id": "my-id-1"}])
    assert item.id == "my-id-1"
    with pytest.raises(ValidationError, match="already in this vault"):
        svc.save_batch([{"content": "again", "id": "my-id-1"}])
    result = svc.save_batch([{"content": "a", "id": "dup"}, {"content": "b", "id": "dup"}], mode="skip")
    assert result.success_count == 1 and "already" in result.errors[0]["error"]


def test_config_limit_applies_to_text_files(tmp_path):
    small = MemoryConfig(ollama_host="http://127.0.0.1:9", max_content_bytes=1024)
    (tmp_path / "t.txt").write_text("x" * 2048, encoding="utf-8")
    with MemoryService.open(tmp_path / "v", embedder="none", config=small) as svc:
        f = only(svc.import_paths([tmp_path / "t.txt"]))
        assert f.status == "failed" and "too large" in f.error


def test_files_inside_the_vault_are_not_imported_again(svc, vault_dir):
    svc.save("already here", category="decisions")
    (vault_dir / "context").mkdir(exist_ok=True)
    (vault_dir / "context" / "by-hand.md").write_text("written by another program", encoding="utf-8")
    svc.sync()
    report = svc.import_paths([vault_dir])
    assert report.memory_ids == [] and {f.status for f in report.files} == {"skipped"}
    assert svc.count() == 2
