// SPDX-License-Identifier: MIT
// The distributed sort (vksort/mpi.hpp): local GPU sort, regular sampling, one exchange, merge, and
// optionally a rebalancing exchange. Between steps every rank learns whether any rank failed (one
// all-reduce), so that a failure anywhere ends the sort everywhere with the same message.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "vksort/mpi.hpp"
#include "vksort/sorter.hpp"

#include "mpi/exchange.hpp"
#include "mpi/exchange_plan.hpp"
#include "mpi/merge_runs.hpp"
#include "mpi/mpi_check.hpp"
#include "mpi/splitters.hpp"

namespace vksort::mpi {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A private duplicate of the caller's communicator: the sort's point-to-point messages can never
// match the application's. Freed on every way out (all ranks leave together, see agree()).
// MPI_COMM_NULL and intercommunicators (whose collectives take no MPI_IN_PLACE, and whose "ranks" are
// the other group's) are refused here, on every rank that passes one, before any collective.
struct OwnComm {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  explicit OwnComm(MPI_Comm parent) {
    if (parent == MPI_COMM_NULL) throw Error("vksort::mpi::sort: the communicator is MPI_COMM_NULL");
    int inter = 0;
    detail::check_mpi(MPI_Comm_test_inter(parent, &inter), "MPI_Comm_test_inter");
    if (inter)
      throw Error("vksort::mpi::sort: the communicator is an intercommunicator; sort over an intracommunicator "
                  "(e.g. MPI_Intercomm_merge's)");
    detail::check_mpi(MPI_Comm_dup(parent, &comm), "MPI_Comm_dup");
    try {
      detail::check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
      detail::check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    } catch (...) {
      MPI_Comm_free(&comm);
      throw;
    }
  }
  ~OwnComm() { MPI_Comm_free(&comm); }
  OwnComm(const OwnComm&) = delete;
  OwnComm& operator=(const OwnComm&) = delete;
};

// Called by every rank after a step, with its error ("" = it succeeded). If any rank failed, every rank
// throws the message of the lowest failing rank, so all report the same line.
void agree(const OwnComm& c, const char* step, const std::string& error) {
  int first = error.empty() ? c.size : c.rank;
  detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, c.comm), "MPI_Allreduce");
  if (first == c.size) return;
  std::string message = error;
  int length = int(std::min<size_t>(message.size(), 4096));
  detail::check_mpi(MPI_Bcast(&length, 1, MPI_INT, first, c.comm), "MPI_Bcast");
  message.resize(size_t(length));
  detail::check_mpi(MPI_Bcast(message.data(), length, MPI_CHAR, first, c.comm), "MPI_Bcast");
  throw Error("vksort::mpi::sort: " + std::string(step) + " failed on rank " + std::to_string(first) + ": " + message);
}

// Runs one rank's part of a step, then agree()s. Only host work that can throw belongs in `f`; the
// collectives go between steps, so that no rank is left inside one.
template <class F>
void step(const OwnComm& c, const char* name, F&& f) {
  std::string error;
  try {
    f();
  } catch (const std::bad_alloc&) {
    error = "out of host memory";
  } catch (const std::exception& e) {
    error = *e.what() ? e.what() : "unknown error";
  }
  agree(c, name, error);
}

// The order-preserving encoding the GPU applies (vksort/sorter.hpp): comparing encoded keys as unsigned
// integers gives the sort's order, floats in IEEE total order. A bijection, so decoding restores every
// bit, NaN payloads included.
template <class U>
struct Encoding {
  static constexpr U top = U(1) << (sizeof(U) * 8 - 1);
  bool floating;
  U sign, invert;
  Encoding(Key key, Order order)
      : floating(is_floating(key)), sign(is_signed_integer(key) ? top : U(0)),
        invert(order == Order::descending ? ~U(0) : U(0)) {}
  // Negative floats' bits grow as the value falls, so all of them flip; positive ones gain the top bit.
  U encode(U bits) const { return bits ^ (floating ? ((bits & top) ? ~U(0) : top) : sign) ^ invert; }
  U decode(U code) const {
    const U a = code ^ invert;
    return a ^ (floating ? ((a & top) ? top : ~U(0)) : sign);
  }
};

template <class U>
MPI_Datatype mpi_type() {
  return sizeof(U) == 4 ? MPI_UINT32_T : MPI_UINT64_T;
}

