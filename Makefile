# Developer tasks. The README's two set-up commands do not need make; these are for building and checking.
PY ?= .venv/bin/python

.PHONY: help package package-model smoke icons screenshots

help:
	@echo "make package        one-folder build in dist/memory-curator/ and (Linux) a .tar.gz (several minutes)"
	@echo "make package-model  the same with the offline embedding model (1.4 GiB instead of 447 MiB unpacked)"
	@echo "make smoke          start the built program offscreen on a temp vault, search, report size and start-up"
	@echo "make icons          render resources/icons/memory-curator.svg to PNG, .ico and .icns"
	@echo "make screenshots    PNGs of the real window on the sample vault, offscreen, into docs/screenshots/"

# PyInstaller comes with the `package` extra; install it only when missing.
package:
	@$(PY) -c "import PyInstaller" 2>/dev/null || $(PY) -m pip install -q -e ".[package]"
	$(PY) packaging/build_app.py

package-model:
	MEMORY_CURATOR_BUNDLE_MODEL=1 $(MAKE) package

smoke:
	$(PY) packaging/smoke.py

icons:
	$(PY) packaging/render_icons.py

screenshots:
	$(PY) packaging/screenshots.py
