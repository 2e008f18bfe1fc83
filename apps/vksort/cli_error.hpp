// SPDX-License-Identifier: MIT
// cli_error.hpp — how the CLI fails. Every failure ends as one line on stderr ("vksort: ...") and an
// exit code that says where the fault lies, so scripts can tell a bad command line from a bad machine.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include <vksort/error.hpp>

namespace vksort::cli {

constexpr int exit_ok = 0;
constexpr int exit_runtime = 1;  // the machine, the driver or vksort failed while doing valid work
constexpr int exit_usage = 2;    // the command line, its files or its sizes are wrong: fix the input

// Bad input: arguments, files, sizes. Exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Valid input that could not be processed: I/O errors, GPU errors, a wrong sort result. Exit 1.
struct RuntimeFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// 'name' in single quotes: how messages show file names and other user-supplied words.
std::string in_quotes(std::string_view text);

// True when vksort refused a request itself rather than failing to carry it out: an algorithm this
// build lacks, a tuning the device cannot run, more keys than an algorithm handles. The library marks
// those with VK_SUCCESS; validation reports and internal errors carry VK_SUCCESS too but are failures.
bool is_refusal(const vksort::Error& e);

// True for the results a too-large allocation gives (including vksort's own maxMemoryAllocationSize check).
bool is_out_of_memory(const vksort::Error& e);

// Runs f(); a vksort::Error that is_refusal() becomes a UsageError prefixed with `context`.
template <class F>
decltype(auto) refusals_are_usage_errors(const std::string& context, F&& f) {
  try {
    return f();
  } catch (const vksort::Error& e) {
    if (is_refusal(e)) throw UsageError(context + ": " + e.what());
    throw;
  }
}

}  // namespace vksort::cli
