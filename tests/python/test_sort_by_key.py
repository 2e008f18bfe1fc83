# SPDX-License-Identifier: MIT
# vksort.sort_by_key: values of every size the library moves, the sizes it pads, the ones reordered on
# the host, structured records, extra axes; keys with NaNs and -0.0; both orders.
import numpy as np
import pytest

import vksort
from conftest import random_keys, same_bytes, stable_order


def records(dtype, n, rng):
    """n values of `dtype` whose every byte is random."""
    dtype = np.dtype(dtype)
    return np.frombuffer(rng.bytes(n * dtype.itemsize), dtype=dtype).copy()


def check(keys, values, descending=False):
    before_keys, before_values = keys.copy(), values.copy()
    got_keys, got_values = vksort.sort_by_key(keys, values, descending)
    order = stable_order(keys, descending)
    assert same_bytes(got_keys, keys[order])
    assert same_bytes(got_values, values[order])
    assert same_bytes(keys, before_keys) and same_bytes(values, before_values), "inputs must not change"


STRUCTS = {
    "u1": np.uint8,                                        # 1 byte: padded to 8
    "3-byte": np.dtype([("a", "u1"), ("b", "<u2")]),        # packed, 3 bytes: padded to 8
    "u4": np.uint32,                                        # the plain 32-bit value
    "f8": np.float64,                                       # an 8-byte record
    "12-byte": np.dtype([("x", "<f4"), ("y", "<f4"), ("id", "<i4")]),
    "14-byte": np.dtype([("p", "<f8"), ("q", "<i2", 3)]),  # padded to 16
    "aligned": np.dtype([("c", "u1"), ("d", "<f8")], align=True),  # 16 bytes with padding
    "256-byte": np.dtype(("u1", 256)),                      # the largest record
    "257-byte": np.dtype(("u1", 257)),                      # beyond: reordered on the host
    "big-endian": np.dtype(">i8"),                          # values are moved as bytes, never converted
}


@pytest.mark.parametrize("name", list(STRUCTS))
@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
def test_values_of_every_record_size(name, descending, rng):
    for n in [0, 1, 2, 255, 257, 4097]:
        keys = rng.integers(0, 50, n).astype(np.uint32)  # many ties: stability shows in the values
        check(keys, records(STRUCTS[name], n, rng), descending)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64], ids=lambda d: np.dtype(d).name)
def test_keys_with_nans_and_signed_zeros(dtype, rng):
    for n in [1, 100, 1025]:
        keys = random_keys(dtype, n, rng, special=True)
        check(keys, records(np.dtype([("a", "u1"), ("b", "<u2")]), n, rng))
        check(keys, np.arange(n, dtype=np.int64), descending=True)


def test_rows_of_a_2d_array_and_objects_move_with_their_keys(rng):
    keys = rng.integers(0, 9, 300).astype(np.int32)
    check(keys, rng.random((300, 5)))             # 40-byte rows
    check(keys, rng.integers(0, 9, (300, 2, 3)).astype(np.int16))
    check(keys, np.array([f"row {i}" for i in range(300)], dtype=object))
    check(keys, np.array([f"r{i}" for i in range(300)]))  # fixed-width unicode, 16 bytes


def test_mismatched_values_are_refused():
    with pytest.raises(ValueError, match="one entry per key"):
        vksort.sort_by_key(np.arange(5, dtype=np.uint32), np.arange(4))
    with pytest.raises(ValueError, match="one entry per key"):
        vksort.sort_by_key(np.arange(5, dtype=np.uint32), np.float64(1.0))
