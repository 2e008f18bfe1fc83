// SPDX-License-Identifier: MIT
#include "mpi/exchange.hpp"

#include <cstring>
#include <vector>

#include "mpi/exchange_plan.hpp"
#include "mpi/mpi_check.hpp"

namespace vksort::mpi::detail {

namespace {

void alltoallv(MPI_Comm comm, const void* send, std::span<const uint64_t> send_counts, void* recv,
               std::span<const uint64_t> recv_counts, MPI_Datatype element) {
  const size_t p = send_counts.size();
  const std::vector<uint64_t> so = offsets_of(send_counts), ro = offsets_of(recv_counts);
  std::vector<int> sc(p), sd(p), rc(p), rd(p);
  for (size_t j = 0; j < p; ++j) {
    sc[j] = int(send_counts[j]), sd[j] = int(so[j]);
    rc[j] = int(recv_counts[j]), rd[j] = int(ro[j]);
  }
  check_mpi(MPI_Alltoallv(send, sc.data(), sd.data(), element, recv, rc.data(), rd.data(), element, comm),
            "MPI_Alltoallv");
}

// Every piece in chunks of at most `limit` elements, addressed by pointer (no int displacement).
// Receives are posted before sends; one tag suffices because MPI delivers the messages between two
// ranks on one communicator and tag in the order they were sent.
void chunked(MPI_Comm comm, const void* send, std::span<const uint64_t> send_counts, void* recv,
             std::span<const uint64_t> recv_counts, MPI_Datatype element, uint64_t element_bytes, uint64_t limit) {
  int me = 0;
  check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
  const size_t p = send_counts.size();
  const std::vector<uint64_t> so = offsets_of(send_counts), ro = offsets_of(recv_counts);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  constexpr int tag = 17;
  std::vector<MPI_Request> requests;
  for (size_t j = 0; j < p; ++j) {
    if (int(j) == me) continue;
    for (const Chunk& c : chunks_of(recv_counts[j], limit)) {
      requests.emplace_back();
      check_mpi(MPI_Irecv(out + (ro[j] + c.offset) * element_bytes, c.count, element, int(j), tag, comm, &requests.back()),
                "MPI_Irecv");
    }
  }
  for (size_t j = 0; j < p; ++j) {
    if (int(j) == me) continue;
    for (const Chunk& c : chunks_of(send_counts[j], limit)) {
      requests.emplace_back();
      check_mpi(MPI_Isend(in + (so[j] + c.offset) * element_bytes, c.count, element, int(j), tag, comm, &requests.back()),
                "MPI_Isend");
    }
  }
  // A rank's piece for itself never leaves the process.
  if (send_counts[size_t(me)])
    std::memcpy(out + ro[size_t(me)] * element_bytes, in + so[size_t(me)] * element_bytes,
                send_counts[size_t(me)] * element_bytes);
  check_mpi(MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

}  // namespace

bool exchange(MPI_Comm comm, const void* send, std::span<const uint64_t> send_counts, void* recv,
              std::span<const uint64_t> recv_counts, MPI_Datatype element, uint64_t element_bytes,
              uint64_t max_message_bytes) {
  const uint64_t limit = max_message_elements(max_message_bytes, element_bytes);
  // Every rank must take the same way, or Alltoallv would wait for messages that come point-to-point.
  int fits = fits_one_alltoallv(send_counts, recv_counts, limit) ? 1 : 0;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_LAND, comm), "MPI_Allreduce");
  if (fits) {
    alltoallv(comm, send, send_counts, recv, recv_counts, element);
    return false;
  }
  chunked(comm, send, send_counts, recv, recv_counts, element, element_bytes, limit);
  return true;
}

}  // namespace vksort::mpi::detail
