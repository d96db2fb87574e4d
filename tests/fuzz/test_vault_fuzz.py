"""Property-based fuzzing of the vault format and of import (issues #12 and #18): a vault arrives by
``git pull``, so every file, name and link in it may be hostile.

Hypothesis builds vaults of hostile files (frontmatter with anchors and aliases, billion laughs, merge bombs,
wrong types, impossible dates, dates as keys, non-finite numbers, huge keys, NUL, BOM, CRLF, invalid UTF-8,
deep nesting, YAML 1.1 look-alike scalars, paths in ``category``; bodies; file names that are not UTF-8 or are
Windows devices; links out of the vault, to ``/dev/zero``, dangling and looping; FIFOs; folders named ``*.md``;
files over 10 MiB; a hostile ``entities.yaml`` and ``vault.json``) beside one normal memory, and a worker
process (``vault_worker.py``, where a crash or a hang cannot take the test run down) opens, rebuilds, lists,
searches, reads, exports, pins, updates and imports them. The properties:

- no operation fails because of one file, and the process never dies or hangs;
- nothing outside the vault is read (a sentinel token in every outside file is never found, in memories, the
  index or exports) or written (the outside folder and the temp root are unchanged);
- no user file is changed or deleted that the user did not ask to change: reading changes nothing, and a
  rewrite changes only the memory it rewrites, in place;
- pin -> reopen -> rewrite keeps every key: unknown keys keep their value and their source lines.

The default run tries a few vaults; ``-m slow`` tries ``FUZZ_VAULTS`` (default 400).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

WORKER = Path(__file__).with_name("vault_worker.py")
SENTINEL = "SENTINELTOKEN"
ENV = {**os.environ, "OLLAMA_HOST": "http://127.0.0.1:9"}
ANSWER_TIMEOUT_S = 120  # a hang is a failure; a loaded CI machine is not
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="links, FIFOs and devices as on POSIX")

NORMAL = ("---\nid: normal-memory\ntitle: The garden\ncategory: context\ncreated_at: '2025-01-01T00:00:00Z'\n"
          "updated_at: '2025-01-01T00:00:00Z'\nkeywords: [garden]\nsalience: 0.8\n---\n\n"
          "A normal memory about the garden and its tomatoes.\n")

# -- scalars, keys and values ---------------------------------------------------------------------------------

LOOKALIKES = ["NO", "yes", "On", "off", "y", "~", "null", "012345", "0o17", "0x1F", "0b101", "1_000", "12:30",
              "190:20:30", "1.10", "1e3", ".5", "+1", "-0", ".nan", ".NaN", ".inf", "-.Inf", "2020-01-01",
              "2025-13-45", "0001-01-01", "9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00",
              "2001-12-14t21:59:43.10-05:00", "'quoted'", '"dq \\u00e9"', "=", "<<", "!", "&", "*", "|", ">",
              "%", "@", "`", "9" * 30, "0x" + "f" * 40, "1e400", "-1e400"]
PATHS = ["../../escaped", "../x", "/etc/passwd", "/tmp/abs", ".trash", ".memory-curator", "..", ".", "con",
         "COM1", "lpt1", "nul", "aux", "x/y", "C:\\Windows", "a" * 300, "\u202eevil", "decisions", "context",
         "Ideas", "ünï", "~/home", "$HOME", "%APPDATA%"]
ESCAPES = ['"\\0"', '"a\\0b"', '"\\ud800"', '"\\udfff x"', '"\\x00\\x01\\x1b[31m"', '"\\u2028\\u2029"',
           '"\\U0001F600"', "'it''s'", '"\\N\\_\\L\\P"']
TAGS = ["!!binary aGVsbG8=", "!!set {a, b}", "!!omap [a: 1, b: 2]", "!!pairs [a: 1]", "!custom x",
        "!!python/object/apply:os.system [echo pwned]", "!!python/name:os.system", "!!float nan", "!!float x",
        "!!int 12x", "!!timestamp 2020-99-99", "!!bool maybe", "!!null x", "!!str 5", "!<tag:x> y", "!!map [a]"]
FORMAT_KEYS = ["id", "title", "category", "created_at", "updated_at", "session_id", "source", "keywords",
               "salience", "summary", "expires_at", "scope", "actors", "pinned", "salience_floor", "superseded_by",
               "supersedes", "consolidated_from", "provenance", "importance_override", "event_timestamp",
               "valence", "arousal", "participants", "skill_name", "proficiency_level", "review", "labels",
               "tags", "aliases", "permalink"]


class Blob(bytes):
    """File content whose repr stays short in Hypothesis' report of a failing vault."""

    def __repr__(self) -> str:
        return f"Blob({bytes(self[:120])!r}{'...' if len(self) > 120 else ''}, {len(self)} bytes)"


