"""The vault folder: where memory files live, how they are named, read, written and trashed."""

from __future__ import annotations

import errno
import functools
import os
import re
import stat as stat_mode
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from memory_curator.core.conflicts import markers
from memory_curator.core.errors import ConflictedFile, StorageError, ValidationError, VaultFileError
from memory_curator.core.model import MemoryItem, VaultProblem
from memory_curator.core.vault.codec import FrontmatterError, adopted_id, decode_memory, encode_memory
from memory_curator.core.vault.files import (
    TMP_PREFIX,
    TMP_SUFFIX,
    atomic_create_text,
    atomic_write_many,
    atomic_write_text,
    move_exclusive,
    storage_error,
)
from memory_curator.core.vault.slug import slugify, validate_category
from memory_curator.core.vault.staging import StagedFiles, recover

TRASH_DIR = ".trash"
STATE_DIR = ".memory-curator"
INDEX_NAME = "index.db"
MAX_FILE_BYTES = 10 * 1024 * 1024
CONFLICT_REASON = ("is in a sync conflict: git left two versions in it (<<<<<<< … >>>>>>> lines). Resolve it in "
                   "Conflicts (or `memory-curator conflicts`)")
# Opening never follows a link (read through it) and never waits on a pipe.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
# Relative posix paths without empty, '.' or '..' parts, a leading '/' or a backslash: Path would read them as the
# same parts, so a string split gives what checked's Path walk gives.
_PLAIN_REL = re.compile(r"(?!\.\.?(?:/|$))[^/\\\x00]+(?:/(?!\.\.?(?:/|$))[^/\\\x00]+)*\Z")
_GITIGNORE = "# Derived state: rebuilt from the markdown files.\nindex.db\nindex.db-*\n.memory-curator/*.lock\n"


UNKNOWN = -1  # a FileStat's mtime_ns and size from a scan without stats (``Vault.scan(stat=False)``)


@dataclass(frozen=True, slots=True)  # a sync holds one per file: 1,000,000 of them
class FileStat:
    rel: str  # posix path relative to the vault root
    mtime_ns: int
    size: int


