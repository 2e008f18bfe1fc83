# SPDX-License-Identifier: MIT
# vksort.argsort against numpy.argsort(kind="stable"): every dtype, both orders, awkward sizes, NaNs and
# -0.0, total order, every index dtype.
import numpy as np
import pytest

import vksort
from conftest import DTYPES, SIZES, random_keys, same_bytes, stable_order, total_order_keys


@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_size_matches_numpy(dtype, descending, rng):
    special_kinds = [False, True] if np.dtype(dtype).kind == "f" else [False]
    for special in special_kinds:
        for n in SIZES[::3]:  # a third of the sizes: argsort shares its paths with the sorts tested in full
            a = random_keys(dtype, n, rng, special)
            before = a.copy()
            got = vksort.argsort(a, descending)
            assert same_bytes(got, stable_order(a, descending).astype(np.int64)), f"n={n} special={special}"
            assert same_bytes(a, before), "the input must not change"


def test_numpy_argsort_exactly_with_nans_and_signed_zeros(rng):
    a = random_keys(np.float64, 5000, rng, special=True)
    assert same_bytes(vksort.argsort(a), np.argsort(a, kind="stable"))


@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
def test_total_order(descending, rng):
    a = random_keys(np.float32, 3001, rng, special=True)
    want = stable_order(total_order_keys(a), descending)
    assert np.array_equal(vksort.argsort(a, descending, total_order=True), want)


@pytest.mark.parametrize("dtype", ["int64", "uint64", "int32", "uint32"])
def test_index_dtypes(dtype, rng):
    a = rng.integers(0, 100, 1000).astype(np.int32)[::2]  # strided: copied to contiguous
    got = vksort.argsort(a, dtype=dtype)
    assert got.dtype == np.dtype(dtype) and np.array_equal(got, np.argsort(a, kind="stable"))


def test_bad_index_dtype_is_refused():
    with pytest.raises(TypeError, match="int64, uint64, int32, uint32"):
        vksort.argsort(np.arange(3, dtype=np.uint32), dtype=np.int16)
    with pytest.raises(TypeError, match="not None"):  # np.dtype(None) is float64: the message named that
        vksort.argsort(np.arange(3, dtype=np.uint32), dtype=None)
