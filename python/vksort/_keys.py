# SPDX-License-Identifier: MIT
"""Keys and values as the library takes them: 1-D native-order copies, NumPy's float order, records."""
import numpy as np

from . import _core

# Record sizes the library moves with its keys: one 32-bit value, or 8..256 bytes in steps of 4.
MAX_RECORD_BYTES = 256


# The most keys one sort takes (the library indexes keys with 32-bit signed integers on the GPU).
MAX_KEYS = _core.max_sort_keys


def native(a):
    """`a` in native byte order: itself, or a converted copy (structured dtypes field by field)."""
    return a if a.dtype.isnative else a.astype(a.dtype.newbyteorder("="))


def flag(value, name):
    """A True/False argument as a bool; TypeError for anything else ("yes", an array), which truthiness
    would otherwise take as True."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, not {value!r}")


def refuse_masked(a, name):
    """TypeError for a masked array: np.asarray drops its mask, so the masked entries would be sorted in
    as whatever their data holds (np.sort puts them last)."""
    if isinstance(a, np.ma.MaskedArray):
        raise TypeError(f"vksort does not sort masked arrays ({name} is one; its mask would be lost): sort "
                        f"{name}.compressed(), or {name}.filled(value)")


def as_keys(a, name="a"):
    """`a` as a 1-D array of a supported dtype, in native byte order (byte-swapped input is converted).
    Checked before any copy: a dtype vksort does not sort (TypeError), another shape or 2^31 keys or more
    (ValueError)."""
    refuse_masked(a, name)
    a = np.asarray(a)
    _core.key_kind(a.dtype.newbyteorder("="))  # TypeError naming the supported dtypes
    if a.ndim != 1:
        # np.ravel, not a.ravel(): an np.matrix's own ravel() keeps it 2-D ((1, n)).
        raise ValueError(f"vksort sorts 1-D arrays; {name} has shape {a.shape} (sort np.ravel({name}), or each row)")
    if len(a) > MAX_KEYS:
        raise ValueError(f"vksort sorts fewer than 2^31 keys; {name} has {len(a)}")
    return native(a)


def owned_copy(a):
    """A C-contiguous copy the library may sort in place; the caller's array stays as it was."""
    return np.array(a, order="C", copy=True)


def needs_numpy_order(keys, total_order):
    """True where the library's IEEE total order would differ from NumPy's: floats holding a NaN (NumPy
    puts every NaN last, the total order puts -NaN first and orders NaNs by payload) or a -0.0 (equal to
    +0.0 for NumPy, so the two keep their input order; the total order puts -0.0 first)."""
    if flag(total_order, "total_order") or keys.dtype.kind != "f":
        return False
    with np.errstate(invalid="ignore"):  # comparing a signalling NaN raises the invalid flag
        return bool(np.isnan(keys).any() or (np.signbit(keys) & (keys == 0)).any())


def numpy_order_keys(keys):
    """Keys whose IEEE total order is NumPy's order of `keys`: -0.0 becomes +0.0 and every NaN the one
    positive quiet NaN, which sorts after +inf. The caller carries the original keys as values."""
    ordered = keys.copy()
    with np.errstate(invalid="ignore"):
        ordered[np.isnan(ordered)] = np.nan
        ordered[ordered == 0] = 0
    return ordered


def record_bytes(values):
    """Bytes of one key's value: an item of `values` times everything after its first axis."""
    return values.itemsize * int(np.prod(values.shape[1:], dtype=np.int64))


def library_record_bytes(size):
    """The record size the library moves that holds `size` bytes (4, or a multiple of 4 in 8..256), or
    None when no record holds it (larger than 256 bytes, or none at all)."""
    if size == 4:
        return 4
    padded = max(8, -(-size // 4) * 4)
    return padded if 0 < size <= MAX_RECORD_BYTES else None


def padded_records(values, size, padded):
    """The values' bytes as an (n, padded) uint8 array, each record followed by padding zeros."""
    n = len(values)
    records = np.zeros((n, padded), dtype=np.uint8)
    records[:, :size] = np.ascontiguousarray(values).view(np.uint8).reshape(n, size)
    return records


def unpadded_values(records, size, like):
    """The inverse of padded_records: an array of like's dtype and shape from the first `size` bytes."""
    return np.ascontiguousarray(records[:, :size]).view(like.dtype).reshape(like.shape)


INDEX_DTYPES = ("int64", "uint64", "int32", "uint32")


def index_dtype(dtype):
    """The dtype of argsort's indices: int64 (NumPy's), uint64, int32 or uint32; else TypeError."""
    if dtype is None:  # np.dtype(None) is float64, which the message would then name
        raise TypeError(f"argsort indices are {', '.join(INDEX_DTYPES)}, not None")
    dtype = np.dtype(dtype)
    if dtype.name not in INDEX_DTYPES or not dtype.isnative:
        raise TypeError(f"argsort indices are {', '.join(INDEX_DTYPES)}, not {dtype}")
    return dtype


def as_offsets(offsets, n):
    """Segment offsets as the library takes them (uint32), checked: integers, 1-D, at least one entry,
    from 0 to n, never decreasing. Anything else raises TypeError or ValueError saying what is wrong."""
    # A copy, checked and then handed over: the caller's array may change in another thread while the
    # library reads it with the GIL released (a view of it was checked once and read again later).
    refuse_masked(offsets, "offsets")  # a masked cut would still cut
    given = offsets
    offsets = np.array(offsets, copy=True)
    if offsets.size == 0:  # np.array([]) is float64: the shape is what is wrong
        raise ValueError(f"offsets must be a 1-D array of segments + 1 entries, not of shape {offsets.shape}")
    if offsets.dtype.kind not in "iu":
        # Integers that NumPy holds as float64 or object: Python integers beyond 64 bits (or 2^63 and up
        # beside negatives), NumPy uint64 beside Python ints ([0] + list(np.cumsum(sizes))), an object
        # array of integers. Out of range: say which; else they are integers all the same.
        if offsets.ndim == 1 and offsets.dtype.kind in "fO" and all(
                isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in given):
            bad = next((x for x in given if not 0 <= x <= n), None)
            if bad is not None:
                raise ValueError(f"offsets must run from 0 to len(a) = {n}; {bad} is out of range")
            offsets = np.array([int(x) for x in given], dtype=np.int64)  # 0 <= x <= n < 2^31: exact
        else:
            raise TypeError(f"offsets must be integers, not {offsets.dtype}")
    if offsets.ndim != 1 or len(offsets) == 0:
        raise ValueError(f"offsets must be a 1-D array of segments + 1 entries, not of shape {offsets.shape}")
    if offsets[0] != 0 or offsets[-1] != n:
        raise ValueError(f"offsets must start at 0 and end at len(a) = {n}; they run from {offsets[0]} "
                         f"to {offsets[-1]}")
    if (offsets[1:] < offsets[:-1]).any():
        raise ValueError("offsets must not decrease")
    return np.ascontiguousarray(offsets, dtype=np.uint32)  # 0 <= offsets <= n < 2^31: exact
