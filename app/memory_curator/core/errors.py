"""One small hierarchy of errors.

``MemoryError_`` subclasses split into problems with the user's environment or input (a message to show,
saying what to do) and our own bugs (anything else, logged with its traceback).
"""

from __future__ import annotations


class CuratorError(Exception):
    """Base class. ``str(err)`` is a sentence fit to show a user."""


class ValidationError(CuratorError):
    """Input the engine will not accept (empty content, bad category, salience out of range...)."""

    code = "VALIDATION_ERROR"

    def __init__(self, message: str, *, field: str | None = None, code: str | None = None,
                 details: list[dict[str, str]] | None = None):
        super().__init__(message)
        self.field = field
        self.details = details  # one {field, code, message} per problem, when there are several
        if code is not None:  # a finer code (OUT_OF_RANGE, INVALID_DATETIME...) for API clients
            self.code = code


class MemoryNotFoundError(CuratorError):
    code = "NOT_FOUND"

    def __init__(self, memory_id: str, unreadable: int = 0):
        # A memory whose file cannot be read (broken YAML from a merge, a file too large) is not listed: say so,
        # so the user looks there rather than doubting the id.
        hint = (f" {unreadable} file{'s' if unreadable != 1 else ''} of this vault could not be read and may hold it:"
                " they are listed in Vault health (and by `memory-curator stats`)." if unreadable else "")
        super().__init__(f"No memory with id {memory_id!r} in this vault.{hint}")
        self.memory_id = memory_id


class EntityNotFound(CuratorError):
    """No memory mentions the entity (for a remote caller: none of the memories it may see)."""

    code = "NOT_FOUND"


class StorageError(CuratorError):
    """Reading or writing a vault file failed (disk full, permissions, a broken file)."""

    code = "STORAGE_ERROR"


class VaultFileError(StorageError):
    """A markdown file in the vault could not be read as a memory. The file is left untouched."""

    def __init__(self, path, reason: str, *, file_stat=None):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        # The modification time and size of the bytes judged, when the verdict is about them alone (binary, not
        # UTF-8, broken frontmatter), not about the file system (a permission, a link, a read error).
        self.file_stat = file_stat


class ConflictedFile(VaultFileError):
    """A vault file in a sync conflict (git's markers: two versions in one file). ``item`` is this machine's
    side read as a memory (None when that side is broken too): it stays listed and searchable while the file
    waits to be resolved; nothing writes over the file until then."""

    code = "SYNC_CONFLICT"

    def __init__(self, path, reason: str, item=None, *, file_stat=None):
        super().__init__(path, reason, file_stat=file_stat)  # as read (Vault.read_stat)
        self.item = item


class IndexError_(CuratorError):
    """The SQLite index failed. It is derived state: rebuilding it from the vault is always safe."""

    code = "INDEX_ERROR"


class IndexTooNew(IndexError_):
    """The index was written by a newer version of the app (a schema this version does not know): writing to
    it would leave rows the newer version reads wrongly, so it is set aside and built again from the vault."""


class IndexBusy(IndexError_):
    """Another program kept the index locked for longer than the engine waits (SQLite's busy timeout)."""

    code = "INDEX_BUSY"


class EmbeddingError(CuratorError):
    """The embedding provider failed (not reachable, model missing, wrong dimension...)."""

    code = "EMBEDDING_ERROR"


class EmbedderUnavailable(EmbeddingError):
    """The provider cannot be used right now; callers degrade to keyword search."""


class DimensionMismatch(EmbeddingError):
    """A provider returned vectors of another size than the vault's index holds."""


class Cancelled(CuratorError):
    """A long operation was cancelled by its caller. Work done before the cancel is kept."""

    def __init__(self, done: int = 0, total: int = 0, message: str | None = None):
        super().__init__(message or f"Cancelled after {done} of {total}.")
        self.done = done
        self.total = total
