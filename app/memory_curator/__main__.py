"""``python -m memory_curator``: the desktop app (or a CLI command when one is given)."""

import multiprocessing
import sys

if __name__ == "__main__":
    # A large rebuild reads files in a helper process, started by running this module again: in a frozen
    # build, freeze_support turns that run into the helper; elsewhere the guard keeps it from starting the app.
    multiprocessing.freeze_support()
    from memory_curator.cli.main import main

    sys.exit(main())
