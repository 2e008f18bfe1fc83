// SPDX-License-Identifier: MIT
// NumPy arrays as the library sees them: which key kind a dtype sorts as, and the checks that let
// vksort read and write an array's memory in place. The Python layer (python/vksort) makes the
// contiguous, native-order copies; these checks keep a misuse of vksort._core from corrupting memory.
#pragma once

#include <cstdint>

#include <pybind11/numpy.h>

#include "vksort/types.hpp"

namespace vksort::python {

// The key kind of a dtype: uint32 u32, int32 i32, float32 f32, uint64 u64, int64 i64, float64 f64 in
// native byte order. Anything else raises TypeError naming the supported dtypes.
Key key_kind(const pybind11::dtype& dtype);

// The keys of a sort: a 1-D, C-contiguous, writable array of a supported dtype. Raises TypeError or
// ValueError naming `what` otherwise. Returns the number of keys.
uint64_t check_keys(const pybind11::array& keys, const char* what);

// An array vksort reads, `bytes` long: C-contiguous, or ValueError naming `what`.
const void* readable_bytes(const pybind11::array& array, uint64_t bytes, const char* what);
// An array vksort writes in place, `bytes` long: C-contiguous and writable, or ValueError naming `what`.
void* writable_bytes(pybind11::array& array, uint64_t bytes, const char* what);

// Segment offsets: a 1-D array of uint32 with at least one entry, or TypeError / ValueError. Returns
// the number of segments (entries - 1); the values themselves are the library's to check.
uint64_t check_offsets(const pybind11::array& offsets);

// Bytes of one index of an argsort: 4 or 8 for an array of 32- or 64-bit integers, else TypeError.
uint32_t index_bytes(const pybind11::array& indices);

}  // namespace vksort::python
