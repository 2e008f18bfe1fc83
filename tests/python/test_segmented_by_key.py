# SPDX-License-Identifier: MIT
# vksort.segmented_sort_by_key against a loop of NumPy stable argsorts, one per segment, that permute
# the keys and the values: values of every record size the library moves, pads or leaves to the host,
# structured records, rows of 2-D arrays and objects; keys with NaNs and -0.0; empty segments, one
# segment, every key its own segment; bad lengths and offsets refused.
import numpy as np
import pytest

import vksort
from conftest import random_keys, same_bytes, stable_order, total_order_keys


def reference_order(keys, offsets, descending=False, key_of=lambda k: k):
    """The permutation a loop of per-segment stable argsorts gives, as indices into the whole array."""
    parts = [b + stable_order(key_of(keys[b:e]), descending) for b, e in zip(offsets[:-1], offsets[1:])]
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)


def records(dtype, n, rng):
    """n values of `dtype` whose every byte is random."""
    dtype = np.dtype(dtype)
    return np.frombuffer(rng.bytes(n * dtype.itemsize), dtype=dtype).copy()


def check(keys, values, offsets, descending=False):
    before_keys, before_values = keys.copy(), values.copy()
    got_keys, got_values = vksort.segmented_sort_by_key(keys, values, np.array(offsets, dtype=np.int64), descending)
    order = reference_order(keys, offsets, descending)
    assert same_bytes(got_keys, keys[order]), f"keys, offsets={list(offsets)[:8]}..."
    assert same_bytes(got_values, values[order]), f"values, offsets={list(offsets)[:8]}..."
    assert same_bytes(keys, before_keys) and same_bytes(values, before_values), "inputs must not change"


def layouts(n, rng):
    """One segment, every key its own, random cuts with empty segments, empty ones at both ends."""
    yield [0, n]
    yield list(range(n + 1))
    yield [0, *np.sort(rng.integers(0, n + 1, 30)).tolist(), n]
    yield [0, 0, 0, n // 3, n // 3, n, n]


STRUCTS = {
    "u4": np.uint32,                                        # the plain 32-bit value
    "u1": np.uint8,                                         # 1 byte: padded to 8
    "f8": np.float64,                                       # an 8-byte record
    "12-byte": np.dtype([("x", "<f4"), ("y", "<f4"), ("id", "<i4")]),
    "14-byte": np.dtype([("p", "<f8"), ("q", "<i2", 3)]),  # padded to 16
    "256-byte": np.dtype(("u1", 256)),                      # the largest record
    "257-byte": np.dtype(("u1", 257)),                      # beyond: reordered on the host
}


@pytest.mark.parametrize("name", list(STRUCTS))
@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
def test_values_follow_their_keys_in_every_segment(name, descending, rng):
    for n in [1, 2, 1025]:
        keys = rng.integers(0, 20, n).astype(np.uint32)  # many ties: stability shows in the values
        values = records(STRUCTS[name], n, rng)
        for offsets in layouts(n, rng):
            check(keys, values, offsets, descending)


def test_no_keys():
    keys, values = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.dtype([("a", "<f4"), ("b", "u1")]))
    for offsets in ([0], [0, 0, 0]):
        got_keys, got_values = vksort.segmented_sort_by_key(keys, values, offsets)
        assert got_keys.shape == (0,) and got_keys.dtype == keys.dtype
        assert got_values.shape == (0,) and got_values.dtype == values.dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_keys_with_nans_and_signed_zeros(dtype, rng):
    n = 700
    keys = random_keys(dtype, n, rng, special=True)
    for offsets in layouts(n, rng):
        check(keys, np.arange(n, dtype=np.int64), offsets)
        check(keys, records(np.dtype([("a", "u1"), ("b", "<u2")]), n, rng), offsets, descending=True)
    # total_order: IEEE total order within each segment, values along.
    offsets = [0, 5, 5, 400, n]
    got_keys, got_values = vksort.segmented_sort_by_key(keys, np.arange(n), offsets, total_order=True)
    order = reference_order(keys, offsets, key_of=total_order_keys)
    assert same_bytes(got_keys, keys[order]) and same_bytes(got_values, np.arange(n)[order])


def test_rows_of_a_2d_array_and_objects_move_with_their_keys(rng):
    keys = rng.integers(0, 9, 300).astype(np.int32)
    offsets = [0, 1, 150, 150, 299, 300]
    check(keys, rng.random((300, 5)), offsets)           # 40-byte rows
    check(keys, np.array([f"row {i}" for i in range(300)], dtype=object), offsets)


def test_every_dtype_of_key(rng):
    for dtype in [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64]:
        keys = random_keys(dtype, 513, rng)
        check(keys, np.arange(513, dtype=np.uint32), [0, 100, 100, 513], descending=dtype in (np.int32, np.float64))


@pytest.mark.parametrize("values, offsets, error, message", [
    (np.arange(4), [0, 5], ValueError, "one entry per key: 5 keys"),
    (np.arange(6), [0, 5], ValueError, "one entry per key: 5 keys"),
    (np.float64(1.0), [0, 5], ValueError, "one entry per key"),
    (np.arange(5), [0, 3, 2, 5], ValueError, "must not decrease"),
    (np.arange(5), [0, 4], ValueError, "start at 0 and end at"),
    (np.arange(5), [0.0, 5.0], TypeError, "integers"),
])
def test_bad_lengths_and_offsets_are_refused(values, offsets, error, message):
    with pytest.raises(error, match=message):
        vksort.segmented_sort_by_key(np.arange(5, dtype=np.uint32), values, np.array(offsets))


def test_bad_keys_are_refused():
    with pytest.raises(TypeError, match="uint32"):
        vksort.segmented_sort_by_key(np.arange(5, dtype=np.int8), np.arange(5), [0, 5])
    with pytest.raises(ValueError, match="1-D"):
        vksort.segmented_sort_by_key(np.zeros((2, 3), dtype=np.uint32), np.arange(2), [0, 2])
