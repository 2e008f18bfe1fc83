// SPDX-License-Identifier: MIT
// steps.hpp — how vksort-mpi fails: every rank runs each step, then all learn whether any rank failed
// (one all-reduce), so a bad file or a failing GPU on one rank ends the command on every rank with the
// same one-line error and exit code, instead of leaving the others blocked in the next collective.
#pragma once

#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <mpi.h>

namespace vksort::mpi_cli {

constexpr int exit_ok = 0;
constexpr int exit_runtime = 1;  // valid input that could not be processed (I/O, GPU)
constexpr int exit_usage = 2;    // the command line, its files or their sizes are wrong

// A failure with its exit code; the message is the whole line after "vksort-mpi: ".
struct Failure : std::runtime_error {
  int code;
  Failure(int exit_code, const std::string& message) : std::runtime_error(message), code(exit_code) {}
};

// Every rank calls this with its own outcome ("" = it succeeded); throws, on every rank, the Failure of
// the lowest failing rank ("... (rank 2)" when p > 1).
void agree(MPI_Comm comm, const std::string& error, int code);

// Runs one rank's part of a step (no collectives inside), turns what it throws into a Failure (a
// vksort::Error is exit_runtime) and agree()s.
template <class F>
void step(MPI_Comm comm, F&& f) {
  std::string error;
  int code = exit_ok;
  try {
    f();
  } catch (const Failure& e) {
    error = e.what(), code = e.code;
  } catch (const std::bad_alloc&) {
    // As the library's steps say it (its what() is "std::bad_alloc", which names no cause).
    error = "out of host memory", code = exit_runtime;
  } catch (const std::exception& e) {
    error = e.what(), code = exit_runtime;
  }
  agree(comm, error, code);
}

// Sets `text` on every rank to root's (collective).
void broadcast(MPI_Comm comm, std::string& text, int root);

// What every rank must have been given alike: a name for the message and this rank's value.
using Setting = std::pair<std::string, std::string>;

// Every rank calls this with the same names: throws Failure exit_usage on every rank when some rank's
// value differs from rank 0's, naming the first that does ("the ranks disagree on the output: 'b' here,
// 'a' on rank 0 (rank 1)"). mpirun runs any command line on each rank (MPMD: `-np 1 A : -np 1 B`, per-rank
// working folders); ranks given different files or options would otherwise write a wrong file or wait
// forever in different collectives.
void require_same(MPI_Comm comm, const std::vector<Setting>& settings);

// 'name' in single quotes, as the other vksort tools show file names.
std::string in_quotes(const std::string& text);

// MPI's text for an error code.
std::string mpi_error_text(int code);

}  // namespace vksort::mpi_cli
