"""``python -m memory_curator``: the desktop app (or a CLI command when one is given)."""

import sys

from memory_curator.cli.main import main

sys.exit(main())