def _quoted(text: str) -> str:
    return json.dumps(text)  # a YAML double-quoted scalar


_word = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x2FFF, exclude_categories=("Cs",)),
                min_size=0, max_size=30)
scalars = st.one_of(
    st.sampled_from(LOOKALIKES), st.sampled_from(PATHS), st.sampled_from(ESCAPES), st.sampled_from(TAGS),
    _word.map(_quoted), st.from_regex(r"[a-zA-Z0-9 _.,-]{1,20}", fullmatch=True).map(str.strip),
    st.integers().map(str), st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from([1000, 70_000, 300_000]).map(lambda n: "x" * n),
)


def _flow(depth: int, opener: str) -> str:
    closer = {"[": "]", "{": "}"}[opener]
    return opener * depth + closer * depth if opener == "[" else "{a: " * depth + "1" + "}" * depth


values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), inner, max_size=3).map(
            lambda d: "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"),
    ),
    max_leaves=8,
) | st.builds(_flow, st.sampled_from([10, 63, 64, 65, 500, 5000, 100_000]), st.sampled_from(["[", "{"]))

keys = st.one_of(
    st.sampled_from(FORMAT_KEYS), st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True),
    st.sampled_from(["2020-01-01", "yes", "NO", "1", "1.5", "null", "~", ".nan", "0x10", "<<", "'quoted key'",
                     '"a\\0b"', '"\\ud800"', "日本語", "kesä", "? [a, b]", "? {x: 1}", "k" * 70_000, "k" * 1200,
                     "- item", "-", "key with spaces", '"\\t"']),
)


@st.composite
def frontmatter(draw) -> str:
    """A YAML block: hostile lines, sometimes a known bomb or a deep block mapping among them."""
    lines = []
    for key, value in draw(st.lists(st.tuples(keys, values), max_size=8)):
        lines.append(f"{key}: {value}" if not key.startswith("?") else f"{key}\n: {value}")
        if draw(st.integers(0, 9)) == 0:
            lines.append("# a comment")
    anchors = draw(st.lists(st.tuples(st.from_regex(r"[a-z]{1,4}", fullmatch=True), scalars), max_size=2))
    for name, value in anchors:
        lines.append(f"def_{name}: &{name} {value}")
        lines.append(f"use_{name}: *{name}")
    special = draw(st.sampled_from(["", "", "", "laughs", "merge", "self", "deep_block", "undefined_alias",
                                    "dup_keys", "block_scalar", "document_end", "tabs"]))
    if special == "laughs":
        levels = draw(st.integers(2, 9))
        lines.append("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]")
        lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, levels)]
    elif special == "merge":
        levels = draw(st.integers(2, 30))
        lines.append("m0: &m0 {k: 1}")
        lines += [f"m{i}: &m{i} {{<<: [*m{i - 1}, *m{i - 1}]}}" for i in range(1, levels)]
    elif special == "self":
        lines.append("x: &x [*x]")
    elif special == "deep_block":
        depth = draw(st.sampled_from([10, 64, 65, 200, 3000]))
        lines += [" " * i + f"k{i}:" for i in range(depth)]
    elif special == "undefined_alias":
        lines.append("x: *nowhere")
    elif special == "dup_keys":
        lines += ["dup: 1  # first", "dup: 2"]
    elif special == "block_scalar":
        lines += ["note: |", "  line one", "  line two", "folded: >-", "  a", "  b"]
    elif special == "document_end":
        lines += ["...", "---", "second: doc"]
    elif special == "tabs":
        lines.append("\tindented: with a tab")
    draw(st.randoms()).shuffle(lines)
    return "\n".join(lines)


bodies = st.one_of(
    st.text(max_size=300),
    st.just("日本語の文章" * 4000),  # one run without punctuation, past Sudachi's input limit
    st.just("# Heading\n\n[[Target]] [[../../etc/passwd]] [[x|y]] #tag `code` ```\nfence\n```\n" * 3),
    st.sampled_from(["", "---", "\x00\x01\x02", "\ufeff", "\r\n\r\n", "# \n", "[[" * 1000]),
    # runs of link brackets that never close: a pattern that scans to the end from each one is quadratic
    st.sampled_from(["<<: " + "[" * 97_000, "[[a#" * 25_000, "[[a|" * 25_000, "](" * 50_000]),
)


