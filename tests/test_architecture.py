"""Dependencies point inward: the engine never imports Qt, the GUI, the CLI or the servers, and nothing in the
engine imports the service facade (collaborators go down, not the facade)."""

from __future__ import annotations

import ast
from pathlib import Path

import memory_curator

PACKAGE = Path(memory_curator.__file__).parent
FORBIDDEN_IN_CORE = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "memory_curator.gui", "memory_curator.cli",
                     "memory_curator.mcp", "memory_curator.server")
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
