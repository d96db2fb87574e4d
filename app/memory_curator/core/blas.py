"""numpy's BLAS on one thread for the engine's small matrix products.

OpenBLAS splits even a 1,000 x 768 product over every core and spins its threads while it waits; on two
cores shared with other work, that made one large-vault vector search 31 ms instead of 7.7 ms (the int8
scoring alone 20 ms instead of 1 ms). Search work is many small products: one thread is the right count.
Only numpy's OpenBLAS is limited (the offline model's own thread pool is left alone).
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from threadpoolctl import ThreadpoolController

# Which BLAS libraries are loaded is a fact of the process: inspected once (0.05 ms per limit after that,
# against 2 ms for a fresh inspection).
_OPENBLAS = ThreadpoolController().select(internal_api="openblas")


def one_thread() -> AbstractContextManager:
    """A context in which numpy's OpenBLAS (when that is numpy's BLAS) runs on one thread."""
    return _OPENBLAS.limit(limits=1)
