// SPDX-License-Identifier: MIT
#include "bucket_workloads.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace vksort::workloads {

std::vector<uint32_t> walk_bucket(const std::vector<uint32_t>& head, const std::vector<uint32_t>& next, uint32_t b,
                                  size_t n, bool* broken) {
  std::vector<uint32_t> out;
  for (uint32_t e = head[b]; e != no_element; e = next[e]) {
    if (out.size() > n || e >= n) {
      if (broken) *broken = true;
      break;
    }
    out.push_back(e);
  }
  return out;
}

std::string check_bucket_lists(const std::vector<uint32_t>& head, const std::vector<uint32_t>& next,
                               const std::vector<uint32_t>& ids, uint32_t m) {
  const size_t n = ids.size();
  if (head.size() != m || next.size() != n)
    return "wrong sizes: head has " + std::to_string(head.size()) + " words for " + std::to_string(m) +
           " buckets, next " + std::to_string(next.size()) + " for " + std::to_string(n) + " elements";
  std::vector<uint32_t> count(m, 0);
  for (uint32_t id : ids)
    if (id < m) ++count[id];
  std::vector<uint8_t> seen(n, 0);
  for (uint32_t b = 0; b < m; ++b) {
    bool broken = false;
    const std::vector<uint32_t> list = walk_bucket(head, next, b, n, &broken);
    if (broken) return "bucket " + std::to_string(b) + ": the list has a cycle or a bad index";
    if (list.size() != count[b])
      return "bucket " + std::to_string(b) + ": " + std::to_string(list.size()) + " elements listed, " +
             std::to_string(count[b]) + " belong there";
    for (uint32_t e : list) {
      if (ids[e] != b)
        return "element " + std::to_string(e) + " (bucket " + std::to_string(ids[e]) + ") listed in bucket " +
               std::to_string(b);
      if (seen[e]++) return "element " + std::to_string(e) + " listed twice";
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (ids[i] >= m && next[i] != no_element)
      return "element " + std::to_string(i) + " without a bucket has a next pointer";
  return "";
}

std::vector<uint32_t> uniform_bucket_ids(size_t n, uint32_t m, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> d(0, m - 1);
  std::vector<uint32_t> ids(n);
  for (auto& id : ids) id = d(rng);
  return ids;
}

std::vector<uint32_t> clustered_bucket_ids(size_t n, uint32_t m, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> centre(0, m - 1);
  std::normal_distribution<double> spread(0.0, 3.0);
  const uint32_t centres[] = {centre(rng), centre(rng), centre(rng)};
  std::vector<uint32_t> ids(n);
  for (size_t i = 0; i < n; ++i) {
    const double c = centres[i % 3] + spread(rng);
    ids[i] = uint32_t(std::clamp(c, 0.0, double(m - 1)));
  }
  return ids;
}

std::vector<uint32_t> move_some_ids(std::vector<uint32_t> ids, uint32_t m, double fraction, uint32_t seed,
                                    size_t* moved) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> order(ids.size());
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), rng);
  std::uniform_int_distribution<uint32_t> d(1, m > 1 ? m - 1 : 1);
  const size_t count = m > 1 ? size_t(fraction * double(ids.size()) + 0.5) : 0;
  for (size_t k = 0; k < count; ++k) ids[order[k]] = (ids[order[k]] + d(rng)) % m;
  *moved = count;
  return ids;
}

}  // namespace vksort::workloads
