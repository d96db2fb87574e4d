"""core/blas.py limits numpy's own OpenBLAS to one thread, not the OpenBLAS that faiss (the sign-bit pass of
core/index/codes.py) loads beside it."""

from __future__ import annotations

import os

import faiss  # noqa: F401  (its OpenBLAS loaded beside numpy's, as after a large vault's first search)
import numpy as np
from threadpoolctl import threadpool_info

from memory_curator.core import blas


def _numpys(path: str) -> bool:
    home = os.path.dirname(os.path.realpath(np.__file__))
    return os.path.realpath(path).startswith((home + os.sep, home + ".libs" + os.sep))


def test_only_numpys_openblas_is_limited():
    chosen = [lib["filepath"] for lib in blas._OPENBLAS.info()]
    loaded = [lib["filepath"] for lib in threadpool_info() if lib["internal_api"] == "openblas"]
    assert chosen
    if any(_numpys(p) for p in loaded):  # a numpy wheel: its own library only
        assert all(_numpys(p) for p in chosen)
    else:  # a numpy built against the system's OpenBLAS: every one
        assert sorted(chosen) == sorted(loaded)
    with blas.one_thread():
        inside = {lib["filepath"]: lib["num_threads"] for lib in threadpool_info()}
    assert all(inside[p] == 1 for p in chosen)
