"""The vault folder: where memory files live, how they are named, read, written and trashed."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from memory_curator.core.errors import StorageError, VaultFileError
from memory_curator.core.model import MemoryItem
from memory_curator.core.vault.codec import FrontmatterError, adopted_id, decode_memory, encode_memory
from memory_curator.core.vault.files import atomic_create_text, atomic_write_text, move_exclusive
from memory_curator.core.vault.slug import slugify

TRASH_DIR = ".trash"
STATE_DIR = ".memory-curator"
INDEX_NAME = "index.db"
MAX_FILE_BYTES = 10 * 1024 * 1024
_GITIGNORE = "# Derived state: rebuilt from the markdown files.\nindex.db\nindex.db-*\n.memory-curator/*.lock\n"


@dataclass(frozen=True)
class FileStat:
    rel: str  # posix path relative to the vault root
    mtime_ns: int
    size: int


class Vault:
    def __init__(self, root: Path):
        self.root = Path(root).expanduser().resolve()

    # -- layout ---------------------------------------------------------------------------------------

    def ensure(self) -> None:
        if self.root.exists() and not self.root.is_dir():
            raise StorageError(f"Cannot use {self.root} as a vault: it is a file, not a folder. Choose a folder.")
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            (self.root / STATE_DIR).mkdir(exist_ok=True)
            gitignore = self.root / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text(_GITIGNORE, encoding="utf-8")
        except OSError as exc:
            raise StorageError(f"Cannot use {self.root} as a vault: {exc.strerror or exc}.") from exc

    @property
    def index_path(self) -> Path:
        return self.root / INDEX_NAME

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    @property
    def trash_root(self) -> Path:
        return self.root / TRASH_DIR

    def abs(self, rel: str) -> Path:
        return self.root / rel

    def rel(self, path: Path) -> str:
        return Path(path).resolve().relative_to(self.root).as_posix()

    def new_path(self, item: MemoryItem) -> Path:
        """The preferred path of a new memory file; ``write`` takes the next free name if it is taken."""
        day = item.created_at.astimezone(timezone.utc).strftime("%Y-%m-%d")
        folder = self.root / item.category
        path = folder / f"{day}_{slugify(item.title)}.md"
        # The slug never holds a separator, but check anyway: a title must not choose the folder.
        if path.resolve().parent != folder.resolve():
            raise StorageError(f"Refusing to write outside the vault: {path}")
        return path

    # -- read / write ---------------------------------------------------------------------------------

    def write(self, item: MemoryItem, rel: str | None) -> str:
        """Write ``item``; returns its relative path. Moves the file when the category changed."""
        if rel is not None:
            current = self.abs(rel)
            if current.parent.name == item.category and current.parent.parent == self.root:
                atomic_write_text(current, encode_memory(item))
                return rel
            target = atomic_create_text(self.root / item.category / current.name, encode_memory(item))
            try:
                current.unlink()
            except FileNotFoundError:
                pass
            return self.rel(target)
        return self.rel(atomic_create_text(self.new_path(item), encode_memory(item)))

    def read(self, rel: str) -> MemoryItem:
        path = self.abs(rel)
        try:
            st = path.stat()
            if st.st_size > MAX_FILE_BYTES:
                raise VaultFileError(rel, f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
            raw = path.read_bytes()
        except OSError as exc:
            raise VaultFileError(rel, f"cannot be read ({exc.strerror or exc})") from exc
        if b"\x00" in raw[:8192]:
            raise VaultFileError(rel, "is a binary file, not markdown")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise VaultFileError(rel, "is not UTF-8 text") from None
        folder = rel.split("/")[0] if "/" in rel else "context"
        mtime = datetime.fromtimestamp(st.st_mtime, tz=timezone.utc).replace(microsecond=0)
        try:
            item = decode_memory(
                text,
                default_category=folder.lower(),
                default_id=adopted_id(rel),
                fallback_title=Path(rel).stem,
                file_time=mtime,
            )
        except FrontmatterError as exc:
            raise VaultFileError(rel, str(exc)) from None
        return item

    def delete_file(self, rel: str) -> None:
        try:
            self.abs(rel).unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise StorageError(f"Could not delete {rel}: {exc.strerror or exc}") from exc

    # -- listing --------------------------------------------------------------------------------------

    def scan(self, folder: str = "") -> Iterator[FileStat]:
        """Every memory file: ``*.md`` below the root (or below ``folder``, a category), skipping hidden folders
        (trash, state, .git, .obsidian).

        Polled every few seconds by every process sharing the vault, so it builds relative paths by hand
        (os.path.relpath was two thirds of its cost) and stats through ``scandir`` entries."""
        stack = [(f"{folder}/", str(self.root / folder)) if folder else ("", str(self.root))]
        while stack:
            prefix, folder = stack.pop()
            try:
                entries = os.scandir(folder)
            except OSError:
                continue
            with entries:
                for entry in entries:
                    name = entry.name
                    if name.startswith("."):
                        continue
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append((f"{prefix}{name}/", entry.path))
                            continue
                        if not prefix or not name.endswith(".md"):
                            continue  # files at the top (README.md...) are not memories
                        st = entry.stat()
                    except OSError:
                        continue
                    yield FileStat(prefix + name, st.st_mtime_ns, st.st_size)

    def stat(self, rel: str) -> FileStat | None:
        try:
            st = self.abs(rel).stat()
        except OSError:
            return None
        return FileStat(rel, st.st_mtime_ns, st.st_size)

    # -- trash ----------------------------------------------------------------------------------------

    def move_to_trash(self, rel: str) -> str:
        """Move a file into ``.trash/`` keeping its folder; returns the trash path relative to the root."""
        src = self.abs(rel)
        try:
            dst = move_exclusive(src, self.trash_root / rel)
        except OSError as exc:
            raise StorageError(f"Could not move {rel} to the trash: {exc.strerror or exc}") from exc
        return self.rel(dst)

    def restore_from_trash(self, trash_rel: str) -> str:
        src = self.abs(trash_rel)
        inner = Path(trash_rel).relative_to(TRASH_DIR)
        try:
            dst = move_exclusive(src, self.root / inner)
        except OSError as exc:
            raise StorageError(f"Could not restore {trash_rel}: {exc.strerror or exc}") from exc
        return self.rel(dst)

    def scan_trash(self) -> Iterator[str]:
        if not self.trash_root.exists():
            return
        for path in sorted(self.trash_root.rglob("*.md")):
            yield self.rel(path)
