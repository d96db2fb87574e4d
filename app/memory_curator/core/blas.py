"""numpy's BLAS on one thread for the engine's small matrix products.

OpenBLAS splits even a 1,000 x 768 product over every core and spins its threads while it waits; on two
cores shared with other work, that made one large-vault vector search 31 ms instead of 7.7 ms (the int8
scoring alone 20 ms instead of 1 ms). Search work is many small products: one thread is the right count.
Only numpy's OpenBLAS is limited (the offline model's own thread pool is left alone, and so is the OpenBLAS
that faiss brings along: core/index/codes.py uses no BLAS of it, and each limit took 1.6 x as long with two
libraries, 0.015-0.027 ms against 0.010-0.017).
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager

import numpy as np
from threadpoolctl import ThreadpoolController


def _numpys_openblas() -> ThreadpoolController:
    """numpy's own OpenBLAS among those loaded (its wheels keep it in numpy.libs or numpy/.dylibs), or every
    OpenBLAS when none is there (a numpy built against the system's)."""
    loaded = ThreadpoolController().select(internal_api="openblas")
    home = os.path.dirname(os.path.realpath(np.__file__))
    own = [lib["filepath"] for lib in loaded.info()
           if os.path.realpath(lib["filepath"]).startswith((home + os.sep, home + ".libs" + os.sep))]
    return loaded.select(filepath=own) if own else loaded


# Which BLAS libraries are loaded is a fact of the process: inspected once (0.05 ms per limit after that,
# against 2 ms for a fresh inspection).
_OPENBLAS = _numpys_openblas()


def one_thread() -> AbstractContextManager:
    """A context in which numpy's OpenBLAS (when that is numpy's BLAS) runs on one thread."""
    return _OPENBLAS.limit(limits=1)
