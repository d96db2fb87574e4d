"""Build hook, beside pyproject.toml (which holds everything else): a wheel carries ``resources/`` (the icons,
the sample vault, the desktop files) inside the package as ``memory_curator/resources``, so an installed app
finds them as a source checkout does. An editable install reads them from the checkout and needs no copy."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

RESOURCES = Path(__file__).resolve().parent / "resources"


class BuildWithResources(build_py):
    def run(self):
        super().run()
        if not self.editable_mode and RESOURCES.is_dir():
            target = Path(self.build_lib) / "memory_curator" / "resources"
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(RESOURCES, target)


setup(cmdclass={"build_py": BuildWithResources})
