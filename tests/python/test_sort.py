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


def test_native_keys_spelled_little_endian_are_native(rng):
    # NumPy keeps '<' where it was asked for by name (newbyteorder('<'), ctypes arrays): the library took
    # only '=' as native and refused them, naming the very dtype ("... not float64").
    import ctypes
    import sys
    order = "<" if sys.byteorder == "little" else ">"
    for dtype in vksort.SUPPORTED_DTYPES:
        a = random_keys(np.dtype(dtype), 999, rng).astype(np.dtype(dtype).newbyteorder(order))
        assert a.dtype.isnative and a.dtype.byteorder == order
        assert same_bytes(vksort.sort(a), np.sort(a, kind="stable"))
        assert np.array_equal(vksort.argsort(a), np.argsort(a, kind="stable"))
    c = np.ctypeslib.as_array((ctypes.c_int32 * 4)(3, 1, 2, 0))
    assert np.array_equal(vksort.argsort(c, dtype=np.dtype("i8").newbyteorder(order)), [3, 1, 2, 0])
    keys = np.array([2, 1, 2, 0], dtype=np.dtype("u4").newbyteorder(order))
    offsets = np.array([0, 2, 4], dtype=np.dtype("u4").newbyteorder(order))
    assert np.array_equal(vksort.segmented_sort(keys, offsets), [1, 2, 0, 2])
    k, v = vksort.segmented_sort_by_key(keys, np.arange(4), offsets)
    assert np.array_equal(k, [1, 2, 0, 2]) and np.array_equal(v, [1, 0, 3, 2])


def test_masked_arrays_are_refused_not_sorted_without_their_mask():
    # np.asarray drops the mask: the masked entry's data (-5) was sorted in as a key.
    m = np.ma.masked_invalid(np.array([3.0, np.inf, 1.0]))
    m.data[1] = -5
    for call in (lambda: vksort.sort(m), lambda: vksort.argsort(m), lambda: vksort.sort_by_key(m, np.arange(3)),
                 lambda: vksort.sort_by_key(np.arange(3.0), m)):
        with pytest.raises(TypeError, match="masked arrays"):
            call()
    assert same_bytes(vksort.sort(m.compressed()), np.array([1.0, 3.0]))
