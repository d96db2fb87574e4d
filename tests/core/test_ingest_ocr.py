"""OCR on import: real images and an image-only PDF made here, read by the real Tesseract (.ci/run installs it)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont
from pypdf import PdfReader, PdfWriter

from memory_curator.core.ingest import ocr
from memory_curator.core.service import MemoryService
from pdf_samples import page_text, write_pdf

FONTS = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"]


def font(size: int = 40) -> ImageFont.FreeTypeFont:
    for path in FONTS:
        if Path(path).exists():
            return ImageFont.truetype(path, size)
    return ImageFont.load_default(size)


def picture(lines: list[str], size=(1400, 400)) -> Image.Image:
    img = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(lines):
        draw.text((40, 40 + i * 70), line, fill="black", font=font())
    return img


def words(text: str) -> set[str]:
    return {w.strip(".,").lower() for w in text.split()}


@pytest.mark.parametrize("suffix, fmt", [(".png", "PNG"), (".jpg", "JPEG"), (".tiff", "TIFF"), (".webp", "WEBP")])
def test_an_image_is_read_into_a_memory_with_ocr_provenance(svc, tmp_path, suffix, fmt):
    src = tmp_path / f"map_tavern{suffix}"
    picture(["The Prancing Pony tavern", "stands beside the old mill"]).save(src, fmt, quality=95)
    (f,) = svc.import_paths([src]).files
    assert f.status == "imported", f.error
    assert f.importer == "ocr"
    item = svc.get(f.memory_ids[0])
    assert {"prancing", "pony", "tavern", "mill"} <= words(item.content)
    prov = item.provenance
    assert prov["source"] == str(src.resolve()) and prov["importer"] == "ocr" and prov["text_from"] == "ocr"
    assert set(prov["ocr_languages"]) <= {"eng", "fin", "jpn"} and "eng" in prov["ocr_languages"]
    assert prov["ocr_engine"].startswith("tesseract ")
    assert svc.search("prancing pony", mode="keyword")[0].memory.id == item.id


def test_a_scanned_pdf_page_is_read_and_its_page_recorded(svc, tmp_path):
    # Page 1 has a text layer (reportlab); page 2 is a picture only (an image saved as PDF by Pillow).
    text_pdf, scan_pdf = tmp_path / "text.pdf", tmp_path / "scan.pdf"
    write_pdf(text_pdf, [page_text(1, 30)])
    picture(["Gandros the wizard owes", "the party a favour"], size=(1700, 2200)).save(scan_pdf, "PDF", resolution=200)
    (f,) = svc.import_paths([scan_pdf]).files
    assert f.status == "imported", f.error
    item = svc.get(f.memory_ids[0])
    assert {"gandros", "wizard", "favour"} <= words(item.content)
    assert item.provenance["importer"] == "pdf" and item.provenance["text_from"] == "ocr"
    assert item.provenance["ocr_pages"] == "1"
    # A PDF with a text layer is read as before, without OCR.
    (g,) = svc.import_paths([text_pdf]).files
    assert g.status == "imported" and "text_from" not in svc.get(g.memory_ids[0]).provenance


def test_without_tesseract_images_fail_with_what_to_install_and_the_rest_imports(vault_dir, config, tmp_path):
    missing = replace(config, ocr_command=str(tmp_path / "no-such-tesseract"))
    svc = MemoryService.open(vault_dir, embedder="none", config=missing)
    try:
        picture(["hello"]).save(tmp_path / "photo.png")
        picture(["scan"], size=(800, 1000)).save(tmp_path / "scan.pdf", "PDF")
        (tmp_path / "note.md").write_text("# Note\n\nplain text still imports", encoding="utf-8")
        report = svc.import_paths([tmp_path / "photo.png", tmp_path / "scan.pdf", tmp_path / "note.md"])
        by_name = {Path(f.path).name: f for f in report.files}
        assert by_name["note.md"].status == "imported"
        for name in ("photo.png", "scan.pdf"):
            err = by_name[name].error
            assert by_name[name].status == "failed"
            assert "Tesseract is not installed" in err and "apt install tesseract-ocr" in err and "brew" in err
        assert svc.count() == 1
    finally:
        svc.close()


def test_a_pdf_with_some_unread_pages_imports_the_rest_and_warns(vault_dir, config, tmp_path):
    write_pdf(tmp_path / "text.pdf", [page_text(1, 30)])
    picture(["scan"], size=(800, 1000)).save(tmp_path / "scan.pdf", "PDF")
    writer = PdfWriter()
    for name in ("text.pdf", "scan.pdf"):
        for page in PdfReader(tmp_path / name).pages:
            writer.add_page(page)
    with open(tmp_path / "mixed.pdf", "wb") as fh:
        writer.write(fh)
    svc = MemoryService.open(vault_dir, embedder="none", config=replace(config, ocr_command="/nonexistent/tesseract"))
    try:
        (f,) = svc.import_paths([tmp_path / "mixed.pdf"]).files
        assert f.status == "imported"
        assert any("pages 2 have no text layer" in w and "Tesseract is not installed" in w for w in f.warnings)
    finally:
        svc.close()


def test_a_damaged_image_is_refused_with_a_reason(svc, tmp_path):
    src = tmp_path / "broken.png"
    src.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    (f,) = svc.import_paths([src]).files
    assert f.status == "failed" and "not a readable image" in f.error


def test_a_missing_language_is_left_out_and_none_at_all_says_which_to_install():
    reader = ocr.Reader(ocr.OcrSettings(languages=("eng", "xxx")))
    assert reader.problem() is None and reader.languages == ("eng",)
    none = ocr.Reader(ocr.OcrSettings(languages=("xxx",)))
    assert "tesseract-ocr-xxx" in none.problem()


@pytest.mark.parametrize("data, kind", [
    (b"\x89PNG\r\n\x1a\n....", "png"), (b"\xff\xd8\xff\xe0", "jpeg"), (b"II*\x00", "tiff"), (b"MM\x00*", "tiff"),
    (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "webp"), (b"%PDF-1.4", None), (b"GIF89a", None), (b"", None),
])  # fmt: skip
def test_image_kind_from_the_first_bytes(data, kind):
    assert ocr.image_kind(data) == kind
