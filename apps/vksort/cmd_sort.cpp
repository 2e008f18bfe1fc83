// SPDX-License-Identifier: MIT
// vksort sort: one file of keys (and optionally one of values) sorted on the GPU into new files.
//
// Everything that can be wrong with the request is checked before the outputs are touched, and the
// outputs are replaced only once both are complete on disk, so a failed run leaves no trace.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include <vksort/vksort.hpp>

#include "io/atomic_file.hpp"
#include "cli_error.hpp"
#include "cmd_sort.hpp"
#include "npy_file.hpp"
#include "option_values.hpp"
#include "pipe_input.hpp"
#include "raw_file.hpp"
#include "reference_sort.hpp"

namespace vksort::cli {

namespace fs = std::filesystem;

namespace {

std::string format_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  return buf;
}

// "GPU 1.234 ms (tile_sort 0.400 ms, merge_rounds 0.800 ms); rounds_run 3, rounds_recorded 8, tile 256"
std::string describe_stats(const SortStats& stats) {
  std::ostringstream s;
  if (stats.timed()) {
    s << "GPU " << format_ms(stats.gpu_ms);
    for (size_t i = 0; i < stats.phases_ms.size(); ++i)
      s << (i ? ", " : " (") << stats.phases_ms[i].first << " " << format_ms(stats.phases_ms[i].second)
        << (i + 1 == stats.phases_ms.size() ? ")" : "");
  } else {
    s << "GPU time n/a (no timestamps on this queue)";
  }
  for (size_t i = 0; i < stats.facts.size(); ++i)
    s << (i ? ", " : "; ") << stats.facts[i].first << " " << stats.facts[i].second;
  return s.str();
}

// True when `path` names the file this process's stdout writes to (/dev/stdout, /dev/fd/1, or the
// pipe or file stdout was redirected to).
bool is_stdout(const std::string& path) {
  struct stat out {}, st {};
  return !path.empty() && fstat(STDOUT_FILENO, &out) == 0 && stat(path.c_str(), &st) == 0 && st.st_dev == out.st_dev &&
         st.st_ino == out.st_ino;
}

}  // namespace

std::ostream& verbose_stream(const SortCommand& c) {
  return is_stdout(c.output) || is_stdout(c.values_out) ? std::cerr : std::cout;
}

