// SPDX-License-Identifier: MIT
// The installed vksort::mpi from a project of its own: two ranks (or any number) sort 1000 keys each.
#include <cstdio>
#include <span>
#include <vector>

#include <mpi.h>
#include <vksort/mpi.hpp>
#include <vksort/vksort.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int ok = 1;
  try {
    vksort::Device gpu(vksort::mpi::device_options(MPI_COMM_WORLD));
    std::vector<int64_t> keys(1000);
    for (size_t i = 0; i < keys.size(); ++i) keys[i] = int64_t((i * 7919 + size_t(rank) * 104729) % 2003) - 1000;
    const auto r = vksort::mpi::sort(MPI_COMM_WORLD, gpu, std::span<const int64_t>(keys));
    for (size_t i = 1; i < r.keys.size(); ++i) ok &= r.keys[i - 1] <= r.keys[i];
    ok &= r.stats.n_total == 1000 * uint64_t(ranks);
  } catch (const vksort::Error& e) {
    std::fprintf(stderr, "consumer_mpi: %s\n", e.what());
    ok = 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) std::printf("consumer_mpi: %d ranks sorted with vksort %s: %s\n", ranks, vksort::version(), ok ? "OK" : "FAILED");
  MPI_Finalize();
  return ok ? 0 : 1;
}
