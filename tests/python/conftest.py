# SPDX-License-Identifier: MIT
# What every Python test shares: the validation layer on where it is installed (as for the C++ tests:
# any message it reports raises vksort.Error), and the references vksort's results are checked against.
import os

import numpy as np
import pytest

import vksort
from vksort import _core

if "VKSORT_VALIDATION" not in os.environ and _core.validation_layer_available():
    os.environ["VKSORT_VALIDATION"] = "1"

DTYPES = [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64]
# 0, 1, 2, 3 and 2^k +- 1 up to 2^16 + 1: every tile and pass boundary of the small sizes.
SIZES = [0, 1, 2, 3] + [s for k in range(2, 17) for s in (2**k - 1, 2**k + 1)]


def stable_order(a, descending=False):
    """NumPy's stable sorting permutation; descending: reverse order of the keys, ties in input order
    (the stable ascending order of the reversed array, read backwards, keeps ties in input order)."""
    if not descending:
        return np.argsort(a, kind="stable")
    return (len(a) - 1 - np.argsort(a[::-1], kind="stable"))[::-1]


def total_order_keys(a):
    """Unsigned integers whose order is IEEE 754 total order of the floats `a` (others: `a` itself)."""
    if a.dtype.kind != "f":
        return a
    bits = a.view(np.uint32 if a.itemsize == 4 else np.uint64)
    sign = np.array(1, dtype=bits.dtype) << np.array(8 * a.itemsize - 1, dtype=bits.dtype)
    return np.where(bits & sign, ~bits, bits | sign)


def random_keys(dtype, n, rng, special=False):
    """n keys of dtype with many ties; special: floats with NaNs of both signs and several payloads
    (signalling ones too), infinities and zeros of both signs."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        a = rng.integers(-50, 50, n).astype(dtype) / 4
        if special and n:
            nans = (np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFF800003, 0x7F800005], dtype=np.uint32)
                    if dtype.itemsize == 4 else
                    np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000001, 0xFFF0000000000003,
                              0x7FF0000000000005], dtype=np.uint64)).view(dtype)
            pool = np.concatenate([nans, np.array([np.inf, -np.inf, 0.0, -0.0], dtype=dtype)])
            where = rng.random(n) < 0.3
            a[where] = pool[rng.integers(0, len(pool), int(where.sum()))]
        return a
    info = np.iinfo(dtype)
    a = rng.integers(-1000 if info.min else 0, 1000, n).astype(dtype)
    if n >= 2:
        a[0], a[-1] = info.max, info.min  # the extremes sort correctly too
    return a


def same_bytes(x, y):
    """Equal dtype, shape and bytes; structured arrays field by field (NumPy's copies leave the padding
    between fields uninitialised, so padding bytes mean nothing)."""
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype.names is not None:
        return all(same_bytes(x[name], y[name]) for name in x.dtype.names)
    return x.tobytes() == y.tobytes()


@pytest.fixture
def rng():
    return np.random.default_rng(20261124)


@pytest.fixture(scope="session")
def device():
    return vksort.default_device()
