# SPDX-License-Identifier: MIT
# vksort.sort against NumPy: every dtype, both orders, awkward sizes, NaNs, -0.0, total order.
import numpy as np
import pytest

import vksort
from conftest import DTYPES, SIZES, random_keys, same_bytes, stable_order, total_order_keys


@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_size_matches_numpy(dtype, descending, rng):
    special_kinds = [False, True] if np.dtype(dtype).kind == "f" else [False]
    for special in special_kinds:
        for n in SIZES:
            a = random_keys(dtype, n, rng, special)
            before = a.copy()
            got = vksort.sort(a, descending)
            want = a[stable_order(a, descending)]
            assert same_bytes(got, want), f"n={n} special={special}"
            assert same_bytes(a, before), "the input must not change"


def test_default_equals_numpy_stable_sort_bytes():
    # NumPy: NaNs of either sign last, in input order; -0.0 and +0.0 equal, in input order.
    a = np.array([np.nan, 0.0, -1.0, -np.nan, -0.0, np.inf, 0.0, -np.inf, -0.0], dtype=np.float64)
    assert same_bytes(vksort.sort(a), np.sort(a, kind="stable"))
    assert np.signbit(vksort.sort(a)[2:6]).tolist() == [False, True, False, True]


def test_descending_puts_nans_first_and_keeps_ties_in_input_order():
    a = np.array([1.0, -np.nan, 0.0, 2.0, np.nan, -0.0], dtype=np.float32)
    got = vksort.sort(a, descending=True)
    assert np.isnan(got[:2]).all() and np.signbit(got[:2]).tolist() == [True, False]
    assert got[2:].tolist() == [2.0, 1.0, 0.0, 0.0] and np.signbit(got[4:]).tolist() == [False, True]


@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_total_order(dtype, descending, rng):
    for n in [0, 1, 2, 1000, 4097]:
        a = random_keys(dtype, n, rng, special=True)
        want = a[stable_order(total_order_keys(a), descending)]
        assert same_bytes(vksort.sort(a, descending, total_order=True), want), f"n={n}"


def test_non_contiguous_and_byte_swapped_inputs_are_copied(rng):
    base = random_keys(np.float64, 1001, rng, special=True)
    strided = base[::3]
    assert same_bytes(vksort.sort(strided), np.sort(strided, kind="stable"))
    swapped = random_keys(np.int32, 777, rng).astype(">i4")
    got = vksort.sort(swapped)
    assert got.dtype == np.dtype(np.int32) and got.dtype.isnative
    assert np.array_equal(got, np.sort(swapped, kind="stable"))
    assert same_bytes(vksort.sort(np.asarray([3, 1, 2])), np.array([1, 2, 3]))
