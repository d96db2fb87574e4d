"""The declared dependencies are exactly what the code imports (issue 12 item 9).

- Every third-party module imported in app/ comes from a distribution declared in pyproject.toml (the base
  dependencies or an extra of the app: ``local``), and every declared one is imported (or listed below with why).
- The whole package imports in a process where only the declared dependencies and what they require exist:
  any other installed distribution (the test tools, the ``local`` extra, PyYAML brought in by another
  package...) is hidden, as it would be after ``pip install -e .`` in a fresh venv.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app" / "memory_curator"
APP_EXTRAS = ("local",)  # extras the app imports when installed; "test" and "package" are tools
# Declared but used without an import statement of ours.
NOT_IMPORTED = {
    "sudachidict-core": "the dictionary SudachiPy loads by name",
    "onnx": "onnxruntime.quantization's quantize_dynamic reads and writes the model with it",
}


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def declared(extras: tuple[str, ...] = ()) -> set[str]:
    proj = project()
    reqs = list(proj["dependencies"]) + [r for e in extras for r in proj["optional-dependencies"][e]]
    return {norm(Requirement(r).name) for r in reqs}


def third_party_imports() -> dict[str, set[str]]:
    """Top-level module -> the files of app/ importing it (not the standard library, not ourselves)."""
    out: dict[str, set[str]] = {}
    for path in APP.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top not in sys.stdlib_module_names and top != "memory_curator":
                    out.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return out


def distributions_of(module: str) -> set[str]:
    return {norm(d) for d in md.packages_distributions().get(module, ())}


def test_every_import_is_declared():
    allowed = declared(APP_EXTRAS)
    undeclared = {}
    for module, files in sorted(third_party_imports().items()):
        dists = distributions_of(module)
        if not dists & allowed:
            undeclared[module] = (sorted(dists) or "no installed distribution", sorted(files))
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


def test_every_declared_dependency_is_imported():
    imported = {d for m in third_party_imports() for d in distributions_of(m)}
    unused = declared(APP_EXTRAS) - imported - set(NOT_IMPORTED)
    assert not unused, f"declared in pyproject.toml but never imported in app/: {sorted(unused)}"
    assert set(NOT_IMPORTED) <= declared(APP_EXTRAS)


def closure(names: set[str]) -> set[str]:
    """The distributions ``names`` need, themselves included (requirements whose markers hold here)."""
    env = default_environment()
    seen: set[str] = set()
    todo = [(n, frozenset()) for n in names]
    while todo:
        name, extras = todo.pop()
        if name in seen and not extras:
            continue
        seen.add(name)
        try:
            reqs = md.requires(name) or []
        except md.PackageNotFoundError:
            continue
        for raw in reqs:
            req = Requirement(raw)
            wanted = any(req.marker.evaluate({**env, "extra": e}) for e in (extras or {""})) if req.marker else True
            if wanted:
                todo.append((norm(req.name), frozenset(req.extras)))
    return seen


# Runs in a fresh interpreter: hides every distribution outside the allowed set, then imports all our modules.
HIDE_AND_IMPORT = r"""
import importlib, importlib.abc, importlib.metadata as md, json, pkgutil, re, sys
allowed = set(json.loads(sys.argv[1]))
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
owners = {m: {norm(d) for d in ds} for m, ds in md.packages_distributions().items()}

class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        dists = owners.get(name.partition(".")[0])
        if dists and not dists & allowed:
            raise ModuleNotFoundError(f"No module named {name!r} ({', '.join(sorted(dists))}: not declared)", name=name)
        return None

sys.meta_path.insert(0, Hide())
import memory_curator
failed = {}
for info in pkgutil.walk_packages(memory_curator.__path__, "memory_curator."):
    if info.name.endswith("__main__"):
        continue
    try:
        importlib.import_module(info.name)
    except ImportError as exc:
        failed[info.name] = str(exc)
print(json.dumps(failed))
"""


def test_the_package_imports_with_only_the_declared_dependencies():
    allowed = closure(declared()) | {"memory-curator"}
    assert "pytest" not in allowed
    proc = subprocess.run([sys.executable, "-c", HIDE_AND_IMPORT, json.dumps(sorted(allowed))],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    failed = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not failed, f"modules that need an undeclared distribution: {failed}"
