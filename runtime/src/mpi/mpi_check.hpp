// SPDX-License-Identifier: MIT
// mpi_check.hpp — MPI's return codes as vksort::Error. Under the default handler (MPI_ERRORS_ARE_FATAL)
// a failing call never returns; a communicator with MPI_ERRORS_RETURN gets the code back instead, and
// going on past it (the buffers it should have filled left unfilled) crashed later.
#pragma once

#include <string>

#include <mpi.h>

#include "vksort/error.hpp"

namespace vksort::mpi::detail {

// Throws Error("vksort::mpi::sort: CALL failed: MPI's text for the code") unless rc is MPI_SUCCESS.
inline void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  throw Error(std::string("vksort::mpi::sort: ") + call + " failed: " +
              (length > 0 ? std::string(text, size_t(length)) : "MPI error " + std::to_string(rc)));
}

}  // namespace vksort::mpi::detail