template <class U>
Stats sort_encoded(const OwnComm& c, Device& device, Key key, const void* keys_in, uint64_t n,
                   const uint32_t* values_in, const Options& o, detail::ResizeKeys resize_keys, void* result,
                   std::vector<uint32_t>* values_out) {
  const auto start = Clock::now();
  const bool with_values = values_in != nullptr;
  const Encoding<U> encoding(key, o.order);
  const size_t p = size_t(c.size);
  Stats st;

  // 1. This rank's keys sorted on its GPU (stably: equal keys keep their input order), then encoded.
  auto t = Clock::now();
  std::vector<U> run;
  std::vector<uint32_t> values;
  step(c, "the local sort", [&] {
    run.resize(n);
    if (n) std::memcpy(run.data(), keys_in, n * sizeof(U));
    if (with_values) values.assign(values_in, values_in + n);
    SortOptions so;
    so.key = key;
    so.order = o.order;
    so.algorithm = o.algorithm;
    so.tuning = o.tuning;
    // Also with n = 0: the Sorter checks the options, so a rank without keys refuses what the others
    // refuse (Algorithm(77) passed where every rank was empty).
    st.local = sort_host(device, run.data(), n, with_values ? values.data() : nullptr, so);
    for (U& k : run) k = encoding.encode(k);
  });
  st.local_sort_ms = ms_since(t);

  // 2. Regular samples of every run, all-gathered; the same splitters chosen on every rank, then
  //    located in this rank's run.
  t = Clock::now();
  std::vector<uint64_t> have_in(p);
  detail::check_mpi(MPI_Allgather(&n, 1, MPI_UINT64_T, have_in.data(), 1, MPI_UINT64_T, c.comm), "MPI_Allgather");
  for (uint64_t h : have_in) st.n_total += h;
  const uint64_t d = detail::sample_step(st.n_total, c.size, o.oversampling);
  const std::vector<detail::Sample> mine = detail::take_samples<U>(run, c.rank, d);
  static_assert(sizeof(detail::Sample) == 3 * sizeof(uint64_t));
  // At most n / d <= p s + p samples in all (s checked against int range in sort()), 3 words each.
  int words = int(mine.size() * 3);
  std::vector<int> gathered_words(p), word_offsets(p + 1, 0);
  detail::check_mpi(MPI_Allgather(&words, 1, MPI_INT, gathered_words.data(), 1, MPI_INT, c.comm), "MPI_Allgather");
  for (size_t j = 0; j < p; ++j) word_offsets[j + 1] = word_offsets[j] + gathered_words[j];
  std::vector<detail::Sample> all(size_t(word_offsets[p]) / 3);
  detail::check_mpi(MPI_Allgatherv(mine.data(), words, MPI_UINT64_T, all.data(), gathered_words.data(),
                                   word_offsets.data(), MPI_UINT64_T, c.comm),
                    "MPI_Allgatherv");
  std::sort(all.begin(), all.end());
  const std::vector<detail::Sample> splitters = detail::choose_splitters(all, c.size);
  const std::vector<uint64_t> bounds = detail::locate_splitters<U>(run, c.rank, splitters, c.size);
  st.samples = all.size();
  st.sample_step = d;
  st.received_bound = detail::bucket_bound(st.samples, c.size, d);
  st.sampling_ms = ms_since(t);

  // 3. One exchange: bucket j of every run to rank j.
  t = Clock::now();
  std::vector<uint64_t> send_counts(p), recv_counts(p);
  for (size_t j = 0; j < p; ++j) send_counts[j] = bounds[j + 1] - bounds[j];
  detail::check_mpi(MPI_Alltoall(send_counts.data(), 1, MPI_UINT64_T, recv_counts.data(), 1, MPI_UINT64_T, c.comm),
                    "MPI_Alltoall");
  const std::vector<uint64_t> recv_offsets = detail::offsets_of(recv_counts);
  st.received = recv_offsets[p];
  std::vector<U> bucket;
  std::vector<uint32_t> bucket_values;
  step(c, "receiving the exchange", [&] {
    bucket.resize(st.received);
    if (with_values) bucket_values.resize(st.received);
  });
  const uint64_t limit = o.max_message_bytes;
  st.chunked_exchange =
      detail::exchange(c.comm, run.data(), send_counts, bucket.data(), recv_counts, mpi_type<U>(), sizeof(U), limit);
  if (with_values)
    detail::exchange(c.comm, values.data(), send_counts, bucket_values.data(), recv_counts, MPI_UINT32_T, 4, limit);
  run = {};
  values = {};
  st.exchange_ms = ms_since(t);

  // 4. The p received runs merged (stably: lower source rank first on equal keys).
  t = Clock::now();
  step(c, "the merge", [&] { detail::merge_runs(bucket, bucket_values, recv_offsets, with_values); });
  std::vector<uint64_t> have_out(p);
  detail::check_mpi(MPI_Allgather(&st.received, 1, MPI_UINT64_T, have_out.data(), 1, MPI_UINT64_T, c.comm),
                    "MPI_Allgather");
  st.max_received = *std::max_element(have_out.begin(), have_out.end());
  st.merge_ms = ms_since(t);

  // 5. keep_counts: the sorted sequence cut again at the input's counts. Rank j holds a consecutive
  //    stretch of it, so every rank knows who sends what from the two count vectors alone.
  if (o.keep_counts) {
    t = Clock::now();
    const std::vector<uint64_t> send = detail::rebalance_counts(have_out, have_in, c.rank);
    const std::vector<uint64_t> recv = detail::rebalance_counts(have_in, have_out, c.rank);
    std::vector<U> moved;
    std::vector<uint32_t> moved_values;
    step(c, "receiving the rebalancing", [&] {
      moved.resize(n);
      if (with_values) moved_values.resize(n);
    });
    detail::exchange(c.comm, bucket.data(), send, moved.data(), recv, mpi_type<U>(), sizeof(U), limit);
    if (with_values)
      detail::exchange(c.comm, bucket_values.data(), send, moved_values.data(), recv, MPI_UINT32_T, 4, limit);
    bucket = std::move(moved);
    bucket_values = std::move(moved_values);
    st.rebalance_ms = ms_since(t);
  }

  // 6. Decoded into the caller's result.
  step(c, "storing the result", [&] {
    U* out = static_cast<U*>(resize_keys(result, bucket.size()));
    for (size_t i = 0; i < bucket.size(); ++i) out[i] = encoding.decode(bucket[i]);
    if (with_values) *values_out = std::move(bucket_values);
  });
  st.total_ms = ms_since(start);
  return st;
}

}  // namespace

