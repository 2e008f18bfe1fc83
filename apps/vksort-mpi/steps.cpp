// SPDX-License-Identifier: MIT
#include "steps.hpp"

namespace vksort::mpi_cli {

void agree(MPI_Comm comm, const std::string& error, int code) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int first = error.empty() ? size : rank;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  // The failing rank's code and message, sent to all.
  std::string message = error.substr(0, 4096);
  MPI_Bcast(&code, 1, MPI_INT, first, comm);
  broadcast(comm, message, first);
  if (size > 1) message += " (rank " + std::to_string(first) + ")";
  throw Failure(code, message);
}

void broadcast(MPI_Comm comm, std::string& text, int root) {
  int length = int(text.size());
  MPI_Bcast(&length, 1, MPI_INT, root, comm);
  text.resize(size_t(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, root, comm);
}

void require_same(MPI_Comm comm, const std::vector<Setting>& settings) {
  // Rank 0's values, each ended by a NUL (which no argument or number holds).
  std::string theirs;
  for (const Setting& s : settings) theirs += s.second + '\0';
  broadcast(comm, theirs, 0);
  step(comm, [&] {
    size_t at = 0;
    for (const auto& [name, value] : settings) {
      const size_t end = theirs.find('\0', at);
      const std::string rank0 = theirs.substr(at, end - at);
      if (value != rank0)
        throw Failure(exit_usage, "the ranks disagree on " + name + ": " + in_quotes(value) + " here, " +
                                      in_quotes(rank0) + " on rank 0");
      at = end + 1;
    }
  });
}

std::string in_quotes(const std::string& text) { return "'" + text + "'"; }

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, size_t(length));
}

}  // namespace vksort::mpi_cli
