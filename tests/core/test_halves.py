"""The float16 copies widened to float32 (core/index/halves.py) are numpy's own conversion, bit for bit."""

from __future__ import annotations

import numpy as np

from memory_curator.core.index.halves import widened


def test_every_float16_widens_to_numpys_float32_bits():
    every = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(np.float16).reshape(256, 256)
    ours, numpys = widened(every), every.astype(np.float32)
    assert ours.dtype == np.float32 and ours.shape == every.shape and ours.flags.c_contiguous
    nan = np.isnan(numpys)
    assert np.array_equal(np.isnan(ours), nan)
    assert np.array_equal(ours.view(np.uint32)[~nan], numpys.view(np.uint32)[~nan])  # zeros, subnormals, inf


def test_rows_in_any_layout_and_none():
    rows = np.random.default_rng(3).standard_normal((40, 12)).astype(np.float16)
    picked = rows[::-3]  # a strided view, as a gather of member rows may give
    assert np.array_equal(widened(picked), picked.astype(np.float32))
    assert widened(rows[:0]).shape == (0, 12)