int run_sort(const GlobalOptions& global, const SortCommand& c) {
  const auto wall_start = std::chrono::steady_clock::now();
  SortOptions options;
  options.key = c.type.empty() ? Key::u32 : parse_key_option(c.type);
  options.algorithm = parse_algorithm_option(c.algorithm);
  options.order = c.descending ? Order::descending : Order::ascending;
  options.brick_variant = parse_variant_option(c.variant);
  options.tuning = to_tuning(c.tuning);
  options.begin_bit = c.begin_bit;
  options.end_bit = c.end_bit;
  const bool with_values = !c.values_in.empty() || !c.values_out.empty();
  if (c.values_in.empty() != c.values_out.empty())
    throw UsageError(c.values_in.empty() ? "--values-out " + in_quotes(c.values_out) + " needs --values IN (the values to carry)"
                                         : "--values " + in_quotes(c.values_in) + " needs --values-out OUT (where the sorted values go)");
  if (!with_values && c.value_bytes != -1)
    throw UsageError("--value-bytes " + std::to_string(c.value_bytes) + " needs --values IN and --values-out OUT");
  if (with_values && io::same_destination(c.output, c.values_out))
    throw UsageError("output " + in_quotes(c.output) + " and --values-out " + in_quotes(c.values_out) + " are the same file");

  // .npy inputs say their key type and record size in their headers, which both paths below need;
  // their data stay on the disk until the path is chosen. A .npy pipe's header is read first, its data
  // below as a raw pipe's (within --memory, spooled beyond it) once the options are known to be good;
  // where keys and values are both pipes, both are read together from the start (PipeInput::read_both),
  // and their headers, as that read collects them (`collected`), are read here from its callback.
  SortFiles files;
  std::optional<NpyArray> key_npy, value_npy;
  std::optional<PipeSource> key_source, value_source;
  auto header_of = [](const std::string& path, const std::string& role, std::optional<PipeSource>& source,
                      const std::vector<std::byte>* collected) {
    if (collected) {
      size_t at = 0;
      return read_npy_pipe_header(
          [&](std::byte* buf, size_t bytes) {
            const size_t k = std::min(bytes, collected->size() - at);
            std::copy_n(collected->data() + at, k, buf);
            at += k;
            return k;
          },
          path, role);
    }
    if (!PipeInput::is_pipe(path)) return read_npy_header(path, role);
    source.emplace(path, role);
    return read_npy_pipe_header([&](std::byte* buf, size_t bytes) { return source->read_some(buf, bytes); }, path, role);
  };
  // The options the inputs' .npy headers set (key type, record size), checked against the command's.
  auto read_headers = [&](const std::vector<std::byte>* key_header, const std::vector<std::byte>* value_header) {
    if (is_npy_path(c.input)) {
      key_npy = header_of(c.input, "input", key_source, key_header);
      const NpyArray& a = *key_npy;
      if (!a.key)
        throw UsageError("input " + in_quotes(c.input) + ": dtype '" + a.descr + "' is not a key type (u4 i4 f4 u8 i8 f8" +
                         (a.structured ? "; a structured dtype's records go as --values, keyed by one of its fields" : "") + ")");
      if (!c.type.empty() && options.key != *a.key)
        throw UsageError("--type " + c.type + " contradicts input " + in_quotes(c.input) + " of dtype '" + a.descr +
                         "' (" + std::string(to_string(*a.key)) + "); leave --type out for .npy files");
      options.key = *a.key;
      files.keys_at = a.data_at;
    }
    options.value_bytes = 0;
    if (with_values && is_npy_path(c.values_in)) {
      value_npy = header_of(c.values_in, "values file", value_source, value_header);
      NpyArray& v = *value_npy;
      // An empty structured array does not say its record size; nothing moves, so any valid one does.
      if (v.item_bytes == 0) v.item_bytes = c.value_bytes != -1 ? uint32_t(c.value_bytes) : 4u;
      if (c.value_bytes != -1 && c.value_bytes != v.item_bytes)
        throw UsageError("--value-bytes " + std::to_string(c.value_bytes) + " contradicts values file " + in_quotes(c.values_in) +
                         " of dtype '" + v.descr + "' (" + std::to_string(v.item_bytes) + " bytes); leave it out for .npy files");
      if (v.item_bytes < 4 || v.item_bytes > 256 || v.item_bytes % 4)
        throw UsageError("values file " + in_quotes(c.values_in) + ": records of dtype '" + v.descr + "' hold " +
                         std::to_string(v.item_bytes) + " bytes; vksort moves records of a multiple of 4 bytes from 4 "
                         "to 256 (pad the dtype, e.g. with a field)");
      options.value_bytes = value_bytes_option(v.item_bytes);
      files.values_at = v.data_at;
      files.values_descr = v.descr;
      files.values_descr_utf8 = v.utf8_header;
    } else if (with_values) {
      options.value_bytes = value_bytes_option(c.value_bytes);
      if (options.value_bytes != 4) files.values_descr = "|V" + std::to_string(options.value_bytes);
    }
  };
  // Pipes of raw data say no size up front: read now, into memory within the host budget, beyond it
  // into a spool file that the out-of-core sort reads (pipe_input.hpp). `command` names the spool files.
  SortCommand command = c;
  std::optional<PipeInput> key_pipe, value_pipe;
  const uint64_t budget = host_budget(c);
  auto folder = [&] { return spool_folder(c); };
  const bool key_is_pipe = PipeInput::is_pipe(c.input);
  const bool values_are_pipe = with_values && PipeInput::is_pipe(c.values_in);
  // A bad output, option or device is refused before a pipe is read (and maybe spooled): an input of
  // gigabytes must not be read only to learn that --device-memory was mistyped.
  std::optional<Device> opened;
  auto check_before_reading = [&] {
    io::check_destination(c.output, "output");
    if (with_values) io::check_destination(c.values_out, "--values-out");
    opened.emplace(open_sort_device(global, c, options, "sorting " + std::string(to_string(options.key)) + " keys from " + in_quotes(c.input)));
  };
  if (key_is_pipe && values_are_pipe) {
    // Both at once (PipeInput::read_both): one program may write them in turns, headers included.
    key_source.emplace(c.input, "input");
    value_source.emplace(c.values_in, "values file");
    const PipeInput::HeaderBytes npy = npy_header_bytes;
    auto [keys, values] = PipeInput::read_both(
        *key_source, *value_source, budget, folder, is_npy_path(c.input) ? npy : nullptr, is_npy_path(c.values_in) ? npy : nullptr,
        [&](const std::vector<std::byte>& key_header, const std::vector<std::byte>& value_header) {
          read_headers(&key_header, &value_header);
          check_before_reading();
        });
    key_pipe.emplace(std::move(keys));
    value_pipe.emplace(std::move(values));
  } else {
    read_headers(nullptr, nullptr);
    if (key_is_pipe || values_are_pipe) check_before_reading();
  }
  const uint32_t kb = key_bytes(options.key);
  auto check_key_bytes = [&](uint64_t bytes) {
    if (bytes % kb != 0)
      throw UsageError("input " + in_quotes(c.input) + " holds " + std::to_string(bytes) + " bytes, not a multiple of " +
                       std::to_string(kb) + " (the size of one " + std::string(to_string(options.key)) + " key)");
  };
  const uint32_t vb = options.value_bytes;
  // Values as raw records of vb bytes (a 32-bit value is a record of 4), one per key.
  auto check_value_bytes = [&](uint64_t bytes, uint64_t n) {
    if (bytes == n * vb) return;
    const std::string unit = vb == 4 ? "32-bit value" : std::to_string(vb).append("-byte record");
    std::string held = bytes % vb ? std::string("not a whole number of ").append(unit).append("s")
                       : std::to_string(bytes / vb).append(vb == 4 ? " values" : " " + unit + "s");
    std::string message = "values file " + in_quotes(c.values_in) + " holds " + std::to_string(bytes) + " bytes (";
    message.append(held).append(") but input ").append(in_quotes(c.input)).append(" holds ").append(std::to_string(n));
    message.append(" keys: one ").append(unit).append(" per key is needed");
    throw UsageError(message);
  };
  // A pipe's data, raw or past a .npy header read above (then checked against it, and starting at 0).
  auto read_pipe = [&](std::optional<PipeSource>& source, const std::optional<NpyArray>& npy, const std::string& path,
                       const std::string& role, uint64_t budget_left, uint64_t& data_at) {
    PipeInput pipe = source ? PipeInput::read(*source, budget_left, folder) : PipeInput::read(path, role, budget_left, folder);
    if (npy) check_npy_data(*npy, pipe.size(), path, role);
    data_at = 0;
    return pipe;
  };
  // An input's data bytes where known before either is read: a pipe's, or a regular file's past its header.
  auto data_bytes = [](const std::optional<PipeInput>& pipe, const std::string& path, uint64_t at) -> std::optional<uint64_t> {
    if (pipe) return pipe->size();
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || uint64_t(st.st_size) < at) return std::nullopt;
    return uint64_t(st.st_size) - at;
  };
  if (key_is_pipe && values_are_pipe) {
    // (Read above.)
    if (key_npy) check_npy_data(*key_npy, key_pipe->size(), c.input, "input");
    if (value_npy) check_npy_data(*value_npy, value_pipe->size(), c.values_in, "values file");
    files.keys_at = files.values_at = 0;
    check_key_bytes(key_pipe->size());
  } else if (key_is_pipe) {
    key_pipe = read_pipe(key_source, key_npy, c.input, "input", budget, files.keys_at);
    check_key_bytes(key_pipe->size());
  } else if (values_are_pipe) {
    const uint64_t key_data = data_bytes(key_pipe, c.input, files.keys_at).value_or(0);
    value_pipe = read_pipe(value_source, value_npy, c.values_in, "values file", budget - std::min(budget, key_data), files.values_at);
  }
  // Compared here, where the pipes still have the names the user gave: the out-of-core sort would
  // name them by their spool files (/proc/self/fd/N).
  if (with_values && (key_pipe || value_pipe)) {
    const auto key_data = data_bytes(key_pipe, c.input, files.keys_at);
    const auto value_data = data_bytes(value_pipe, c.values_in, files.values_at);
    if (key_data && value_data && *key_data % kb == 0) check_value_bytes(*value_data, *key_data / kb);
  }
  auto in_memory = [](const std::optional<PipeInput>& p) {
    return p && !p->spooled() ? std::optional<uint64_t>(p->size()) : std::nullopt;
  };
  files.keys_in_memory = in_memory(key_pipe);
  files.values_in_memory = in_memory(value_pipe);
  const std::pair<std::optional<PipeInput>*, std::string*> pipes[] = {{&key_pipe, &command.input},
                                                                      {&value_pipe, &command.values_in}};
  for (auto [pipe, path] : pipes)
    if (*pipe && (*pipe)->spooled()) *path = (*pipe)->path();
  // Inputs beyond the device or the host budget go out of core (cmd_sort_external.cpp), pipes from
  // their spool files.
  if (sort_out_of_core(global, command, options, files, opened)) {
    for (auto [pipe, path] : pipes) {
      if (!*pipe) continue;
      (*pipe)->spool(folder());  // a pipe held in memory, where the other input or the device decided
      *path = (*pipe)->path();
    }
    files.keys_in_memory = files.values_in_memory = std::nullopt;
    return run_sort_external(command, options, files, *opened);
  }

  std::ostream& verbose = verbose_stream(c);  // before the outputs replace what stdout names
  // Creating the temporary outputs first proves their folders exist and are writable before any
  // reading or GPU work; their destructors remove them again if anything below fails.
  io::AtomicFile key_out(c.output, "output");
  std::optional<io::AtomicFile> value_out;
  if (with_values) value_out.emplace(c.values_out, "--values-out");

  // The data: of a pipe, read above; of a .npy file past its header (read again, whole, and checked
  // again: it may have changed).
  auto data_of = [](std::optional<NpyArray>& npy, std::optional<PipeInput>& pipe, const std::string& path,
                    const std::string& role) {
    if (pipe) return std::move(pipe->bytes());  // read above, within the budget
    if (!npy) return read_whole_file(path, role);
    NpyArray whole = read_npy(path, role);
    if (whole.descr != npy->descr || whole.n != npy->n)
      throw RuntimeFailure(role + " " + in_quotes(path) + " changed while it was being read");
    return std::move(whole.data);
  };
  std::vector<std::byte> keys = data_of(key_npy, key_pipe, c.input, "input");
  check_key_bytes(keys.size());
  const uint64_t n = keys.size() / kb;
  std::vector<std::byte> values;
  if (with_values) {
    values = data_of(value_npy, value_pipe, c.values_in, "values file");
    check_value_bytes(values.size(), n);
  }
  // The reference needs the unsorted input; keep it only when asked to compare.
  std::vector<std::byte> expected_keys, expected_values;
  if (c.check) expected_keys = keys, expected_values = values;

  Device device = opened ? *opened : open_device(global);
  const std::string what = "sorting " + std::to_string(n) + " " + std::string(to_string(options.key)) + " keys from " + in_quotes(c.input);
  Sorter sorter = refusals_are_usage_errors(what, [&] { return Sorter(device, options); });
  SortStats stats;
  if (n > 0) {
    auto allocate = [&](size_t bytes, const std::string& purpose) {
      try {
        return Buffer(device, bytes, purpose);
      } catch (const vksort::Error& e) {
        if (is_out_of_memory(e) || is_refusal(e))
          throw UsageError(what + ": the device cannot hold them: " + e.what());
        throw;
      }
    };
    Buffer key_buffer = allocate(keys.size(), "keys");
    std::optional<Buffer> value_buffer;
    if (with_values) value_buffer.emplace(allocate(values.size(), "values"));
    key_buffer.upload(keys);
    if (value_buffer) value_buffer->upload(values);
    // The sort's scratch is allocated here too: where it does not fit, the input is as much too large
    // for the device as where the keys do not (exit 2 either way, not 1 for this one).
    try {
      stats = refusals_are_usage_errors(what, [&] { return sorter.sort(key_buffer, value_buffer ? &*value_buffer : nullptr, n); });
    } catch (const vksort::Error& e) {
      if (is_out_of_memory(e)) throw UsageError(what + ": the device cannot hold them: " + e.what());
      throw;
    }
    key_buffer.download(keys);
    if (value_buffer) value_buffer->download(values);
  }

  // A wrong result must never replace the user's file. Sortedness costs one pass, so it is always
  // checked; --check also compares with the CPU reference (the permutation and the values).
  if (!workloads::is_sorted_encoded(options.key, options.order, keys, options.begin_bit, options.end_bit))
    throw RuntimeFailure(what + ": the GPU result is not sorted (outputs left untouched); please report this");
  if (c.check) {
    // The reference sorts (key, original index) and moves the records by the index, as the GPU does.
    std::vector<uint32_t> order(with_values ? n : 0);
    for (uint64_t i = 0; i < order.size(); ++i) order[i] = uint32_t(i);
    workloads::reference_sort(options.key, options.order, expected_keys, order, options.begin_bit, options.end_bit);
    std::string diff = workloads::first_difference(options.key, expected_keys, keys);
    for (uint64_t i = 0; diff.empty() && i < order.size(); ++i)
      if (std::memcmp(&expected_values[uint64_t(order[i]) * vb], &values[i * vb], vb) != 0)
        diff = "value " + std::to_string(i) + " is not input value " + std::to_string(order[i]);
    if (!diff.empty())
      throw RuntimeFailure(what + ": the GPU result differs from the CPU reference (outputs left untouched): " + diff);
  }

  // A .npy output (by its name) gets the header of a 1-D array of the keys' (values') dtype.
  if (is_npy_path(c.output)) key_out.write(npy_header(npy_descr(options.key), n));
  key_out.write(keys);
  if (value_out && is_npy_path(c.values_out)) value_out->write(npy_header(files.values_descr, n, files.values_descr_utf8));
  if (value_out) value_out->write(values);
  // Both complete on the disk before either replaces its destination, and before either gets a name
  // a SIGKILL would leave behind.
  if (value_out) io::AtomicFile::commit_all({&key_out, &*value_out});
  else key_out.commit();

  if (c.verbose) {
    const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start).count();
    const std::string algo = algorithm_label(sorter.algorithm(), options.brick_variant);
    std::string carried = !with_values ? "" : vb == 4 ? " with values" : " with records of ";
    if (with_values && vb != 4) carried.append(std::to_string(vb)).append(" bytes");
    verbose << "sorted " << n << " " << to_string(options.key) << " keys" << carried << " "
              << to_string(options.order) << " with " << algo << " on " << device.info().name << ": "
              << (n > 0 ? describe_stats(stats) : "nothing to sort") << "; wall " << format_ms(wall_ms) << '\n';
  }
  return exit_ok;
}

}  // namespace vksort::cli
