"""Version history through git, when the vault is a git repository.

Changes are committed in batches: ``commit_pending`` stages everything git does not ignore (the index never:
the vault's .gitignore lists it) and writes one commit whose message says what happened, e.g.
``Memory Curator: add "Vector store"; delete "Old plan"``. A memory's history follows its file across
renames (category moves, trash). Uses the ``git`` command; without it, or outside a repository, history is off.
"""

from __future__ import annotations

import difflib
import shutil
import subprocess
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from memory_curator.core.conflicts import markers
from memory_curator.core.errors import StorageError, ValidationError
from memory_curator.core.vault.codec import split_frontmatter
from memory_curator.core.vault.files import atomic_write_text, read_regular
from memory_curator.core.vault.store import INDEX_NAME, TRASH_DIR

AUTHOR = ("Memory Curator", "memory-curator@localhost")
_IGNORED = (INDEX_NAME, f"{INDEX_NAME}-*", f"{INDEX_NAME}.*", ".memory-curator/*.lock")  # .* : corrupt copies kept aside
_SEP = "\x1f"


@dataclass(frozen=True)
class Version:
    commit: str
    when: datetime
    message: str
    path: str  # the file's path (relative to the vault) in that commit


class GitHistory:
    def __init__(self, root: Path):
        self.root = Path(root)
        self._git = shutil.which("git")
        self.notes: list[str] = []  # said in the next commit's message (e.g. how a sync conflict was merged)

    @property
    def enabled(self) -> bool:
        return self._git is not None and (self.root / ".git").exists()

    def _run(self, *args: str, check: bool = True) -> str:
        env_author = ["-c", f"user.name={AUTHOR[0]}", "-c", f"user.email={AUTHOR[1]}"]
        try:
            done = subprocess.run([self._git or "git", *env_author, *args], cwd=self.root, capture_output=True,
                                  text=True, encoding="utf-8", errors="replace", timeout=60)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise StorageError(f"git failed in {self.root}: {exc}") from exc
        if check and done.returncode != 0:
            raise StorageError(f"git {args[0]} failed in {self.root}: {done.stderr.strip() or done.stdout.strip()}")
        return done.stdout

    def init(self) -> None:
        """Make the vault a git repository (history on)."""
        if self._git is None:
            raise StorageError("git is not installed: install it to keep a history of your memories.")
        if not (self.root / ".git").exists():
            self._run("init", "-q")

    # -- committing -----------------------------------------------------------------------------------

    def _ensure_ignored(self) -> None:
        """Vaults made before .gitignore listed the index get the lines added: the index is never committed."""
        gitignore = self.root / ".gitignore"
        try:
            text = read_regular(gitignore, 1024 * 1024).decode("utf-8", errors="replace")
        except FileNotFoundError:
            text = ""
        except OSError:  # a link (never written through), a FIFO, a device: the repository's own list instead
            gitignore = self.root / ".git" / "info" / "exclude"
            try:
                text = read_regular(gitignore, 1024 * 1024).decode("utf-8", errors="replace")
            except OSError:
                text = ""
        missing = [p for p in _IGNORED if p not in text.splitlines()]
        if missing:
            sep = "" if not text or text.endswith("\n") else "\n"
            atomic_write_text(gitignore, text + sep + "\n".join(missing) + "\n")

    def commit_pending(self) -> str | None:
        """Commit every change in the vault since the last commit. Returns the commit id, None if nothing
        changed. Callers hold the vault's write lock, so two processes never commit at once."""
        if not self.enabled or self._still_conflicted():
            return None
        self._ensure_ignored()
        self._run("add", "-A", "--", ".")
        status = self._run("diff", "--cached", "--name-status", "-M", "-z", "--", ".")
        changes = _parse_name_status(status)
        if not changes:
            return None
        message = self._message(changes)
        if self.notes:
            message += "\n\n" + "\n".join(self.notes)
        self._run("commit", "-q", "--no-verify", "-m", message)  # during a merge: the merge commit
        self.notes = []
        return self._run("rev-parse", "HEAD").strip()

    def _still_conflicted(self) -> bool:
        """A merge (``git pull``) left files with conflict markers: committing now would stage them, markers
        and all, and end the merge. Wait until every one is resolved (then the commit concludes the merge)."""
        out = self._run("ls-files", "-u", "-z", check=False)
        paths = {entry.split("\t", 1)[1] for entry in out.split("\0") if "\t" in entry}
        for rel in paths:
            try:
                text = (self.root / rel).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue  # deleted: resolved by removal
            if markers.has_markers(text):
                return True
        return False

    def merge_base_text(self, rel: str) -> str | None:
        """The common ancestor of a file git is merging (its index stage 1); None outside a merge."""
        if not self.enabled:
            return None
        return self._run("show", f":1:{rel}", check=False) or None

    def _message(self, changes: list[tuple[str, str, str]]) -> str:
        words = []
        for kind, old, new in changes:
            if not new.endswith(".md"):
                continue
            if kind == "R" and new.startswith(TRASH_DIR + "/"):
                verb = "delete"
            elif kind == "R" and old.startswith(TRASH_DIR + "/"):
                verb = "restore"
            elif kind == "R":
                verb = "move"
            else:
                verb = {"A": "add", "M": "edit", "D": "remove"}.get(kind, "change")
            words.append(f'{verb} "{self._title(new if kind != "D" else old, kind == "D")}"')
        if not words:
            return "Memory Curator: settings"
        shown = words[:5] + ([f"and {len(words) - 5} more"] if len(words) > 5 else [])
        body = "\n".join(words) if len(words) > 5 else ""
        return "Memory Curator: " + "; ".join(shown) + (f"\n\n{body}" if body else "")

    def _title(self, rel: str, from_head: bool) -> str:
        try:
            text = self._run("show", f"HEAD:{rel}") if from_head else (self.root / rel).read_text(encoding="utf-8")
            meta, _ = split_frontmatter(text)
            if meta and meta.get("title"):
                return str(meta["title"])[:60]
        except (OSError, StorageError, ValueError):
            pass
        return Path(rel).stem

    # -- reading --------------------------------------------------------------------------------------

    def versions(self, rel: str) -> list[Version]:
        """Commits that changed the file at ``rel`` (newest first), following renames."""
        if not self.enabled:
            raise ValidationError("History is off: this vault is not a git repository (run `git init` in it, "
                                  "or `memory-curator history --init`).")
        out = self._run("log", "--follow", "-M", "--name-only", f"--format=%x1e%H{_SEP}%aI{_SEP}%s", "--", rel,
                        check=False)
        versions = []
        for record in out.split("\x1e"):
            lines = [ln for ln in record.strip().splitlines() if ln.strip()]
            if not lines:
                continue
            commit, when, message = lines[0].split(_SEP, 2)
            path = lines[-1] if len(lines) > 1 else rel
            versions.append(Version(commit, datetime.fromisoformat(when), message, path))
        return versions

    def text_at(self, version: Version) -> str:
        return self._run("show", f"{version.commit}:{version.path}")

    def diff(self, old: Version, new: Version | None, current_text: str | None = None) -> str:
        """Unified diff between two versions (``new=None``: the file as it is now)."""
        a = self.text_at(old)
        b = current_text if new is None else self.text_at(new)
        return "".join(difflib.unified_diff(
            a.splitlines(keepends=True), (b or "").splitlines(keepends=True),
            fromfile=f"{old.commit[:10]}:{old.path}",
            tofile="now" if new is None else f"{new.commit[:10]}:{new.path}",
        ))


def _parse_name_status(raw: str) -> list[tuple[str, str, str]]:
    """``git diff --name-status -z`` -> (kind, old path, new path)."""
    parts = raw.split("\0")
    out = []
    i = 0
    while i < len(parts) and parts[i]:
        kind = parts[i][0]
        if kind in "RC":
            out.append((kind, parts[i + 1], parts[i + 2]))
            i += 3
        else:
            out.append((kind, parts[i + 1], parts[i + 1]))
            i += 2
    return out


def find_version(versions: list[Version], ref: str) -> Version:
    """A version by commit id prefix (at least 4 characters) or by number (1 = newest)."""
    if ref.isdigit() and len(ref) < 4:
        n = int(ref)
        if 1 <= n <= len(versions):
            return versions[n - 1]
    else:
        matches = [v for v in versions if v.commit.startswith(ref.lower())]
        if len(matches) == 1:
            return matches[0]
    raise ValidationError(f"No version {ref!r} of this memory: give a number from `history` (1 = newest) or a "
                          "commit id.", field="version")