namespace detail {

Stats sort(MPI_Comm comm, Device& device, Key key, const void* keys, uint64_t n, const uint32_t* values,
           uint64_t value_count, const Options& options, ResizeKeys resize_keys, void* result,
           std::vector<uint32_t>* values_out) {
  OwnComm c(comm);
  step(c, "checking the arguments", [&] {
    if (n > 0 && keys == nullptr) throw Error("keys is null with " + std::to_string(n) + " keys");
    // Refused here, before the local sort copies the keys: sort_host would refuse them only after that
    // copy, and a rank short of memory for it said "out of host memory" instead.
    if (n > max_sort_keys)
      throw Error(std::to_string(n) + " keys on one rank: vksort sorts at most 2^31 - 1 keys on one rank "
                  "(spread them over more ranks)");
    if (values && value_count != n)
      throw Error(std::to_string(value_count) + " values for " + std::to_string(n) + " keys: one value per key is needed");
    // The samples are all-gathered with int counts: about 3 p s words (see sort_encoded).
    const uint64_t s = detail::samples_per_share(c.size, options.oversampling);
    if (3 * (uint64_t(c.size) * s + uint64_t(c.size)) > uint64_t(INT_MAX))
      throw Error("oversampling " + std::to_string(s) + " with " + std::to_string(c.size) +
                  " ranks makes more samples than one all-gather can carry");
  });
  // Every rank must sort the same way: compare the calls' shapes (min and max of each in one reduce:
  // the minimum of ~x is ~max(x), for every 64-bit x; a negated int64 was not, at -2^63).
  const uint64_t shape[] = {uint64_t(key), uint64_t(options.order), values != nullptr, options.keep_counts,
                            options.oversampling, options.max_message_bytes};
  constexpr int k = int(std::size(shape));
  uint64_t both[2 * k];
  for (int i = 0; i < k; ++i) both[i] = shape[i], both[k + i] = ~shape[i];
  detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, both, 2 * k, MPI_UINT64_T, MPI_MIN, c.comm), "MPI_Allreduce");
  const char* names[] = {"key type", "order", "values (given or not)", "keep_counts", "oversampling",
                         "max_message_bytes"};
  for (int i = 0; i < k; ++i)
    if (both[i] != ~both[k + i])
      throw Error(std::string("vksort::mpi::sort: the ranks disagree on the ") + names[i] +
                  ": every rank must call it alike");
  if (key_bytes(key) == 4)
    return sort_encoded<uint32_t>(c, device, key, keys, n, values, options, resize_keys, result, values_out);
  return sort_encoded<uint64_t>(c, device, key, keys, n, values, options, resize_keys, result, values_out);
}

}  // namespace detail

uint64_t received_bound(uint64_t n, int p, uint32_t oversampling) {
  if (p < 1) throw Error("vksort::mpi::received_bound: " + std::to_string(p) + " ranks (at least 1)");
  const uint64_t d = detail::sample_step(n, p, oversampling);
  return detail::bucket_bound(n / d, p, d);
}

}  // namespace vksort::mpi
