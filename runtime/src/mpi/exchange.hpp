// SPDX-License-Identifier: MIT
// exchange.hpp — one all-to-all exchange of variable-size pieces, of any size.
#pragma once

#include <cstdint>
#include <span>

#include <mpi.h>

namespace vksort::mpi::detail {

// Sends send_counts[j] elements (of `element`, element_bytes each) to rank j, from consecutive pieces of
// `send`, and receives recv_counts[j] from rank j into consecutive pieces of `recv` (collective). One
// MPI_Alltoallv when every rank's counts and displacements fit MPI's ints and max_message_bytes; else
// point-to-point messages of at most max_message_bytes (exchange_plan.hpp), on every rank alike (the
// choice is agreed by an all-reduce). Returns true when it went the chunked way.
bool exchange(MPI_Comm comm, const void* send, std::span<const uint64_t> send_counts, void* recv,
              std::span<const uint64_t> recv_counts, MPI_Datatype element, uint64_t element_bytes,
              uint64_t max_message_bytes);

}  // namespace vksort::mpi::detail
