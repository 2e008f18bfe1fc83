// SPDX-License-Identifier: MIT
// vksort._core: the library's host entry points (sort, argsort, segmented sort) for NumPy arrays. The
// arrays arrive from the Python layer (python/vksort), which makes the copies the user gets back; here
// they are checked again (they are read and written as raw memory) and sorted in place with the GIL
// released, so other Python threads run while the GPU works.
#include <unistd.h>

#include <memory>
#include <optional>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "dicts.hpp"
#include "gpu_calls.hpp"
#include "vksort/vksort.hpp"

namespace py = pybind11;
using namespace vksort;
using namespace vksort::python;

namespace {

// A Device and the process that made it. A Vulkan device does not survive fork(): the driver's threads
// stay in the parent (lavapipe's queue waited forever in a child, deaf to Ctrl-C). So a call from another
// process raises vksort.Error, and the child never destroys the parent's device either (that could wait
// on the same threads): it leaves it be, as the operating system does with the copied memory.
struct PyDevice {
  std::unique_ptr<Device> device;
  pid_t pid = ::getpid();

  explicit PyDevice(Device d) : device(std::make_unique<Device>(std::move(d))) {}
  PyDevice(const PyDevice&) = delete;
  PyDevice& operator=(const PyDevice&) = delete;
  ~PyDevice() {
    if (::getpid() != pid) (void)device.release();  // the parent's: not ours to destroy
  }
  Device& get() {
    if (::getpid() != pid)
      throw Error("this vksort.Device was made in process " + std::to_string(pid) +
                  ", before fork(): a GPU device does not survive fork(); make a new vksort.Device in this process "
                  "(the module-level functions do so themselves), or start processes with 'spawn' or 'forkserver'");
    return *device;
  }
};

PyDevice* open_device(const std::string& select, int validation) {
  DeviceOptions options;
  options.select = select;
  options.validation = validation;
  std::optional<Device> d;
  {
    WithoutGil unlocked;  // instance and device creation take a while on some drivers
    d.emplace(options);
  }
  return new PyDevice(std::move(*d));
}

SortOptions options_for(const py::array& keys, bool descending) {
  SortOptions options;
  options.key = key_kind(keys.dtype());
  options.order = descending ? Order::descending : Order::ascending;
  return options;
}

// Sorts keys in place and moves `values` (n records of value_bytes bytes, or None) with them.
py::dict sort_in_place(Device& device, py::array keys, std::optional<py::array> values, uint32_t value_bytes,
                       bool descending) {
  const uint64_t n = check_keys(keys, "keys");
  const SortOptions options = options_for(keys, descending);
  void* key_bytes = writable_bytes(keys, n * keys.itemsize(), "keys");
  void* value_bytes_ptr = values ? writable_bytes(*values, n * value_bytes, "values") : nullptr;
  SortStats stats;
  {
    WithoutGil unlocked;
    stats = sort_host(device, key_bytes, n, value_bytes_ptr, values ? value_bytes : 0, options);
  }
  return stats_dict(stats);
}

// indices[i] = the position in keys of the i-th key in sorted order (4- or 8-byte integers); keys are
// only read.
py::dict argsort_into(Device& device, const py::array& keys, py::array indices, bool descending) {
  const uint64_t n = check_keys(keys, "keys");
  const SortOptions options = options_for(keys, descending);
  const uint32_t bytes = index_bytes(indices);
  const void* key_bytes = readable_bytes(keys, n * keys.itemsize(), "keys");
  void* index_out = writable_bytes(indices, n * bytes, "indices");
  SortStats stats;
  {
    WithoutGil unlocked;
    stats = argsort_host(device, key_bytes, n, index_out, bytes, options);
  }
  return stats_dict(stats);
}

// Sorts every segment [offsets[s], offsets[s + 1]) of keys in place, values (or None) moving with them.
py::dict segmented_sort_in_place(Device& device, py::array keys, std::optional<py::array> values, uint32_t value_bytes,
                                 const py::array& offsets, bool descending) {
  const uint64_t n = check_keys(keys, "keys");
  const SortOptions options = options_for(keys, descending);
  const uint64_t segments = check_offsets(offsets);
  void* key_bytes = writable_bytes(keys, n * keys.itemsize(), "keys");
  void* value_bytes_ptr = values ? writable_bytes(*values, n * value_bytes, "values") : nullptr;
  const auto* offset_data = static_cast<const uint32_t*>(readable_bytes(offsets, (segments + 1) * 4, "offsets"));
  SortStats stats;
  {
    WithoutGil unlocked;
    stats = segmented_sort_host(device, key_bytes, n, value_bytes_ptr, values ? value_bytes : 0, offset_data, segments,
                                options);
  }
  return stats_dict(stats);
}

py::list devices() {
  py::list list;
  for (const DeviceListing& listing : list_devices()) {
    py::dict d = device_dict(listing.info);
    d["index"] = listing.index;
    d["usable"] = listing.usable;
    d["unusable_why"] = listing.unusable_why;
    d["chosen"] = listing.chosen;
    list.append(d);
  }
  return list;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "vksort's library calls; use the package vksort, not this module";
  // vksort.Error carries the library's Status code as `code` ("invalid_argument", "unsupported",
  // "out_of_memory", "device_lost", "vulkan_error", "io_error"), so that a caller can tell a device lost
  // (make a new Device) or out of memory (sort less at once) from its own mistake without parsing the
  // message.
  static py::exception<Error> error_type(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const Error& e) {
      py::object error = py::handle(error_type.ptr())(e.what());  // the instance, as raise Error(message)
      error.attr("code") = std::string(to_string(e.code()));
      PyErr_SetObject(error_type.ptr(), error.ptr());
    }
  });
  m.attr("library_version") = version();
  m.attr("max_sort_keys") = vksort::max_sort_keys;

  m.def("key_kind", [](const py::dtype& dtype) { return std::string(to_string(key_kind(dtype))); },
        "The library's name of the key kind a dtype sorts as; TypeError for an unsupported dtype.");
  m.def("devices", &devices, "Every Vulkan device the system lists, usable or not, as dicts.");
  m.def("validation_layer_available", &validation_layer_available);
  m.def("_forget_calls_after_fork", &forget_calls_after_fork, "For os.register_at_fork in the package.");
  py::module_::import("atexit").attr("register")(py::cpp_function(&wait_for_calls_at_exit));

  py::class_<PyDevice>(m, "Device")
      .def(py::init(&open_device), py::arg("select"), py::arg("validation") = -1)
      .def("info", [](PyDevice& d) { return device_dict(d.get().info()); })
      .def("validation_enabled", [](PyDevice& d) { return d.get().validation_enabled(); })
      .def("release_cached_memory",
           [](PyDevice& d) {
             Device& device = d.get();
             WithoutGil unlocked;  // it may wait for another thread's call to leave the cache's lock
             device.release_cached_memory();
           })
      .def("sort", [](PyDevice& d, py::array keys, std::optional<py::array> values, uint32_t value_bytes,
                      bool descending) { return sort_in_place(d.get(), keys, values, value_bytes, descending); },
           py::arg("keys"), py::arg("values"), py::arg("value_bytes"), py::arg("descending"))
      .def("argsort", [](PyDevice& d, const py::array& keys, py::array indices,
                         bool descending) { return argsort_into(d.get(), keys, indices, descending); },
           py::arg("keys"), py::arg("indices"), py::arg("descending"))
      .def("segmented_sort",
           [](PyDevice& d, py::array keys, std::optional<py::array> values, uint32_t value_bytes, const py::array& offsets,
              bool descending) { return segmented_sort_in_place(d.get(), keys, values, value_bytes, offsets, descending); },
           py::arg("keys"), py::arg("values"), py::arg("value_bytes"), py::arg("offsets"), py::arg("descending"));
}
