// SPDX-License-Identifier: MIT
#include "cli_error.hpp"

#include <string_view>

namespace vksort::cli {

std::string in_quotes(std::string_view text) {
  // Built by appending: GCC 12 raises a false -Wrestrict on "'" + std::string(...).
  std::string q;
  q.reserve(text.size() + 2);
  q += '\'';
  q += text;
  q += '\'';
  return q;
}

bool is_refusal(const vksort::Error& e) {
  if (e.result() != VK_SUCCESS || e.code() == vksort::Status::Code::io_error) return false;
  const std::string_view what = e.what();
  return !what.starts_with("Vulkan validation") && !what.starts_with("internal:");
}

bool is_out_of_memory(const vksort::Error& e) {
  return e.result() == VK_ERROR_OUT_OF_DEVICE_MEMORY || e.result() == VK_ERROR_OUT_OF_HOST_MEMORY;
}

}  // namespace vksort::cli
