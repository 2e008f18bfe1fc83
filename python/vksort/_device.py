# SPDX-License-Identifier: MIT
"""vksort.Device: one GPU and the sorts run on it."""
from dataclasses import dataclass, field

import numpy as np

from . import _core, _keys


@dataclass(frozen=True)
class Stats:
    """What the library measured in the last sort: GPU time in milliseconds (None where the device has no
    timestamps), the time per phase in recording order, and the algorithm's facts ("tile", "passes_run")."""

    gpu_ms: object = None
    phases: dict = field(default_factory=dict)
    facts: dict = field(default_factory=dict)


def _flags(descending, total_order):
    """descending and total_order as bools, checked before the keys are converted or copied (a bad one
    was refused only after a copy of the keys and a scan for NaNs)."""
    return _keys.flag(descending, "descending"), _keys.flag(total_order, "total_order")


class Device:
    """A Vulkan device to sort on.

    Device() takes VKSORT_DEVICE if set, else the best device (discrete > integrated > virtual > cpu);
    Device(1) the device at that index of vksort.devices(); Device("radeon") the first whose name holds
    that text (case-insensitive; digits alone are an index: Device("rtx 4090"), not Device("4090")).
    validation=True turns on the Khronos validation layer (any message it reports raises vksort.Error);
    None follows VKSORT_VALIDATION. Safe to share between threads.
    """

    def __init__(self, index_or_name=None, *, validation=None):
        # bool is an int, but Device(True) is no index; validation="no" is truthy, so only bools count.
        if index_or_name is not None and (isinstance(index_or_name, (bool, np.bool_))
                                          or not isinstance(index_or_name, (int, np.integer, str))):
            raise TypeError(f"Device takes an index (int) or a name (str), not {index_or_name!r}")
        # "" is a part of every name: it opened the default device, as if no name were given.
        if isinstance(index_or_name, str) and index_or_name == "":
            raise ValueError("Device: an empty name names no device (Device() or None takes the default)")
        if isinstance(index_or_name, (int, np.integer)) and index_or_name < 0:
            # The library would take "-1" for a part of a name ("Tesla V100-SXM2-16GB").
            raise ValueError(f"Device: an index must be 0 or more, not {index_or_name} (vksort.devices() lists them)")
        level = -1 if validation is None else int(_keys.flag(validation, "validation"))
        select = "" if index_or_name is None else str(index_or_name)
        self._core = _core.Device(select, level)
        self.info = self._core.info()
        self.name = self.info["name"]
        self.last_stats = None  # Stats of the last sort on this Device

    def __repr__(self):
        return f"vksort.Device({self.name!r})"

    def release_cached_memory(self):
        """Frees the GPU memory and pipelines this Device keeps between sorts to make the next one fast
        (up to four sets of sort options, 16 MiB each, and staging memory). Later sorts work as before.
        Safe while other threads sort on this Device."""
        self._core.release_cached_memory()

    def _run(self, call, *args):
        """One library call (the GIL released while it runs); its stats become last_stats. The last
        argument is `descending`, checked here for every call."""
        *rest, descending = args
        self.last_stats = Stats(**call(*rest, _keys.flag(descending, "descending")))

    def sort(self, a, descending=False, *, total_order=False):
        """A sorted copy of the 1-D array `a` (a is not changed); see vksort.sort."""
        descending, total_order = _flags(descending, total_order)
        return self._sorted_copy(self._core.sort, _keys.as_keys(a), (), descending, total_order)

    def argsort(self, a, descending=False, *, total_order=False, dtype=np.int64):
        """The stable sorting permutation of the 1-D array `a` as indices of `dtype`; see vksort.argsort."""
        descending, total_order = _flags(descending, total_order)
        keys = _keys.as_keys(a)
        indices = np.empty(len(keys), dtype=_keys.index_dtype(dtype))
        if _keys.needs_numpy_order(keys, total_order):
            ordered = _keys.numpy_order_keys(keys)
        else:
            ordered = np.ascontiguousarray(keys)  # read only: no copy where `a` is contiguous
        self._run(self._core.argsort, ordered, indices, descending)
        return indices

    def segmented_sort(self, a, offsets, descending=False, *, total_order=False):
        """A copy of `a` with every segment sorted on its own; see vksort.segmented_sort."""
        descending, total_order = _flags(descending, total_order)
        keys = _keys.as_keys(a)
        offsets = _keys.as_offsets(offsets, len(keys))
        return self._sorted_copy(self._core.segmented_sort, keys, (offsets,), descending, total_order)

    def _sorted_copy(self, call, keys, extra, descending, total_order):
        """A copy of keys sorted by `call` (_core's sort or segmented_sort, its arguments after the values
        in `extra`). Where NumPy's order differs from the total order the GPU sorts, the GPU sorts keys
        put in NumPy's order and carries the original keys as values, which become the result."""
        out = _keys.owned_copy(keys)
        if _keys.needs_numpy_order(keys, total_order):
            self._run(call, _keys.numpy_order_keys(keys), out, out.itemsize, *extra, descending)
        else:
            self._run(call, out, None, 0, *extra, descending)
        return out

    def sort_by_key(self, keys, values, descending=False, *, total_order=False):
        """(sorted keys, values in the same order), both new arrays; see vksort.sort_by_key."""
        descending, total_order = _flags(descending, total_order)
        keys = _keys.as_keys(keys, "keys")
        return self._sorted_with_values(self._core.sort, keys, values, (), descending, total_order,
                                        lambda: self.argsort(keys, descending, total_order=total_order))

    def segmented_sort_by_key(self, keys, values, offsets, descending=False, *, total_order=False):
        """(keys with every segment sorted, values in the same order); see vksort.segmented_sort_by_key."""
        descending, total_order = _flags(descending, total_order)
        keys = _keys.as_keys(keys, "keys")
        offsets = _keys.as_offsets(offsets, len(keys))
        return self._sorted_with_values(self._core.segmented_sort, keys, values, (offsets,), descending, total_order,
                                        lambda: self._segmented_order(keys, offsets, descending, total_order))

    def _sorted_with_values(self, call, keys, values, extra, descending, total_order, order):
        """(keys sorted by `call`, values moved with them), new arrays. Values the GPU can carry (records of
        up to 256 bytes, padded where needed) move with their keys; the rest, and keys whose NumPy order
        the GPU does not sort directly, are reordered on the host by the stable permutation `order()`."""
        _keys.refuse_masked(values, "values")
        values = np.asarray(values)  # moved as bytes: the result keeps their dtype, byte order included
        if values.ndim == 0 or len(values) != len(keys):
            raise ValueError(f"values must have one entry per key: {len(keys)} keys, values of shape {values.shape}")
        size = _keys.record_bytes(values)
        padded = _keys.library_record_bytes(size)
        if padded is None or values.dtype.hasobject or _keys.needs_numpy_order(keys, total_order):
            permutation = order()
            return keys[permutation], values[permutation]
        out_keys = _keys.owned_copy(keys)
        if padded == size:
            out_values = _keys.owned_copy(values)
            self._run(call, out_keys, out_values, size, *extra, descending)
            return out_keys, out_values
        records = _keys.padded_records(values, size, padded)
        self._run(call, out_keys, records, padded, *extra, descending)
        return out_keys, _keys.unpadded_values(records, size, values)

    def _segmented_order(self, keys, offsets, descending, total_order):
        """The stable permutation that sorts every segment of keys (in NumPy's order unless total_order):
        the GPU sorts a copy of the keys carrying their indices as values."""
        if _keys.needs_numpy_order(keys, total_order):
            ordered = _keys.numpy_order_keys(keys)
        else:
            ordered = _keys.owned_copy(keys)
        permutation = np.arange(len(keys), dtype=np.uint32)
        self._run(self._core.segmented_sort, ordered, permutation, permutation.itemsize, offsets, descending)
        return permutation
