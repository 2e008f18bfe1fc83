// SPDX-License-Identifier: MIT
// The doctest main of the suites that run under mpiexec: MPI around doctest, one validated device per
// rank (as tests/support/test_main.cpp gives the other suites), and one verdict for all ranks.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <mpi.h>

#include "gpu/context.hpp"
#include "mpi/test_mpi_device.hpp"

namespace vksort::test {

namespace {
std::unique_ptr<Device> g_device;
}

Device& mpi_device() {
  if (!g_device) {
    DeviceOptions options;
    options.validation = validation_layer_available() ? 1 : 0;
    g_device = std::make_unique<Device>(options);
  }
  return *g_device;
}

}  // namespace vksort::test

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  setenv("VKSORT_CACHE_DIR", "/nonexistent/vksort-tests-use-built-in-profiles", 1);
  doctest::Context context(argc, argv);
  // Every rank runs every case (the cases are collective); only rank 0 prints the summary, failures
  // are printed by the rank that saw them.
  if (rank != 0) context.setOption("no-intro", true), context.setOption("no-version", true);
  int result = context.run();
  // Destroying the device reports leaked Vulkan objects through the validation callback.
  vksort::test::g_device.reset();
  if (const uint64_t messages = vksort::gpu::validation_message_count()) {
    std::fprintf(stderr, "FAILED on rank %d: %llu Vulkan validation message(s); last: %s\n", rank,
                 static_cast<unsigned long long>(messages), vksort::gpu::last_validation_message().c_str());
    result = 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return result;
}
