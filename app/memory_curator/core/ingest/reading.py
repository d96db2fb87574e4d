"""Reading a file to import as text: size, binary and encoding checks with reasons a user can act on."""

from __future__ import annotations

import re
from pathlib import Path

from memory_curator.core.ingest.report import ImportFileError
from memory_curator.core.vault.files import NotAFile, read_regular

# Signatures of common binary formats, so a PNG renamed to .md is refused with a clear reason.
_MAGIC = {
    b"%PDF-": "pdf",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"PK\x03\x04": "a ZIP archive (or an Office document)",
    b"\x7fELF": "a program",
    b"SQLite format 3": "an SQLite database",
    b"\x1f\x8b": "a gzip archive",
}
# Control bytes, and bytes cp1252 leaves undefined: text holding them is not Windows-1252/Latin-1 either.
_NOT_LATIN = re.compile(rb"[\x00-\x08\x0b\x0e-\x1f\x81\x8d\x8f\x90\x9d]")


def mib(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB"


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """A file named to import (a link is followed: the user chose it); a FIFO or a device is refused, never
    read (it would block, or never end)."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise ImportFileError(
                f"is too large ({mib(size)}; the limit for this kind of file is {mib(max_bytes)}): split it and "
                "import the parts"
            )
        data = read_regular(path, max_bytes, follow_links=True)
    except NotAFile as exc:
        raise ImportFileError(exc.strerror) from None
    except OSError as exc:
        raise ImportFileError(f"cannot be read ({exc.strerror or exc})") from exc
    if len(data) > max_bytes:  # it grew since stat
        raise ImportFileError(f"is too large (the limit for this kind of file is {mib(max_bytes)})")
    if not data.strip():
        raise ImportFileError("is empty: there is nothing to import")
    return data


def sniff(data: bytes) -> str | None:
    """What a file really is, from its first bytes: "pdf", a binary format's name, or None for text."""
    for magic, kind in _MAGIC.items():
        if data.startswith(magic):
            return kind
    if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "binary data"
    return None


def decode_text(data: bytes) -> tuple[str, str]:
    """(text, encoding). UTF-8 (with or without BOM) and UTF-16 with a BOM are read as they are; text that
    is not UTF-8 but reads cleanly as Windows-1252/Latin-1 is accepted and the caller warns about it."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "utf-16"
        except UnicodeDecodeError:
            raise ImportFileError("is not valid UTF-16 text even though it starts like it") from None
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    if _NOT_LATIN.search(data):
        raise ImportFileError("is not UTF-8 text (nor Latin-1): save it as UTF-8 and import it again")
    return data.decode("cp1252"), "cp1252"