@st.composite
def file_bytes(draw) -> bytes:
    head = draw(frontmatter())
    body = draw(bodies)
    shape = draw(st.sampled_from(["fm", "fm", "fm", "no_fm", "unclosed", "four_dashes", "only_dashes"]))
    text = {"fm": f"---\n{head}\n---\n{body}", "no_fm": body, "unclosed": f"---\n{head}\n{body}",
            "four_dashes": f"----\n{head}\n----\n{body}", "only_dashes": "---"}[shape]
    raw = text.encode("utf-8", "surrogatepass")
    for mutation in draw(st.lists(st.sampled_from(["bom", "crlf", "cr", "invalid", "nul", "truncate", "latin1",
                                                   "utf16", "huge"]), max_size=2, unique=True)):
        if mutation == "bom":
            raw = b"\xef\xbb\xbf" + raw
        elif mutation == "crlf":
            raw = raw.replace(b"\n", b"\r\n")
        elif mutation == "cr":
            raw = raw.replace(b"\n", b"\r")
        elif mutation in ("invalid", "nul"):
            at = draw(st.integers(0, len(raw)))
            raw = raw[:at] + (draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80"]))
                              if mutation == "invalid" else b"\x00") + raw[at:]
        elif mutation == "truncate":
            raw = raw[:draw(st.integers(0, len(raw)))]
        elif mutation == "latin1":
            raw = text.encode("latin-1", "replace")
        elif mutation == "utf16":
            raw = text.encode("utf-16", "surrogatepass")
        elif mutation == "huge":
            raw = raw + b"a" * (10 * 1024 * 1024 + 1 - len(raw))
    return Blob(raw)


# -- where files go ----------------------------------------------------------------------------------------

FOLDERS = ["", "context", "decisions", "projects/alpha", "Deep/Er/Est", ".trash", ".hidden", "con", "x.md",
           "ünïcödé", "a b", "-rf", ".memory-curator"]
_name_chars = st.characters(exclude_categories=("Cs",), exclude_characters="/\x00")
names = st.one_of(
    st.tuples(st.text(_name_chars, min_size=1, max_size=30),
              st.sampled_from([".md", ".md", ".MD", ".markdown", "", ".md~", ".txt"])).map("".join),
    st.sampled_from(["con.md", "NUL.md", "com1.md", "lpt1.md", "aux.md", " .md", ".md", "..md", "-rf.md",
                     "new\nline.md", "tab\t.md", "trailing.md ", "trailing dot.md.", "a" * 250 + ".md",
                     "\u202eevil.md", "CLAUDE.md", "MEMORY.md", "entities.md"]),
).filter(lambda n: n not in (".", "..") and 0 < len(n.encode("utf-8")) <= 255)
byte_names = st.sampled_from([b"\xff\xfe.md", b"caf\xe9.md", b"\xed\xa0\x80.md", b"ok\x80.md"])
LINK_TARGETS = ["outside_file", "outside_dir", "/dev/zero", "/dev/null", "dangling", "loop", "vault_file",
                "vault_root", "parent", "/etc/passwd", "/proc/self/mem"]


@dataclass(frozen=True)
class Entry:
    kind: str  # file, link, fifo, dir_md, byte_name
    rel: str
    data: bytes = b""
    target: str = ""


@st.composite
def entries(draw) -> Entry:
    kind = draw(st.sampled_from(["file"] * 6 + ["link", "link", "fifo", "dir_md", "byte_name"]))
    folder = draw(st.sampled_from(FOLDERS))
    rel = f"{folder}/{draw(names)}" if folder else draw(names)
    if kind == "file":
        return Entry(kind, rel, draw(file_bytes()))
    if kind == "link":
        return Entry(kind, rel, target=draw(st.sampled_from(LINK_TARGETS)))
    if kind == "dir_md":
        return Entry(kind, f"{folder}/notes.md" if folder else "notes.md", draw(file_bytes()))
    if kind == "byte_name":
        return Entry(kind, folder, draw(file_bytes()), target=draw(byte_names).hex())
    return Entry(kind, rel)


specials = st.lists(st.one_of(
    st.tuples(st.just("entities.yaml"), frontmatter().map(lambda t: Blob(t.encode("utf-8", "surrogatepass")))),
    st.tuples(st.just("entities.yaml"), st.sampled_from([b"entities: [", b"\xff\xfe", b"- a\n- b", b"links: 5",
                                                         b"entities: {a: [b, *c]}", b"not_entities: {}"])),
    st.tuples(st.just(".memory-curator/vault.json"),
              st.sampled_from([b"{", b"[]", b"null", b'{"embedding": 5}', b'{"embedding": {"provider": "ollama", '
                               b'"model": "x", "dim": "huge"}}', b'{"embedding": {"provider": "\\u0000", "model": '
                               b'"../../x", "dim": -1}}', b'{"format": 99}', b"\xff", Blob(b'{"a": ' * 100_000)])),
    st.tuples(st.sampled_from(["entities.yaml", ".memory-curator/vault.json", ".gitignore"]),
              st.sampled_from(["LINK:/dev/zero", "LINK:outside_file", "FIFO"]).map(str.encode)),
), max_size=2, unique_by=lambda t: t[0])


