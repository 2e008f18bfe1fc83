# SPDX-License-Identifier: MIT
# vksort.segmented_sort against a loop of numpy sorts: every dtype, both orders, empty segments, one
# segment, every key its own segment, segments of very different sizes; bad offsets refused.
import numpy as np
import pytest

import vksort
from conftest import DTYPES, random_keys, same_bytes, stable_order, total_order_keys


def reference(a, offsets, descending=False):
    parts = [a[b:e][stable_order(a[b:e], descending)] for b, e in zip(offsets[:-1], offsets[1:])]
    return np.concatenate(parts) if parts else a[:0]


def layouts(n, rng):
    """Offsets for n keys: one segment, every key its own, random cuts with empty segments, tiny beside huge."""
    cuts = np.sort(rng.integers(0, n + 1, 40))
    yield [0, n]
    yield list(range(n + 1))
    yield [0, *cuts.tolist(), n]
    yield sorted(min(c, n) for c in [0, 0, 1, 2, 2, n // 2, n // 2, n])


@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_matches_a_loop_of_numpy_sorts(dtype, descending, rng):
    for n in [0, 1, 2, 4097]:
        a = random_keys(dtype, n, rng, special=np.dtype(dtype).kind == "f")
        before = a.copy()
        for offsets in layouts(n, rng) if n else [[0]]:
            got = vksort.segmented_sort(a, np.array(offsets, dtype=np.int64), descending)
            assert same_bytes(got, reference(a, offsets, descending)), f"n={n} offsets={offsets[:8]}..."
        assert same_bytes(a, before), "the input must not change"


def test_total_order_within_segments(rng):
    a = random_keys(np.float64, 1000, rng, special=True)
    offsets = [0, 10, 10, 600, 1000]
    got = vksort.segmented_sort(a, offsets, total_order=True)
    want = np.concatenate([a[b:e][stable_order(total_order_keys(a[b:e]))] for b, e in zip(offsets, offsets[1:])])
    assert same_bytes(got, want)


@pytest.mark.parametrize("offsets, error, message", [
    ([0, 3, 2, 5], ValueError, "must not decrease"),
    ([1, 5], ValueError, "start at 0 and end at"),
    ([0, 4], ValueError, "start at 0 and end at"),
    (np.array([], dtype=np.int64), ValueError, "segments \\+ 1 entries"),
    ([], ValueError, "segments \\+ 1 entries"),  # an empty list becomes a float64 array
    ([[0, 5]], ValueError, "segments \\+ 1 entries"),
    ([0.0, 5.0], TypeError, "integers"),
])
def test_bad_offsets_are_refused(offsets, error, message):
    with pytest.raises(error, match=message):
        vksort.segmented_sort(np.arange(5, dtype=np.uint32), np.array(offsets))


@pytest.mark.parametrize("offsets, bad", [([0, 2**64 - 1, 5], 2**64 - 1), ([0, 2**70, 5], 2**70),
                                          ([-(2**70), 5], -(2**70)), ([0, -1, 2**63, 5], -1)])
def test_integer_offsets_beyond_64_bits_are_out_of_range_not_of_another_type(offsets, bad):
    # Such lists become float64 or object arrays: "offsets must be integers, not float64" (TypeError).
    with pytest.raises(ValueError, match=f"{bad} is out of range"):
        vksort.segmented_sort(np.arange(5, dtype=np.uint32), offsets)


@pytest.mark.parametrize("offsets", [
    [0] + list(np.cumsum(np.array([2, 3], dtype=np.uint64))),  # Python int beside uint64: a float64 array
    np.array([0, 2, 5], dtype=object),
    [np.uint64(0), np.int64(2), 5],
])
def test_integer_offsets_that_numpy_holds_as_float_or_object_sort(offsets):
    # They used to raise a bare StopIteration (looking for an entry out of range where none was), which
    # map() and generators take for their end: the results vanished without an error.
    a = np.array([3.0, 1.0, 2.0, 0.0, 5.0])
    assert same_bytes(vksort.segmented_sort(a, offsets), np.array([1.0, 3.0, 0.0, 2.0, 5.0]))
    keys, rows = vksort.segmented_sort_by_key(a, np.arange(5, dtype=np.uint32), offsets)
    assert same_bytes(keys, np.array([1.0, 3.0, 0.0, 2.0, 5.0]))
    assert same_bytes(rows, np.array([1, 0, 3, 2, 4], dtype=np.uint32))


def test_object_offsets_that_decrease_are_refused():
    with pytest.raises(ValueError, match="must not decrease"):
        vksort.segmented_sort(np.arange(5, dtype=np.uint32), np.array([0, 3, 2, 5], dtype=object))


def test_masked_offsets_are_refused():
    # np.asarray drops the mask: the masked entry would still cut a segment.
    with pytest.raises(TypeError, match="masked"):
        vksort.segmented_sort(np.arange(5, dtype=np.uint32), np.ma.array([0, 2, 5], mask=[0, 1, 0]))


def test_offsets_changed_by_another_thread_during_the_sort(rng):
    # Another thread flips offsets[1] between two valid values while sorts run with the GIL released:
    # each result is the sort under one of the two (the library read the live array again after checking
    # it: results matching neither, spurious errors, and with wilder values a crash).
    import threading
    n = 100_000
    keys = rng.integers(0, 2**63, n, dtype=np.uint64)
    first = np.array([0, 30_000, 60_000, n], dtype=np.uint32)
    second = np.array([0, 45_000, 60_000, n], dtype=np.uint32)
    expected = [reference(keys, o) for o in (first, second)]
    offsets = first.copy()
    stop = threading.Event()

    def meddle():
        while not stop.is_set():
            offsets[1] = 45_000
            offsets[1] = 30_000

    thread = threading.Thread(target=meddle)
    thread.start()
    try:
        for _ in range(30):
            got = vksort.segmented_sort(keys, offsets)
            assert any(same_bytes(got, e) for e in expected), "the result is no sort under either offsets"
    finally:
        stop.set()
        thread.join()
