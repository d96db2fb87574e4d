"""Text from pictures (seed 002's Transmutation): images, and PDF pages without a text layer, read by Tesseract.

Tesseract is a program, not a Python package: pytesseract only runs it. When it (or a language) is missing
the import of that file fails with what to install, and every other file is imported as usual.
"""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
import pytesseract
from PIL import Image, ImageSequence, UnidentifiedImageError

from memory_curator.core.ingest.documents import Document, Section
from memory_curator.core.ingest.markdown import pretty_stem
from memory_curator.core.ingest.report import ImportFileError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp")
RENDER_DPI = 300  # Tesseract reads best at 300 dpi; lower loses small print, higher only costs time
MAX_PIXELS = 60_000_000  # a larger picture is refused rather than decoded (a decompression bomb)
INSTALL_HINT = (
    "install Tesseract OCR (Debian/Ubuntu: `sudo apt install tesseract-ocr tesseract-ocr-eng tesseract-ocr-fin "
    "tesseract-ocr-jpn`; macOS: `brew install tesseract tesseract-lang`; Windows: the UB Mannheim installer, "
    "then add it to PATH) and import this file again"
)

# pytesseract keeps the program's path in a module global: calls that set it are serialised.
_lock = threading.Lock()


@dataclass(frozen=True)
class OcrSettings:
    command: str = "tesseract"
    languages: tuple[str, ...] = ("eng", "fin", "jpn")  # those installed are used, together

    @classmethod
    def of(cls, config) -> OcrSettings:
        """From the engine's MemoryConfig (``ocr_command``, ``ocr_languages``)."""
        return cls(config.ocr_command, tuple(config.ocr_languages))


class OcrUnavailable(ImportFileError):
    pass


def image_kind(data: bytes) -> str | None:
    """"png", "jpeg", "tiff" or "webp" from a file's first bytes; None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith((b"II*\x00", b"MM\x00*")):
        return "tiff"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


class Reader:
    """Tesseract as this import found it: the languages it will use, or why it cannot run (checked once)."""

    def __init__(self, settings: OcrSettings):
        self.settings = settings
        self._checked = False
        self._problem: str | None = None
        self.languages: tuple[str, ...] = ()
        self.version = ""

    def _check(self) -> None:
        if self._checked:
            return
        self._checked = True
        with _lock:
            pytesseract.pytesseract.tesseract_cmd = self.settings.command
            try:
                self.version = str(pytesseract.get_tesseract_version())
                installed = set(pytesseract.get_languages(config=""))
            except (pytesseract.TesseractNotFoundError, OSError):
                self._problem = f"needs OCR, but Tesseract is not installed (no `{self.settings.command}`): {INSTALL_HINT}"
                return
            except pytesseract.TesseractError as exc:
                self._problem = f"needs OCR, but Tesseract does not run ({exc.message or exc}): {INSTALL_HINT}"
                return
        self.languages = tuple(lang for lang in self.settings.languages if lang in installed)
        if not self.languages:
            wanted = ", ".join(f"tesseract-ocr-{lang}" for lang in self.settings.languages)
            self._problem = (f"needs OCR, but Tesseract has none of the languages {', '.join(self.settings.languages)}: "
                             f"install one ({wanted}) and import this file again")

    def problem(self) -> str | None:
        """Why OCR cannot run here, as the rest of an import error sentence; None when it can."""
        self._check()
        return self._problem

    def read(self, image: Image.Image) -> str:
        problem = self.problem()
        if problem:
            raise OcrUnavailable(problem)
        with _lock:
            pytesseract.pytesseract.tesseract_cmd = self.settings.command
            try:
                text = pytesseract.image_to_string(image.convert("RGB"), lang="+".join(self.languages))
            except pytesseract.TesseractError as exc:
                raise ImportFileError(f"could not be read by Tesseract ({exc.message or exc})") from None
        return tidy(text)

    def provenance(self, pages: str | None = None) -> dict:
        out: dict = {"text_from": "ocr", "ocr_engine": f"tesseract {self.version}".strip(),
                     "ocr_languages": list(self.languages)}
        if pages:
            out["ocr_pages"] = pages
        return out


def tidy(text: str) -> str:
    """Tesseract's lines joined into paragraphs (blank lines between blocks), form feeds dropped."""
    blocks = [b for b in text.replace("\x0c", "").split("\n\n")]
    out = []
    for block in blocks:
        lines = [ln.strip() for ln in block.splitlines() if ln.strip()]
        if lines:
            joined = lines[0]
            for ln in lines[1:]:
                joined = joined[:-1] + ln if joined.endswith("-") and ln[:1].islower() else f"{joined} {ln}"
            out.append(joined)
    return "\n\n".join(out)


def parse_image(data: bytes, path: Path, reader: Reader) -> Document:
    """An image as a document: one section per frame (a multi-page TIFF has several)."""
    problem = reader.problem()
    if problem:
        raise OcrUnavailable(f"is an image and {problem}")
    try:
        with Image.open(io.BytesIO(data)) as img:
            if img.width * img.height > MAX_PIXELS:
                raise ImportFileError(f"is too large an image ({img.width} x {img.height} pixels; the limit is "
                                      f"{MAX_PIXELS // 1_000_000} million): scale it down and import it again")
            frames = [frame.copy() for frame in ImageSequence.Iterator(img)]
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError, SyntaxError) as exc:
        raise ImportFileError(f"is not a readable image (it looks damaged: {exc})") from None
    sections = []
    for n, frame in enumerate(frames, start=1):
        text = reader.read(frame)
        if text.strip():
            sections.append(Section(text, None, n, n) if len(frames) > 1 else Section(text))
    if not sections:
        raise ImportFileError("is an image with no text Tesseract could read")
    return Document(title=pretty_stem(path), source=str(path), importer="ocr", sections=sections,
                    page_count=len(frames) if len(frames) > 1 else None,
                    extra_provenance=reader.provenance())


def read_pdf_pages(data: bytes, pages: list[int], reader: Reader) -> dict[int, str]:
    """The text of PDF pages (0-based numbers) that have no text layer: each is rendered (pypdfium2) and read."""
    out: dict[int, str] = {}
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise ImportFileError(f"is not a readable PDF for OCR ({exc})") from None
    try:
        for n in pages:
            page = pdf[n]
            try:
                width, height = page.get_size()
                scale = RENDER_DPI / 72
                # A poster-sized page is rendered smaller rather than into a bitmap of gigabytes.
                scale = min(scale, (MAX_PIXELS / max(1.0, width * height)) ** 0.5)
                bitmap = page.render(scale=scale)
                out[n] = reader.read(bitmap.to_pil())
            finally:
                page.close()
    finally:
        pdf.close()
    return out
