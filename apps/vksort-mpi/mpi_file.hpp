// SPDX-License-Identifier: MIT
// mpi_file.hpp — one raw key file read and written by all ranks together with MPI-IO, each rank its
// consecutive slice. Collective; failures are agreed on (steps.hpp), so every rank throws alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <mpi.h>

namespace vksort::mpi_cli {

// This rank's share of the keys of `path` (key_bytes each): the file cut into p nearly equal
// consecutive slices. Throws Failure exit_usage when some rank cannot open the file, it is no regular
// file, the ranks see different sizes, its size is not a whole number of keys, or a slice would hold
// more than 2^31 - 1 keys (vksort's limit on one rank) or more than the node's memory holds
// (check_host_memory; both checked before reading); exit_runtime for read
// errors. Sets *total to the file's key count.
std::vector<std::byte> read_slice(MPI_Comm comm, const std::string& path, uint32_t key_bytes, uint64_t* total);

// Writes the ranks' parts, one after another in rank order, as the file `destination`: into a
// temporary file beside it, renamed over it by rank 0 only once every rank has written its part and
// the file is closed. The temporary is hidden (".NAME.vksort-mpi-XXXXXX"). On any failure it is
// removed and `destination` is untouched; so it is when rank 0 gets SIGINT, SIGTERM, SIGHUP, SIGPIPE
// or SIGQUIT while writing (not SIGKILL). Throws Failure exit_usage when some rank cannot see rank 0's
// temporary file (its folder of that name is another one).
void write_atomic(MPI_Comm comm, const std::string& destination, std::span<const std::byte> mine);

// Throws Failure exit_usage on every rank ("WHAT: the ranks on this node need about ...") when the ranks
// on this rank's node would need more host memory than MemAvailable: about 4 times their keys each
// (keys, the sort's copy, keys received, result; more where device memory is host memory, as on
// lavapipe). Beyond it the kernel's OOM killer ends ranks without a word. Collective.
void check_host_memory(MPI_Comm comm, uint64_t key_bytes_here, const std::string& what);

// Throws std::bad_alloc on rank `rank` when VKSORT_MPI_TEST_FAULT is nomem:RANK (tests/mpi/cli_test.sh).
void test_fault_nomem(int rank);

// Throws Failure exit_usage on every rank unless, on every rank, the name is not empty, `destination`'s
// folder exists and is writable, and the destination is no folder, pipe or device: checked before any
// work, so that a typo costs no sort.
void check_destination(MPI_Comm comm, const std::string& destination);

}  // namespace vksort::mpi_cli