# -- building and checking a vault --------------------------------------------------------------------------

def _outside(root: Path) -> None:
    outside = root / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.md").write_text(f"---\nid: secret\ntitle: {SENTINEL}\n---\n{SENTINEL} root:x:0:0\n")
    (outside / "dir" / "inner.md").write_text(f"{SENTINEL} inside an outside folder\n")


def _build(root: Path, name: str, files: list[Entry], special: list[tuple[str, bytes]]) -> None:
    outside = root / "outside"
    vault = root / name
    (vault / "context").mkdir(parents=True)
    (vault / "context" / "normal.md").write_text(NORMAL)
    targets = {"outside_file": str(outside / "secret.md"), "outside_dir": str(outside / "dir"),
               "vault_file": str(vault / "context" / "normal.md"), "vault_root": str(vault), "parent": "..",
               "dangling": str(vault / "missing" / "nothing.md")}
    for entry in files:
        path = vault / entry.rel
        if entry.kind != "byte_name" and os.path.lexists(path):
            continue  # two entries for one path: keep the first (writing to an earlier FIFO would block the test)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if entry.kind == "file":
                path.write_bytes(entry.data)
            elif entry.kind == "link":
                os.symlink(path if entry.target == "loop" else targets.get(entry.target, entry.target), path)
            elif entry.kind == "fifo":
                os.mkfifo(path)
            elif entry.kind == "dir_md":
                path.mkdir(exist_ok=True)
                (path / "inner.md").write_bytes(entry.data)
            elif entry.kind == "byte_name":
                folder = os.fsencode(path)
                os.makedirs(folder, exist_ok=True)
                with open(os.path.join(folder, bytes.fromhex(entry.target)), "wb") as fh:
                    fh.write(entry.data)
        except (FileExistsError, NotADirectoryError, IsADirectoryError, OSError):
            continue  # two entries for one path, or a name this file system refuses: keep the first
    for rel, data in special:
        path = vault / rel
        if path.is_symlink() or path.exists():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if data.startswith(b"LINK:"):
            name = data[5:].decode()
            os.symlink(targets.get(name, name), path)
        elif data == b"FIFO":
            os.mkfifo(path)
        else:
            path.write_bytes(data)


def _snapshot(top: Path) -> dict[bytes, tuple]:
    """Every path under ``top`` (as bytes: names need not be UTF-8) with what it is and holds."""
    out: dict[bytes, tuple] = {}
    base = os.fsencode(top)
    for folder, dirs, files in os.walk(base):
        for name in dirs + files:
            path = os.path.join(folder, name)
            st_ = os.lstat(path)
            rel = os.path.relpath(path, base)
            if stat.S_ISLNK(st_.st_mode):
                out[rel] = ("link", os.readlink(path))
            elif stat.S_ISREG(st_.st_mode):
                with open(path, "rb") as fh:
                    out[rel] = ("file", fh.read())
            else:
                out[rel] = ("dir" if stat.S_ISDIR(st_.st_mode) else "other", st_.st_mode)
    return out


ENGINE_STATE = (b"index.db", b".memory-curator", b".gitignore")


def _user_files(snap: dict[bytes, tuple]) -> dict[bytes, tuple]:
    return {k: v for k, v in snap.items() if not k.startswith(ENGINE_STATE) or v[0] == "link"}


