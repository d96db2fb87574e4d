"""Build the one-folder app with PyInstaller and pack it for this platform (`make package` runs this).

    .venv/bin/python packaging/build_app.py            # dist/memory-curator/ and, on Linux, the .tar.gz
    MEMORY_CURATOR_BUNDLE_MODEL=0 ... build_app.py # without the offline model (ONNX Runtime + int8 MiniLM)
    .venv/bin/python packaging/build_app.py --no-build # only re-pack an existing dist/memory-curator/

On Linux the archive adds the desktop integration (launcher, icons, AppStream metadata) and install.sh.
Windows and macOS: see packaging/windows/README.md and packaging/macos/README.md.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import bundle

from memory_curator import __version__
from memory_curator.appinfo import APP_ID, ICON_SIZES, icon_png, icon_svg

SPEC = Path(__file__).with_name("memory-curator.spec")
LINUX_DIR = Path(__file__).with_name("linux")
DIST = bundle.ROOT / "dist"
WORK = bundle.ROOT / "build" / "pyinstaller"


def run_pyinstaller(dist: Path, with_model: bool) -> Path:
    work = WORK.with_name(WORK.name + ("-model" if with_model else ""))  # separate caches for the two kinds
    cmd = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
           "--distpath", str(dist), "--workpath", str(work), str(SPEC)]
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=bundle.ROOT)
    return dist / bundle.NAME


def stage_linux(folder: Path) -> None:
    """Put the desktop integration beside the program, laid out as install.sh expects (share/ as under a
    prefix)."""
    share = folder / "share"
    for sub, pattern in (("applications", "*.desktop"), ("metainfo", "*.metainfo.xml")):
        (share / sub).mkdir(parents=True, exist_ok=True)
        for src in (bundle.RESOURCES / "linux").glob(pattern):
            shutil.copy2(src, share / sub / src.name)
    hicolor = share / "icons" / "hicolor"
    for size in ICON_SIZES:
        dest = hicolor / f"{size}x{size}" / "apps"
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy2(icon_png(size), dest / f"{APP_ID}.png")
    (hicolor / "scalable" / "apps").mkdir(parents=True, exist_ok=True)
    shutil.copy2(icon_svg(), hicolor / "scalable" / "apps" / f"{APP_ID}.svg")
    for name in ("install.sh", "INSTALL.md"):
        shutil.copy2(LINUX_DIR / name, folder / name)


def archive_name(with_model: bool) -> str:
    return f"{bundle.NAME}-{__version__}-{bundle.platform_tag()}" + ("-model" if with_model else "")


def make_tarball(folder: Path, name: str) -> Path:
    out = folder.parent / f"{name}.tar.gz"
    with tarfile.open(out, "w:gz", compresslevel=6) as tar:
        tar.add(folder, arcname=name)
    return out


def folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-build", action="store_true", help="re-pack dist/memory-curator/ without PyInstaller")
    parser.add_argument("--dist", type=Path, default=DIST, help=f"output folder (default {DIST})")
    args = parser.parse_args(argv)
    with_model = bundle.model_requested()
    started = time.monotonic()
    dist = args.dist.resolve()
    folder = dist / bundle.NAME if args.no_build else run_pyinstaller(dist, with_model)
    if not (folder / bundle.NAME).exists() and not (folder / f"{bundle.NAME}.exe").exists():
        raise SystemExit(f"No built program in {folder}: run without --no-build.")
    print(f"one-folder build: {folder} ({folder_size(folder) / 2**20:.0f} MiB, "
          f"offline model {'included' if with_model else 'not included'})")
    if sys.platform.startswith("linux"):
        stage_linux(folder)
        tarball = make_tarball(folder, archive_name(with_model))
        print(f"archive: {tarball} ({tarball.stat().st_size / 2**20:.0f} MiB)")
    else:
        print("Pack it with the platform's installer tool: see packaging/windows or packaging/macos.")
    print(f"done in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
