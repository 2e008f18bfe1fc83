// SPDX-License-Identifier: MIT
// Which GPU a rank uses: ranks on one node share its devices round-robin by their node-local rank.
#include <cstdlib>
#include <string>
#include <vector>

#include "vksort/mpi.hpp"

namespace vksort::mpi {

int node_local_rank(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int rank = 0;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  return rank;
}

DeviceOptions device_options(MPI_Comm comm, DeviceOptions base) {
  const int local = node_local_rank(comm);
  const char* env = std::getenv("VKSORT_DEVICE");
  // An explicit choice (the caller's or the environment's) wins: the user may have bound ranks to
  // devices already (CUDA_VISIBLE_DEVICES-style wrappers set VKSORT_DEVICE per rank).
  if (!base.select.empty() || (env && *env)) return base;
  std::vector<uint32_t> usable;
  for (const DeviceListing& d : list_devices())
    if (d.usable) usable.push_back(d.index);
  if (usable.size() > 1) base.select = std::to_string(usable[size_t(local) % usable.size()]);
  return base;
}

}  // namespace vksort::mpi