class Worker:
    """One ``vault_worker.py`` process, restarted after it dies."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self.vaults = 0
        self.caught: Counter[str] = Counter()  # the engine's own errors, allowed where a file may refuse a change

    def ask(self, request: dict) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            # stderr to a file: the engine's logged tracebacks would fill a pipe nobody reads and block the worker
            self.stderr = tempfile.TemporaryFile()
            self.proc = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self.stderr, text=True, env=ENV)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = _readline(self.proc, ANSWER_TIMEOUT_S)
        if line is None:
            self.proc.kill()
            self.proc.wait()
            code, self.proc = self.proc.returncode, None
            self.stderr.seek(0)
            err = self.stderr.read().decode("utf-8", "replace")
            raise AssertionError(f"the worker died or hung in {request['phase']} (exit {code}): {err[-3000:]}")
        answer = json.loads(line)
        self.caught.update(answer.get("caught", {}))
        return answer

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc.wait(timeout=30)


def _readline(proc: subprocess.Popen, timeout_s: float) -> str | None:
    import selectors

    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        if not sel.select(timeout_s):
            return None
    line = proc.stdout.readline()  # type: ignore[union-attr]
    return line or None


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()
    print(f"\nvault fuzz: {w.vaults} hostile vaults passed read, write and import; refused with the engine's "
          f"errors: {dict(w.caught.most_common())}")


def _no_escape(root: Path, outside_before: dict) -> None:
    assert sorted(p.name for p in root.iterdir()) <= ["export", "outside", "source", "vault"], "written outside"
    assert _snapshot(root / "outside") == outside_before, "a file outside the vault changed"


def _never_read_outside(*tops: Path) -> None:
    """The index, the vault and the exports: none holds the token only files outside the vault hold."""
    for top in tops:
        for rel, (kind, data) in _snapshot(top).items():
            assert kind != "file" or SENTINEL.encode() not in data, f"{rel!r} holds text read from outside"


def check_vault(worker: Worker, files: list[Entry], special: list[tuple[str, bytes]]) -> None:
    root = Path(tempfile.mkdtemp(prefix="vault-fuzz-"))
    try:
        _outside(root)
        _build(root, "vault", files, special)
        _build(root, "source", files, special)  # the same files, to import from
        vault, outside_before = root / "vault", _snapshot(root / "outside")
        user_before = _user_files(_snapshot(vault))
        (root / "source" / ".obsidian").mkdir(exist_ok=True)
        source_before = _snapshot(root / "source")

        read = worker.ask({"phase": "read", "vault": str(vault), "export": str(root / "export")})
        assert read["failures"] == [], "\n".join(read["failures"])
        assert "normal-memory" in read["ids"], read.get("problems")
        assert _user_files(_snapshot(vault)) == user_before, "reading the vault changed a user's file"
        _no_escape(root, outside_before)

        write = worker.ask({"phase": "write", "vault": str(vault)})
        assert write["failures"] == [], "\n".join(write["failures"])
        rewritten = {os.fsencode(os.path.relpath(p, vault)) for p in read["ids"].values()}
        after = _user_files(_snapshot(vault))
        for rel, was in user_before.items():
            if rel not in rewritten:  # not a memory the user changed: exactly as it was
                assert after.get(rel) == was, f"{rel!r} changed or went without being asked"
            else:
                assert after.get(rel, ("gone",))[0] == "file", f"the memory file {rel!r} moved or went"
        _no_escape(root, outside_before)

        imported = worker.ask({"phase": "import", "vault": str(vault), "source": str(root / "source")})
        assert imported["failures"] == [], "\n".join(imported["failures"])
        assert _snapshot(root / "source") == source_before, "importing changed the source"
        _no_escape(root, outside_before)
        _never_read_outside(vault, root / "export")
        worker.vaults += 1
    finally:
        shutil.rmtree(root, ignore_errors=True)


vaults = st.tuples(st.lists(entries(), min_size=1, max_size=5), specials)

# The vault whose import hung past 30 s in a long run (#18), rebuilt by hand: every run tries it.
HUNG_IMPORT = ([Entry("file", "bomb.md", Blob(b"\xef\xbb\xbf----\n<<: " + b"[" * 97_000 + b"\n----\nbody\n")),
                Entry("byte_name", "", Blob(("---\n" + "\n".join(" " * i + f"k{i}:" for i in range(3000))
                                             + "\n---\nx\n").encode()), target=b"\xff\xfe.md".hex()),
                Entry("file", "-rf.md", Blob(b"\xff\xfe")),
                Entry("file", "decisions/CLAUDE.md", Blob(b"---\nid: c\n---\n" + b"[[a#" * 25_000))], [])


# The default run's four vaults are the same every time (derandomize): a red CI must be a change's doing, not
# the draw's. The long run (-m slow) draws new vaults; what it finds becomes a regression test.
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)
@given(vault=vaults)
@example(vault=HUNG_IMPORT)
def test_hostile_vaults_quick(worker, vault):
    check_vault(worker, *vault)


@pytest.mark.slow
@pytest.mark.timeout(4 * 3600)
@settings(max_examples=int(os.environ.get("FUZZ_VAULTS", "400")), deadline=None,
          suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.reuse, Phase.generate] + ([] if os.environ.get("FUZZ_NO_SHRINK") else
                                                                  [Phase.target, Phase.shrink]))
@given(vault=vaults)
def test_hostile_vaults_long(worker, vault):
    check_vault(worker, *vault)
