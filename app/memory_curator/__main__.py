"""``python -m memory_curator``: the desktop app (or a CLI command when one is given)."""

import sys

if __name__ == "__main__":  # only as a script: importing this module must never start the app
    from memory_curator.cli.main import main

    sys.exit(main())
