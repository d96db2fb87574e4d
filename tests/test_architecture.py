"""Dependencies point inward: the engine never imports Qt, the GUI, the CLI or the servers; nothing in the
engine imports the service facade (collaborators go down, not the facade); SQL lives in core/index/."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import memory_curator

PACKAGE = Path(memory_curator.__file__).parent
FORBIDDEN_IN_CORE = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "memory_curator.gui", "memory_curator.cli",
                     "memory_curator.mcp", "memory_curator.server", "memory_curator.serving")
SERVICE = "memory_curator.core.service"


def imports_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def test_core_never_imports_qt_or_outer_layers():
    offenders = []
    files = sorted((PACKAGE / "core").rglob("*.py"))
    assert len(files) > 10
    for path in files:
        for name in imports_of(path):
            if name.startswith(FORBIDDEN_IN_CORE):
                offenders.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert offenders == []


def test_the_servers_share_through_serving_not_each_other():
    """mcp/ and server/ are two faces: what they share lives in serving/, which neither face's internals feed."""
    offenders = []
    for face, other in (("mcp", "memory_curator.server"), ("server", "memory_curator.mcp"),
                        ("serving", "memory_curator.server"), ("serving", "memory_curator.mcp")):
        for path in sorted((PACKAGE / face).rglob("*.py")):
            offenders += [f"{path.relative_to(PACKAGE)} imports {n}" for n in imports_of(path)
                          if n == other or n.startswith(other + ".")]
    assert offenders == []


def test_the_contract_is_pure():
    """core/contract/ defines operations: no Qt, no face, no service (the checks above), no SQL, no I/O."""
    for path in sorted((PACKAGE / "core" / "contract").rglob("*.py")):
        names = imports_of(path)
        assert not [n for n in names if n.startswith(("sqlite3", "httpx", "starlette", "mcp", "uvicorn"))], path


def test_checker_sees_a_qt_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from PySide6.QtCore import QObject\nimport memory_curator.gui.app\n")
    assert imports_of(bad) == ["PySide6.QtCore", "memory_curator.gui.app"]


def service_imports(root: Path) -> list[str]:
    """Modules under ``root`` (other than the service itself) that import the service, even only for types."""
    offenders = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "service.py" and path.parent.name == "core":
            continue
        for name in imports_of(path):
            if name == SERVICE or name.startswith(SERVICE + "."):
                offenders.append(f"{path.relative_to(root.parent)} imports {name}")
    return offenders


def test_nothing_in_core_imports_the_service():
    assert service_imports(PACKAGE / "core") == []


def test_checker_sees_a_service_import_even_for_types(tmp_path):
    core = tmp_path / "core"
    (core / "lifecycle").mkdir(parents=True)
    (core / "service.py").write_text("X = 1\n")
    (core / "lifecycle" / "typed.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from memory_curator.core.service import MemoryService\n")
    assert service_imports(core) == ["core/lifecycle/typed.py imports memory_curator.core.service"]


# What SQL looks like in this code base: statements in capitals, SQLite's JSON functions.
SQL = re.compile(
    r"\bSELECT\b.*\bFROM\b|\bINSERT\s+(OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b|\bPRAGMA\s+\w"
    r"|\b(CREATE|DROP)\s+(VIRTUAL\s+)?(TABLE|INDEX|TRIGGER|VIEW)\b|\bjson_(extract|each)\(|\bMATCH\s+\?",
    re.DOTALL,
)
SQL_CALLS = ("execute", "executemany", "executescript")


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def sql_in(path: Path) -> list[str]:
    """Lines of ``path`` holding SQL text, a call that runs SQL, or a reach for a store's connection."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):  # an f-string: its literal parts with the holes
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            for v in node.values:
                skip.add(id(v))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            text = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SQL_CALLS:
            found.append(f"{node.lineno}: .{node.func.attr}(...)")
            continue
        elif isinstance(node, ast.Attribute) and node.attr == "conn":
            found.append(f"{node.lineno}: .conn")
            continue
        else:
            continue
        if SQL.search(text):
            found.append(f"{node.lineno}: {text[:60]!r}")
    return found


def sql_outside_index(root: Path) -> list[str]:
    offenders = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[:2] == ("core", "index"):
            continue
        offenders += [f"{rel}:{hit}" for hit in sql_in(path)]
    return offenders


def test_sql_lives_in_core_index():
    assert sql_outside_index(PACKAGE) == []


def test_checker_sees_sql_outside_the_index(tmp_path):
    (tmp_path / "core" / "index").mkdir(parents=True)
    (tmp_path / "gui").mkdir()
    (tmp_path / "core" / "index" / "rows.py").write_text('Q = "SELECT id FROM memories"\n')
    (tmp_path / "gui" / "worker.py").write_text(
        '"""Runs PRAGMA data_version and SELECT x FROM y in its docstring only."""\n'
        "def page(store, where):\n"
        '    return store.conn.execute(f"SELECT {where} FROM memories")\n'
        'W = "json_extract(m.meta_json, \'$.x\') = 1"\n')
    assert sorted(sql_outside_index(tmp_path)) == [
        "gui/worker.py:3: 'SELECT {} FROM memories'",
        "gui/worker.py:3: .conn",
        "gui/worker.py:3: .execute(...)",
        "gui/worker.py:4: \"json_extract(m.meta_json, '$.x') = 1\"",
    ]


def test_the_service_is_a_thin_facade():
    """It composes the engine's parts; logic that grows there belongs in a module of its own (issue 10)."""
    lines = (PACKAGE / "core" / "service.py").read_text(encoding="utf-8").count("\n")
    assert lines < 400
    assert sql_in(PACKAGE / "core" / "service.py") == []
