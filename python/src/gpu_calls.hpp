// SPDX-License-Identifier: MIT
// The GIL around the library's calls. Each call releases it, so other Python threads run while the GPU
// works; but at interpreter exit CPython ends a daemon thread that asks for the GIL back with
// pthread_exit, which unwinds through the release's noexcept destructor: std::terminate, the whole
// process aborted (exit 134) after the program had finished. So the calls in flight are counted, and an
// atexit hook (which runs before finalization begins) waits for them; calls that start after it keep the
// GIL, and the interpreter waits for them as for any code that holds it.
#pragma once

#include <chrono>
#include <thread>

#include <pybind11/pybind11.h>

namespace vksort::python {

// Read and written only with the GIL held.
inline int g_calls_in_flight = 0;
inline bool g_exiting = false;

// Releases the GIL for its lifetime, unless the interpreter is exiting; construct it with the GIL held.
class WithoutGil {
 public:
  WithoutGil() {
    if (g_exiting) return;
    ++g_calls_in_flight;
    state_ = PyEval_SaveThread();
  }
  ~WithoutGil() {
    if (!state_) return;
    PyEval_RestoreThread(state_);  // not finalizing: the atexit hook waits for this call
    --g_calls_in_flight;
  }
  WithoutGil(const WithoutGil&) = delete;
  WithoutGil& operator=(const WithoutGil&) = delete;

 private:
  PyThreadState* state_ = nullptr;
};

// The atexit hook: no call releases the GIL from now on, and those that did have it back.
inline void wait_for_calls_at_exit() {
  g_exiting = true;
  while (g_calls_in_flight > 0) {
    pybind11::gil_scoped_release unlocked;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// In a child after fork() only the forking thread exists (which held the GIL): no call is in flight.
inline void forget_calls_after_fork() { g_calls_in_flight = 0; }

}  // namespace vksort::python
