// SPDX-License-Identifier: MIT
#include "steps.hpp"

#include <algorithm>

namespace vksort::mpi_cli {

void agree(MPI_Comm comm, const std::string& error, int code) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int first = error.empty() ? size : rank;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  // The failing rank's code and message, sent to all.
  std::string message = error;
  int header[2] = {code, int(std::min<size_t>(message.size(), 4096))};
  MPI_Bcast(header, 2, MPI_INT, first, comm);
  message.resize(size_t(header[1]));
  MPI_Bcast(message.data(), header[1], MPI_CHAR, first, comm);
  if (size > 1) message += " (rank " + std::to_string(first) + ")";
  throw Failure(header[0], message);
}

std::string in_quotes(const std::string& text) { return "'" + text + "'"; }

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, size_t(length));
}

}  // namespace vksort::mpi_cli