class Vault:
    def __init__(self, root: Path):
        self.root = Path(root).expanduser().resolve()
        self._root_str = str(self.root)
        self.leftovers: list[str] = []  # temp files of writes killed midway, seen by the last scan
        # Files and folders whose names are not UTF-8 (bytes from another system), and linked folders: skipped,
        # reported by name
        self.unnamed: dict[str, str] = {}

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
        for name in (STATE_DIR, INDEX_NAME, f"{INDEX_NAME}-wal", f"{INDEX_NAME}-shm", TRASH_DIR):
            # A vault from git could link these elsewhere: the index and trash would be written there.
            if (self.root / name).is_symlink():
                raise StorageError(f"Cannot use {self.root} as a vault: {name} in it is a link to another place. "
                                   f"Remove the link ({self.root / name}); the app recreates what it needs.")

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
        return Path(path).relative_to(self.root).as_posix()

    def folder_category(self, rel: str) -> str:
        """The category of a file without a ``category`` key: its top folder's name when that is a category
        name ('Notes' is 'notes'); else 'context' (a rewrite writes the category key, which must read back)."""
        return "context" if "/" not in rel else _folder_category(rel.split("/", 1)[0])

    def checked(self, rel: str) -> Path:
        """The path of ``rel`` when every folder on the way is a real folder of the vault: writing, moving or
        deleting under a link would change files outside it (``.trash/x -> /home/me``, ``context -> /etc``)."""
        return Path(self._checked_str(rel))

    def _checked_str(self, rel: str) -> str:
        """``checked`` as text. A plain relative posix path (what a scan gives) is split as text, not as a Path:
        building Paths was a tenth of a rebuild's reading."""
        if os.sep == "/" and _PLAIN_REL.match(rel):
            parts: Sequence[str] = rel.split("/")
            path = f"{self._root_str}/{rel}"
        else:
            parts = Path(rel).parts
            if ".." in parts or Path(rel).is_absolute():
                raise StorageError(f"Refusing to touch {rel}: it is outside the vault.")
            path = str(self.root / rel)
        folder = self._root_str
        for part in parts[:-1]:
            folder = os.path.join(folder, part)
            try:
                st = os.lstat(folder)
            except FileNotFoundError:
                break  # created below, as a real folder
            except OSError as exc:
                raise storage_error(Path(folder), exc, "use") from exc
            if stat_mode.S_ISLNK(st.st_mode):
                raise StorageError(f"Refusing to write through {self.rel(Path(folder))}: it is a link to another "
                                   "place. Memory folders must be real folders inside the vault.")
            if not stat_mode.S_ISDIR(st.st_mode):
                raise StorageError(f"Could not use {self.rel(Path(folder))}/: a file is where a folder should be. "
                                   "Move or rename that file.")
        return path

    def new_path(self, item: MemoryItem) -> Path:
        """The preferred path of a new memory file; ``write`` takes the next free name if it is taken."""
        day = item.created_at.astimezone(timezone.utc).strftime("%Y-%m-%d")
        # slugify never returns a separator, and the category is validated: the title cannot choose the folder.
        return self.checked(f"{item.category}/{day}_{slugify(item.title)}.md")

    # -- read / write ---------------------------------------------------------------------------------

    def write_new(self, items: list[MemoryItem]) -> list[str]:
        """Write new memories all together or not at all (see ``staging``); returns their relative paths."""
        if len(items) == 1:
            return [self.write(items[0], None)]
        staged = StagedFiles(self.state_dir, self.root, self.checked)
        try:
            for item in items:
                staged.add(self.rel(self.new_path(item)), _readable_size(encode_memory(item), item))
        except BaseException:
            staged.discard()
            raise
        return staged.commit()

    def recover(self) -> int:
        """Finish or drop the batches of new files a kill interrupted. Hold the write lock."""
        return recover(self.state_dir, self.checked)

    def write(self, item: MemoryItem, rel: str | None) -> str:
        """Write ``item``; returns its relative path. A rewrite keeps the file where it is, and the lines
        of every key it does not change; it moves the file into the category's folder only when the
        category changed (the previous file said another)."""
        if rel is None:
            return self.rel(atomic_create_text(self.new_path(item), _readable_size(encode_memory(item), item)))
        current = self.checked(rel)
        previous = self._previous_text(rel)
        text = _readable_size(encode_memory(item, previous), item)
        if item.category == self._category_of(rel, previous):
            atomic_write_text(current, text)
            return rel
        # The move first: a kill between its two steps leaves two copies of the old file, of which the
        # index keeps the one in its category's folder (see indexing); a kill after it, the old text in
        # the new place. Never two different versions under one id.
        target = self.checked(f"{item.category}/{current.name}")
        moved = move_exclusive(current, target)
        try:
            atomic_write_text(moved, text)
        except StorageError:
            try:
                move_exclusive(moved, current)
            except StorageError:
                pass
            raise
        return self.rel(moved)

    def rewrite_many(self, items: Sequence[tuple[MemoryItem, str]]) -> list[str]:
        """``write`` for many (item, relative path) at once: those that stay where they are (labels, not a new
        category) are written together, their fsyncs in flight at once (``atomic_write_many``); one whose
        category changed is moved and written by ``write``. Returns each one's relative path."""
        out: list[str] = []
        together: list[tuple[Path, str]] = []
        for item, rel in items:
            current = self.checked(rel)
            previous = self._previous_text(rel)
            if item.category != self._category_of(rel, previous):
                out.append(self.write(item, rel))
                continue
            together.append((current, _readable_size(encode_memory(item, previous), item)))
            out.append(rel)
        atomic_write_many(together)
        return out

    def _previous_text(self, rel: str) -> str | None:
        """The text a rewrite keeps unknown keys' lines from, read as ``read`` reads (never through a link, never
        a pipe, no more than the file's size): None when there is none to keep."""
        try:
            return self._read_bytes(rel)[0].decode("utf-8")
        except (VaultFileError, UnicodeDecodeError):
            return None

    def _category_of(self, rel: str, text: str | None) -> str:
        if text is not None:
            try:
                return decode_memory(text, default_category=self.folder_category(rel), default_id="",
                                     fallback_title="").category
            except FrontmatterError:
                pass
        return self.folder_category(rel)

    def read(self, rel: str) -> MemoryItem:
        return self.read_stat(rel)[0]

    def read_stat(self, rel: str) -> tuple[MemoryItem, FileStat]:
        """``read``, with the modification time and size of the file as it was read (``fstat`` of the open file,
        also on a ConflictedFile as ``file_stat``): a rebuild's scan lists names without a stat each."""
        raw, st = self._read_bytes(rel)
        found = FileStat(rel, st.st_mtime_ns, st.st_size)
        if b"\x00" in raw[:8192]:
            raise VaultFileError(rel, "is a binary file, not markdown", file_stat=found)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise VaultFileError(rel, "is not UTF-8 text", file_stat=found) from None

        def mtime() -> datetime:  # only a file without created_at asks for it
            return datetime.fromtimestamp(st.st_mtime, tz=timezone.utc).replace(microsecond=0)

        sides = markers.split(text)
        if sides is not None:  # this machine's side stands for the memory until the conflict is resolved
            try:
                ours = self.decode(rel, sides.ours, mtime)
            except VaultFileError:
                ours = None
            raise ConflictedFile(rel, CONFLICT_REASON, ours, file_stat=found)
        try:
            return self.decode(rel, text, mtime), found
        except VaultFileError as exc:
            raise VaultFileError(rel, exc.reason, file_stat=found) from None

    def read_text(self, rel: str) -> str:
        """The file's text as it is (a conflict's markers and all), with ``read``'s checks and errors."""
        raw, _ = self._read_bytes(rel)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise VaultFileError(rel, "is not UTF-8 text") from None

    def decode(self, rel: str, text: str, mtime: datetime | Callable[[], datetime] | None = None) -> MemoryItem:
        """``text`` read as the memory file ``rel`` (defaults from its path); VaultFileError when it is not one."""
        try:
            return decode_memory(
                text,
                default_category=self.folder_category(rel),
                default_id=lambda: adopted_id(rel),
                fallback_title=_stem(rel),
                file_time=mtime,
            )
        except FrontmatterError as exc:
            raise VaultFileError(rel, str(exc)) from None

    def _read_bytes(self, rel: str) -> tuple[bytes, os.stat_result]:
        """The file's bytes, if it is a regular file really in the vault, and no larger than the limit."""
        try:
            path = self._checked_str(rel)
        except StorageError as exc:
            raise VaultFileError(rel, f"is not read: {exc}") from None
        if not hasattr(os, "O_NOFOLLOW") and os.path.islink(path):
            raise VaultFileError(rel, self._link_reason(path))
        try:
            fd = os.open(path, _OPEN_FLAGS)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK) or os.path.islink(path):
                raise VaultFileError(rel, self._link_reason(path)) from None
            raise VaultFileError(rel, f"cannot be read ({exc.strerror or exc})") from None
        try:
            st = os.fstat(fd)
            if not stat_mode.S_ISREG(st.st_mode):
                raise VaultFileError(rel, "is not a file (a device, pipe or socket): it is not read")
            if st.st_size > MAX_FILE_BYTES:
                raise VaultFileError(rel, f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
            raw = _read_at_most(fd, MAX_FILE_BYTES + 1, st.st_size)
        except OSError as exc:
            raise VaultFileError(rel, f"cannot be read ({exc.strerror or exc})") from None
        finally:
            os.close(fd)
        if len(raw) > MAX_FILE_BYTES:
            raise VaultFileError(rel, f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
        return raw, st

    def _link_reason(self, path: Path) -> str:
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        real = os.path.realpath(path)
        inside = real == str(self.root) or real.startswith(str(self.root) + os.sep)
        where = "another file of the vault" if inside else "a file outside the vault"
        return (f"is a link to {where} ({target[:200]}): links are never read or written through. Copy the file "
                "here instead of linking it")

    def delete_file(self, rel: str) -> None:
        path = self.checked(rel)
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise storage_error(rel, exc, "delete") from exc

    def remove_leftovers(self) -> int:
        """Delete the temp files of writes killed midway that the last scan saw. Call it holding the write
        lock: every write in progress holds it, so what is left then belongs to no live write."""
        removed = 0
        for rel in self.leftovers:
            try:
                self.checked(rel).unlink()
                removed += 1
            except (OSError, StorageError):
                pass
        self.leftovers = []
        return removed

    # -- listing --------------------------------------------------------------------------------------

    def scan(self, folder: str = "", *, stat: bool = True) -> Iterator[FileStat]:
        """Every memory file: ``*.md`` below the root (or below ``folder``, a category), skipping hidden folders
        (trash, state, .git, .obsidian).

        Polled every few seconds by every process sharing the vault, so it builds relative paths by hand
        (os.path.relpath was two thirds of its cost) and stats through ``scandir`` entries. ``stat=False``: names
        only, ``mtime_ns`` and ``size`` UNKNOWN, for a caller that reads every file anyway (a rebuild: the
        stats were three quarters of its scan, 0.6 of 0.8 CPU-s at 100,000 files, before any file was read)."""
        stack = [(f"{folder}/", str(self.root / folder)) if folder else ("", str(self.root))]
        leftovers = []
        unnamed = {} if not folder else {k: v for k, v in self.unnamed.items() if not k.startswith(f"{folder}/")}
        while stack:
            prefix, folder = stack.pop()
            try:
                entries = os.scandir(folder)
            except OSError:
                continue
            with entries:
                for entry in entries:
                    name = entry.name
                    if not _utf8(name):  # no id, no index row, no JSON can hold it: report it, skip it
                        shown = (prefix + name).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                        unnamed[shown] = ("is named in bytes that are not UTF-8: rename it (its content is not "
                                          "read until then)")
                        continue
                    if name.startswith("."):
                        if prefix and name.startswith(TMP_PREFIX) and name.endswith(TMP_SUFFIX):
                            leftovers.append(prefix + name)
                        continue
                    try:
                        if entry.is_symlink() and entry.is_dir():
                            # Not followed (it could lead out of the vault, or count a folder twice), but said:
                            # skipped in silence, a linked folder of notes looked like a vault that lost them.
                            unnamed[prefix + name] = _folder_link_reason(entry.path)
                            continue
                        if entry.is_dir(follow_symlinks=False):
                            stack.append((f"{prefix}{name}/", entry.path))
                            continue
                        if not prefix or not name.endswith(".md"):
                            continue  # files at the top (README.md...) are not memories
                        if not stat:
                            yield FileStat(prefix + name, UNKNOWN, UNKNOWN)
                            continue
                        # A link is listed as itself, so that reading it reports it (never follows it).
                        st = entry.stat(follow_symlinks=not entry.is_symlink())
                    except OSError:
                        continue
                    yield FileStat(prefix + name, st.st_mtime_ns, st.st_size)
        self.leftovers = leftovers
        self.unnamed = unnamed

    def name_problems(self) -> list[VaultProblem]:
        """What the last scan skipped for its name, or for being a linked folder (see ``scan``)."""
        return [VaultProblem(path, reason) for path, reason in sorted(self.unnamed.items())]

    def names_in(self, folder: str) -> set[str] | None:
        """The names in ``folder`` (relative to the root), without a stat each: empty when it is gone, None when
        it cannot be listed (no permission: ``stat`` then says what is wrong)."""
        try:
            return set(os.listdir(os.path.join(self._root_str, folder)))
        except (FileNotFoundError, NotADirectoryError):
            return set()
        except OSError:
            return None

    def stat(self, rel: str) -> FileStat | None:
        """None when the file is gone. Any other failure (a folder without permission, an I/O error) raises:
        taken for "gone", it made the index drop the memory."""
        try:
            st = os.lstat(self.abs(rel))
            if not stat_mode.S_ISLNK(st.st_mode):
                st = self.abs(rel).stat()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise storage_error(rel, exc, "read") from exc
        return FileStat(rel, st.st_mtime_ns, st.st_size)

    # -- trash ----------------------------------------------------------------------------------------

    def move_to_trash(self, rel: str) -> str:
        """Move a file into ``.trash/`` keeping its folder; returns the trash path relative to the root."""
        src = self.checked(rel)
        return self.rel(move_exclusive(src, self.checked(f"{TRASH_DIR}/{rel}")))

    def restore_from_trash(self, trash_rel: str) -> str:
        src = self.checked(trash_rel)
        inner = Path(trash_rel).relative_to(TRASH_DIR).as_posix()
        return self.rel(move_exclusive(src, self.checked(inner)))

    def scan_trash(self) -> Iterator[str]:
        """The trashed ``*.md`` files, never following a link out of the trash."""
        found: list[str] = []
        if self.trash_root.is_symlink():
            return
        for folder, dirs, files in os.walk(self.trash_root, followlinks=False):
            dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
            found.extend(os.path.join(folder, f) for f in files if f.endswith(".md") and _utf8(f) and _utf8(folder))
        for path in sorted(found):
            yield self.rel(Path(path))


def _readable_size(text: str, item: MemoryItem) -> str:
    """``text`` if the vault will read it back. A file over MAX_FILE_BYTES is skipped on read (and reported), so
    writing one would make the memory vanish at the next open: a pin that adds a line to a file of exactly the
    limit did that (found by the vault fuzz)."""
    if len(text) <= MAX_FILE_BYTES // 4:  # at most 4 bytes a character: nearly every memory, without encoding
        return text
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FILE_BYTES:
        limit = MAX_FILE_BYTES // (1024 * 1024)
        raise ValidationError(  # in bytes: a file just over the limit read '10.00 MiB; at most 10 MiB'
            f"The memory {item.title[:80]!r} would make a file of {size:,} bytes; a vault file holds at most "
            f"{MAX_FILE_BYTES:,} bytes ({limit} MiB; a larger one is not read back). Shorten its text, or import it "
            "as a document.", field="content", code="TOO_LONG")
    return text


def _read_at_most(fd: int, limit: int, size: int) -> bytes:
    """Up to ``limit`` bytes of ``fd``, to its end. Asking for the size ``fstat`` gave (and one byte more, to see a
    file that grew) rather than for the limit: a buffered read of 10 MiB allocated that much for every file, which
    was a tenth of a rebuild's reading."""
    parts = []
    want = min(size + 1, limit)
    while limit > 0:
        part = os.read(fd, min(want, limit))
        if not part:
            break
        parts.append(part)
        limit -= len(part)
        want = 1 << 16  # the file grew since its fstat, or the read was short: on to the end or the limit
    return parts[0] if len(parts) == 1 else b"".join(parts)


@functools.lru_cache(maxsize=256)
def _folder_category(folder: str) -> str:
    try:
        return validate_category(folder)
    except ValidationError:  # 'ünïcödé', 'a b', 'con': the file stays there, its category is context
        return "context"


def _stem(rel: str) -> str:
    """``Path(rel).stem`` of a relative posix path, without building a Path (a rebuild asks it of every file)."""
    name = rel.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _folder_link_reason(path: str) -> str:
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    return (f"is a link to a folder ({target[:200]}): linked folders are never read. Move or copy the folder "
            "into the vault instead of linking it")
