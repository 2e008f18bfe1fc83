// SPDX-License-Identifier: MIT
#include "arrays.hpp"

#include <bit>
#include <string>

namespace py = pybind11;

namespace vksort::python {

namespace {
// The machine's own byte order: NumPy spells it '=', or '<' ('>') where it was asked for by name
// (dtype.newbyteorder('<'), ctypes arrays), and '|' where order does not apply; anything else is
// byte-swapped.
bool native_order(const py::dtype& dtype) {
  const char order = dtype.byteorder();
  return order == '=' || order == '|' || order == (std::endian::native == std::endian::little ? '<' : '>');
}
}  // namespace

Key key_kind(const py::dtype& dtype) {
  const char kind = dtype.kind();
  const auto size = dtype.itemsize();
  if (native_order(dtype) && (size == 4 || size == 8)) {
    if (kind == 'u') return size == 4 ? Key::u32 : Key::u64;
    if (kind == 'i') return size == 4 ? Key::i32 : Key::i64;
    if (kind == 'f') return size == 4 ? Key::f32 : Key::f64;
  }
  const std::string name = py::str(static_cast<const py::handle&>(dtype));
  throw py::type_error("vksort sorts keys of dtype uint32, int32, float32, uint64, int64 or float64 "
                       "(native byte order), not " + name);
}

uint64_t check_keys(const py::array& keys, const char* what) {
  key_kind(keys.dtype());
  if (keys.ndim() != 1)
    throw py::value_error(std::string(what) + " must be a 1-D array, not " + std::to_string(keys.ndim()) + "-D");
  return uint64_t(keys.shape(0));
}

const void* readable_bytes(const py::array& array, uint64_t bytes, const char* what) {
  if (!(array.flags() & py::array::c_style)) throw py::value_error(std::string(what) + " must be a C-contiguous array");
  if (uint64_t(array.nbytes()) != bytes)
    throw py::value_error(std::string(what) + " holds " + std::to_string(array.nbytes()) + " bytes, not " +
                          std::to_string(bytes));
  return array.data();
}

void* writable_bytes(py::array& array, uint64_t bytes, const char* what) {
  readable_bytes(array, bytes, what);
  if (!array.writeable()) throw py::value_error(std::string(what) + " must be a writable array");
  return array.mutable_data();
}

uint64_t check_offsets(const py::array& offsets) {
  const py::dtype dtype = offsets.dtype();
  if (dtype.kind() != 'u' || dtype.itemsize() != 4 || !native_order(dtype))
    throw py::type_error("offsets must be an array of uint32");
  if (offsets.ndim() != 1 || offsets.shape(0) < 1)
    throw py::value_error("offsets must be a 1-D array of segments + 1 entries");
  return uint64_t(offsets.shape(0)) - 1;
}

uint32_t index_bytes(const py::array& indices) {
  const py::dtype dtype = indices.dtype();
  if ((dtype.kind() != 'u' && dtype.kind() != 'i') || (dtype.itemsize() != 4 && dtype.itemsize() != 8) ||
      !native_order(dtype))
    throw py::type_error("argsort indices are int64, uint64, int32 or uint32");
  return uint32_t(dtype.itemsize());
}

}  // namespace vksort::python
