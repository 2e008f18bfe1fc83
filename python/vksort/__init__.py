# SPDX-License-Identifier: MIT
"""vksort: sort NumPy arrays on any Vulkan GPU (NVIDIA, AMD, Intel, Apple, ARM, Mesa's lavapipe).

    import numpy as np, vksort
    a = np.random.rand(1_000_000)
    s = vksort.sort(a)                       # == np.sort(a, kind="stable"), byte for byte
    i = vksort.argsort(a)                    # == np.argsort(a, kind="stable")
    g = vksort.segmented_sort(a, [0, 10, 500, len(a)])   # each of three segments sorted on its own
    g, r = vksort.segmented_sort_by_key(a, records, [0, 10, 500, len(a)])   # records move with their keys
    k, v = vksort.sort_by_key(a, records)    # records: any array of len(a) rows, structured dtypes too
    vksort.last_stats().gpu_ms               # what the GPU took

Keys are 1-D arrays of uint32, int32, float32, uint64, int64 or float64 (other dtypes: TypeError; other
shapes: ValueError). Non-contiguous and byte-swapped keys are copied to contiguous native-order ones;
results are always new arrays: keys in native byte order, values in their own dtype (moved as bytes, so
byte-swapped values stay byte-swapped, as values[order] leaves them). Sorts are stable in both orders. The module-level
functions run on a default Device, created on first use; vksort.Device chooses another.
"""
import os
import threading

from . import _core
from ._device import Device, Stats

Error = _core.Error  # the library's failures (device lost, out of memory, ...): a RuntimeError; .code names which
__version__ = _core.library_version
SUPPORTED_DTYPES = ("uint32", "int32", "float32", "uint64", "int64", "float64")

_default = None
_default_pid = None
_default_lock = threading.Lock()


def _after_fork_in_child():
    # A thread of the parent may have held the lock at fork(), or been in a library call; the child has
    # only this thread.
    global _default_lock
    _default_lock = threading.Lock()
    _core._forget_calls_after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)


def default_device():
    """The Device the module-level functions use: Device() (VKSORT_DEVICE or the best), made on first use
    in each process (a device does not survive fork(): a child process makes its own)."""
    global _default, _default_pid
    with _default_lock:
        if _default is None or _default_pid != os.getpid():
            _default = Device()
            _default_pid = os.getpid()
        return _default


def devices():
    """Every Vulkan device the system lists, as dicts: index, name, vendor, type, usable (and
    unusable_why), chosen (the one Device() takes), driver, subgroup_size, features, limits. vksort.Error
    where no Vulkan loader or driver is installed."""
    return _core.devices()


def sort(a, descending=False, *, total_order=False):
    """A sorted copy of the 1-D array `a`; `a` is not changed.

    By default the order is NumPy's: vksort.sort(a) equals np.sort(a, kind="stable") byte for byte. For
    floats that means every NaN (either sign) after +inf, and -0.0 equal to +0.0 (the two keep their
    input order). descending=True is the reverse order with ties kept in input order (stable): NaNs first,
    then +inf down to -inf, equal keys in input order. total_order=True sorts floats in IEEE 754 total
    order instead (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN; descending: the reverse), which
    the GPU does without the extra pass NaNs and -0.0 otherwise cost.
    """
    return default_device().sort(a, descending, total_order=total_order)


def sort_by_key(keys, values, descending=False, *, total_order=False):
    """(sorted copy of keys, values reordered to match), stably; neither input is changed.

    values is any array with one entry (row) per key: any dtype, structured records included, and extra
    axes (a row of values[i] travels with keys[i]). Rows of 4 bytes or a multiple of 4 from 8 to 256
    bytes move on the GPU; other sizes up to 256 bytes are padded to the next such size on the way; larger
    rows and object arrays are reordered on the host by the permutation the GPU computed (np.take).
    The order is that of vksort.sort (see there for NaNs, -0.0, descending and total_order).
    """
    return default_device().sort_by_key(keys, values, descending, total_order=total_order)


def argsort(a, descending=False, *, total_order=False, dtype="int64"):
    """The stable sorting permutation of the 1-D array `a`: a[argsort(a)] == sort(a).

    By default equal to np.argsort(a, kind="stable") (the order of vksort.sort: NaNs last, -0.0 equal to
    +0.0, ties in input order). dtype: int64 (NumPy's), uint64, int32 or uint32 (half the memory; every
    index fits, since vksort sorts fewer than 2^31 keys). The GPU writes the indices itself.
    """
    return default_device().argsort(a, descending, total_order=total_order, dtype=dtype)


def segmented_sort(a, offsets, descending=False, *, total_order=False):
    """A copy of `a` in which every segment a[offsets[i]:offsets[i + 1]] is sorted on its own, stably.

    offsets: integers, segments + 1 of them, from 0 to len(a), never decreasing (empty segments are
    fine); equal to np.concatenate([np.sort(s, kind="stable") for s in np.split(a, offsets[1:-1])]).
    The order within a segment is that of vksort.sort. All segments are sorted in one GPU call, whatever
    their number and sizes.
    """
    return default_device().segmented_sort(a, offsets, descending, total_order=total_order)


def segmented_sort_by_key(keys, values, offsets, descending=False, *, total_order=False):
    """(copy of keys with every segment sorted on its own, values reordered to match), stably; neither
    input is changed.

    keys and offsets as for vksort.segmented_sort; values as for vksort.sort_by_key: any array with one
    entry (row) per key, structured records and extra axes included. Equal to sorting each segment with
    np.argsort(kind="stable") and taking keys and values in that order. All segments in one GPU call.
    """
    return default_device().segmented_sort_by_key(keys, values, offsets, descending, total_order=total_order)


def last_stats():
    """Stats of the last sort on the default device (None before the first). Creates no device: where
    none was made yet (in this process), no sort ran on it."""
    with _default_lock:
        if _default is None or _default_pid != os.getpid():
            return None
        return _default.last_stats


__all__ = ["Device", "Error", "Stats", "SUPPORTED_DTYPES", "argsort", "default_device", "devices", "last_stats",
           "segmented_sort", "segmented_sort_by_key", "sort", "sort_by_key"]
