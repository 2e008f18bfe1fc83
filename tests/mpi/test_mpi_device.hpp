// SPDX-License-Identifier: MIT
// The device of one rank in the mpiexec suites: the default device with validation where installed.
#pragma once

#include "vksort/vksort.hpp"

namespace vksort::test {
Device& mpi_device();
}
