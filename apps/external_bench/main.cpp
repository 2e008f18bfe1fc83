// SPDX-License-Identifier: MIT
// bench_external — the out-of-core sort end to end on a file several times the (pretend) device memory,
// beside the two things that bound it on the same machine and data: copying the file (read + write,
// the I/O ceiling) and std::sort of the same keys in memory.
//
//   bench_external [--n KEYS] [--type u32|u64] [--values] [--device-memory BYTES] [--memory BYTES]
//                  [--dir DIR] [--repeat R] [--overlap -1|0|1] [--json FILE]
//
// KEYS and BYTES as the vksort CLI reads counts (1000, 64k, 1M, 2^20, 1e6). The file is written once
// (random keys) into a work folder DIR/vksort-bench-external-PID, removed at the end whatever happens
// (SIGINT, SIGTERM and SIGHUP included; a SIGKILLed run's folder the next run in DIR removes, once its
// process is gone), then each measurement runs R times and the fastest is kept; every sorted output is
// checked (in order, and the input's keys: exactly, by the values, with --values). Files go through the
// page cache: on a machine with free RAM, "read" and "write" are memory copies and the I/O ceiling is
// that of the cache, not of the disk (dropping caches needs root and a quiet machine).
// Exit status: 0, 2 for bad input (options, --dir, --json, what the library refuses), 1 for a failure.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <vksort/external.hpp>
#include <vksort/vksort.hpp>

#include "cli_checks.hpp"
#include "counts.hpp"
#include "io/atomic_file.hpp"
#include "io/format_bytes.hpp"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr uint64_t kMaxKeys = uint64_t(1) << 40;  // 8 TiB of u64 keys: beyond any host's memory for std::sort

// Bad input found after parsing (--dir): exit 2.
struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::runtime_error io_error(const std::string& what, const fs::path& file) {
  return std::runtime_error(what + " " + file.string() + ": " + std::strerror(errno));
}

// A file descriptor closed on every way out.
struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

void write_all(int fd, const char* p, size_t n, const fs::path& file) {
  while (n) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw io_error("cannot write", file);
    p += w;
    n -= size_t(w);
  }
}

void write_file(const fs::path& file, const void* data, size_t bytes) {
  const Fd out(::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (out.fd < 0) throw io_error("cannot create", file);
  write_all(out.fd, static_cast<const char*>(data), bytes, file);
}

// read(2) + write(2) in 16 MiB blocks, fsync at the end: what cp does, and what the sort must at least do
// once (it reads and writes the data twice: runs, then the merge).
double timed_copy(const fs::path& from, const fs::path& to) {
  const auto t = Clock::now();
  const Fd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.fd < 0) throw io_error("cannot open", from);
  const Fd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (out.fd < 0) throw io_error("cannot create", to);
  std::vector<char> buf(16u << 20);
  ssize_t r;
  while ((r = ::read(in.fd, buf.data(), buf.size())) != 0) {
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw io_error("cannot read", from);
    write_all(out.fd, buf.data(), size_t(r), to);
  }
  if (::fsync(out.fd) != 0) throw io_error("cannot sync", to);
  return since(t);
}

constexpr std::string_view work_prefix = "vksort-bench-external-";

// Removes the work folders in `dir` that earlier runs left behind when a signal ended them (SIGKILL
// runs no destructor): DIR/vksort-bench-external-PID whose process no longer exists. A folder whose
// PID is alive (a run in progress, or a reused PID) stays.
void remove_abandoned_work_folders(const fs::path& dir) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    // PID_MAX_LIMIT is 2^22 (7 digits): 1 to 9 digits, so that std::stol cannot overflow.
    if (!name.starts_with(work_prefix) || name.size() == work_prefix.size() || name.size() > work_prefix.size() + 9) continue;
    const std::string digits = name.substr(work_prefix.size());
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    const pid_t pid = pid_t(std::stol(digits));
    std::error_code is_dir_ec;
    if (pid <= 0 || !entry.is_directory(is_dir_ec) || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::error_code remove_ec;
    fs::remove_all(entry.path(), remove_ec);
    const std::string why = remove_ec ? ": " + remove_ec.message() : "";
    std::fprintf(stderr, "bench_external: %s %s, left by a run that a signal ended%s\n", remove_ec ? "could not remove" : "removed",
                 entry.path().c_str(), why.c_str());
  }
}

// The live work folder, for the signal thread below; empty when there is none.
std::mutex work_mutex;
fs::path work_path;

// SIGINT, SIGTERM and SIGHUP remove the work folder (a whole copy of the input) before the process dies
// of the signal. remove_all cannot run in a signal handler, so the signals are blocked in every thread
// (set here, before any thread starts: the library's inherit the mask) and one thread waits for them,
// removes the folder and raises the signal again, now unblocked in that thread alone: the CLI's handlers
// (io::install_cleanup_on_signals: the --json temporary) then end the process as the signal would.
void remove_work_folder_on_signals() {
  vksort::io::install_cleanup_on_signals();
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set] {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) return;
    {
      std::lock_guard lock(work_mutex);  // held to the end: the main thread makes no new work folder
      std::error_code ec;
      if (!work_path.empty()) fs::remove_all(work_path, ec);
      sigset_t one;
      sigemptyset(&one);
      sigaddset(&one, sig);
      pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
      ::raise(sig);
    }
    std::_Exit(128 + sig);  // a handler that returned (none does): still end as the signal asked
  }).detach();
}

// The benchmark's files, in a folder of their own that goes away with this object: on success, on a
// library error, on a failed write alike (in.bin alone is --n x key bytes), and on a signal (above).
class WorkFolder {
 public:
  explicit WorkFolder(const fs::path& dir) : path_(dir / (std::string(work_prefix) + std::to_string(::getpid()))) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw BadInput("--dir " + dir.string() + ": no such folder");
    remove_abandoned_work_folders(dir);
    std::lock_guard lock(work_mutex);
    if (!fs::create_directory(path_, ec) || ec)
      throw BadInput("--dir " + dir.string() + ": cannot create a folder there" + (ec ? ": " + ec.message() : std::string(" (it exists)")));
    work_path = path_;
  }
  ~WorkFolder() {
    std::lock_guard lock(work_mutex);
    std::error_code ec;
    fs::remove_all(path_, ec);
    work_path.clear();
  }
  WorkFolder(const WorkFolder&) = delete;
  WorkFolder& operator=(const WorkFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct Options {
  uint64_t n = 16u << 20, device_memory = 16u << 20, memory = 64u << 20;
  std::string type = "u32", dir, json;  // dir: empty for the temporary folder (TMPDIR, else /tmp)
  bool values = false;
  int repeat = 3, overlap = -1;
};

std::vector<std::byte> read_file(const fs::path& file, size_t bytes) {
  const Fd in(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.fd < 0) throw io_error("cannot open", file);
  std::vector<std::byte> data(bytes);
  size_t done = 0;
  while (done < bytes) {
    const ssize_t r = ::read(in.fd, data.data() + done, bytes - done);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw io_error("cannot read", file);
    if (r == 0) throw std::runtime_error("sorted output " + file.string() + " holds " + std::to_string(done) + " bytes, not " +
                                         std::to_string(bytes) + " (a wrong result; please report this)");
    done += size_t(r);
  }
  return data;
}

uint64_t key_at(const std::vector<std::byte>& keys, uint64_t i, uint32_t kb) {
  uint64_t k = 0;
  std::memcpy(&k, &keys[i * kb], kb);
  return k;
}

// splitmix64's finaliser: a sum of it over the keys is the same for every order of the same keys, and
// differs for other keys but with negligible probability.
uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A timing of a wrong result would be worthless: the sorted keys must be in order and be the input's
// keys. With values (the input indices 0..n-1) that is exact and includes stability: every index once,
// the key at it, and equal keys in index order; without, a sum of a hash of every key. Throws naming
// the first fault.
void check_sorted(const vksort::external::ExternalOptions& eo, const std::vector<std::byte>& in, uint64_t n, uint32_t kb) {
  const std::vector<std::byte> out = read_file(eo.output, n * kb);
  const std::string wrong = "bench_external: the out-of-core sort's output is wrong (please report this): ";
  std::vector<uint32_t> values(eo.values_output.empty() ? 0 : n);
  if (!values.empty()) {
    const std::vector<std::byte> v = read_file(eo.values_output, n * 4);
    std::memcpy(values.data(), v.data(), v.size());
  }
  std::vector<bool> seen(values.size());
  uint64_t in_sum = 0, out_sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t k = key_at(out, i, kb);
    in_sum += mix(key_at(in, i, kb));
    out_sum += mix(k);
    if (i > 0 && k < key_at(out, i - 1, kb)) throw std::runtime_error(wrong + "key " + std::to_string(i) + " is smaller than the one before");
    if (values.empty()) continue;
    const uint32_t v = values[i];
    if (v >= n || seen[v] || key_at(in, v, kb) != k)
      throw std::runtime_error(wrong + "value " + std::to_string(i) + " (" + std::to_string(v) + ") is no unused input index of its key");
    if (i > 0 && k == key_at(out, i - 1, kb) && v < values[i - 1])
      throw std::runtime_error(wrong + "equal keys at " + std::to_string(i) + " lost their input order");
    seen[v] = true;
  }
  if (in_sum != out_sum) throw std::runtime_error(wrong + "its keys are not the input's");
}

// --n, --device-memory, --memory: a count as the vksort CLI reads them, at least 1.
CLI::Validator count_at_least_one(uint64_t max) {
  return CLI::Validator(
      [max](std::string& v) {
        const auto c = vksort::cli::parse_count(v);
        if (!c) return v + " is not a count (" + vksort::cli::count_examples + ")";
        if (*c < 1) return v + " is not at least 1";
        if (*c > max) return v + " is more than " + std::to_string(max);
        v = std::to_string(*c);
        return std::string();
      },
      "COUNT", "a count");
}

int run(const Options& o) {
  const vksort::Key key = o.type == "u32" ? vksort::Key::u32 : vksort::Key::u64;
  const uint64_t n = o.n;
  const uint32_t kb = vksort::key_bytes(key), vb = o.values ? 4 : 0;
  std::error_code ec;
  const fs::path dir = o.dir.empty() ? vksort::io::temp_folder(ec) : fs::path(o.dir);  // an empty $TMPDIR as unset
  if (ec) throw BadInput("no temporary folder (TMPDIR: " + ec.message() + "): give --dir");
  const WorkFolder work(dir);
  const fs::path& folder = work.path();
  const fs::path in = folder / "in.bin", vin = folder / "values.bin";

  // Random keys (and values 0..n-1), written once.
  std::vector<std::byte> keys(n * kb);
  {
    std::mt19937_64 rng(1);
    for (size_t i = 0; i < keys.size(); i += 8) {
      const uint64_t r = rng();
      std::memcpy(&keys[i], &r, std::min<size_t>(8, keys.size() - i));
    }
    write_file(in, keys.data(), keys.size());
    if (o.values) {
      std::vector<uint32_t> v(n);
      for (uint64_t i = 0; i < n; ++i) v[i] = uint32_t(i);
      write_file(vin, v.data(), n * 4);
    }
  }
  const double bytes = double(n) * (kb + vb);

  double copy_s = 1e30, std_sort_s = 1e30;
  for (int r = 0; r < o.repeat; ++r) {
    double c = timed_copy(in, folder / "copy.bin");
    if (o.values) c += timed_copy(vin, folder / "copy_values.bin");
    copy_s = std::min(copy_s, c);
    fs::remove(folder / "copy.bin");
    fs::remove(folder / "copy_values.bin");
  }
  for (int r = 0; r < o.repeat; ++r) {
    // Unsigned keys: their numeric order is the sort order. With values, pairs move together. Only
    // the sort is timed, not the copy into the vector.
    if (key == vksort::Key::u32 && !o.values) {
      std::vector<uint32_t> k(n);
      std::memcpy(k.data(), keys.data(), keys.size());
      const auto t2 = Clock::now();
      std::sort(k.begin(), k.end());
      std_sort_s = std::min(std_sort_s, since(t2));
    } else if (key == vksort::Key::u64 && !o.values) {
      std::vector<uint64_t> k(n);
      std::memcpy(k.data(), keys.data(), keys.size());
      const auto t2 = Clock::now();
      std::sort(k.begin(), k.end());
      std_sort_s = std::min(std_sort_s, since(t2));
    } else {
      std::vector<std::pair<uint64_t, uint32_t>> p(n);
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t k = 0;
        std::memcpy(&k, &keys[i * kb], kb);
        p[i] = {k, uint32_t(i)};
      }
      const auto t2 = Clock::now();
      std::sort(p.begin(), p.end());
      std_sort_s = std::min(std_sort_s, since(t2));
    }
  }

  vksort::DeviceOptions dopt;
  dopt.pretend.device_memory = o.device_memory;
  vksort::Device device(dopt);
  vksort::external::ExternalOptions eo;
  eo.input = in;
  eo.output = folder / "out.bin";
  if (o.values) {
    eo.values_input = vin;
    eo.values_output = folder / "values_out.bin";
  }
  eo.sort.key = key;
  eo.sort.value_bytes = vb;
  eo.memory_bytes = o.memory;
  eo.temp_dir = folder;
  eo.overlap = o.overlap;
  vksort::external::ExternalStats best;
  best.total_s = 1e30;
  for (int r = 0; r < o.repeat; ++r) {
    const auto s = vksort::external::sort_file(device, eo);
    check_sorted(eo, keys, n, kb);
    if (s.total_s < best.total_s) best = s;
  }

  const double gb = bytes / 1e9;
  using vksort::io::format_bytes;
  std::printf("device: %s, pretend device memory %s, host budget %s\n", device.info().name.c_str(),
              format_bytes(o.device_memory).c_str(), format_bytes(o.memory).c_str());
  std::printf("input: %llu %s keys%s = %s (%.1fx the device memory), %llu runs of up to %llu keys, %llu merge pass(es), "
              "uploads %s\n",
              (unsigned long long)n, o.type.c_str(), o.values ? " + u32 values" : "", format_bytes(uint64_t(bytes)).c_str(),
              bytes / double(o.device_memory), (unsigned long long)best.runs, (unsigned long long)best.run_keys,
              (unsigned long long)best.merge_passes, best.overlapped ? "overlapped with sorts (two device sets)" : "not overlapped");
  std::printf("| what | seconds | GB/s of input |\n|---|---:|---:|\n");
  auto row = [&](const char* what, double s) { std::printf("| %s | %.3f | %.3f |\n", what, s, s > 0 ? gb / s : 0.0); };
  row("out-of-core sort, end to end", best.total_s);
  row("  read runs (reader thread, overlapped)", best.read_s);
  row(best.overlapped ? "  upload (second thread, overlapped)" : "  upload", best.upload_s);
  row("  GPU sort", best.sort_s);
  row("  download", best.download_s);
  row("  write runs + output commit", best.write_s);
  row("  merge (read runs, merge, write output)", best.merge_s);
  row("file copy, read + write (I/O ceiling)", copy_s);
  row("std::sort in memory (no I/O)", std_sort_s);
  if (!o.json.empty()) {
    const nlohmann::json doc = {
        {"device", device.info().name}, {"n", n}, {"type", o.type}, {"values", o.values}, {"bytes", uint64_t(bytes)},
        {"pretend_device_memory", o.device_memory}, {"memory", o.memory}, {"overlapped", best.overlapped},
        {"runs", best.runs}, {"run_keys", best.run_keys}, {"merge_passes", best.merge_passes},
        {"seconds", {{"total", best.total_s}, {"read", best.read_s}, {"upload", best.upload_s}, {"sort", best.sort_s},
                     {"download", best.download_s}, {"write", best.write_s}, {"merge", best.merge_s},
                     {"file_copy", copy_s}, {"std_sort", std_sort_s}}},
        {"repeat", o.repeat}};
    vksort::io::write_file(o.json, "--json", doc.dump(2) + "\n");  // whole or not at all
  }
  return 0;
}

int fail(int code, const std::string& why) {
  std::fprintf(stderr, "bench_external: %s\n", why.c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  // CLI11 with the apps' count syntax: "abc" meant 0, "1q" meant 1, "-5" ended in std::length_error.
  CLI::App app{"bench_external: the out-of-core sort beside a file copy and std::sort in memory"};
  app.add_option("--n", o.n, "keys")->transform(count_at_least_one(kMaxKeys));
  app.add_option("--type", o.type, "key type")->check(CLI::IsMember({"u32", "u64"}));
  app.add_flag("--values", o.values, "with u32 values");
  app.add_option("--device-memory", o.device_memory, "pretend device memory, bytes")->transform(count_at_least_one(uint64_t(1) << 62));
  app.add_option("--memory", o.memory, "host memory budget, bytes")->transform(count_at_least_one(uint64_t(1) << 62));
  app.add_option("--dir", o.dir, "folder for the work folder (default: the temporary folder)");
  app.add_option("--repeat", o.repeat, "repetitions, the fastest kept")->check(CLI::Range(1, 1000000));
  app.add_option("--overlap", o.overlap, "-1 (device's choice), 0 (off) or 1 (on)")->check(CLI::IsMember({-1, 0, 1}));
  app.add_option("--json", o.json, "also write the results as JSON to FILE");
  if (const std::string empty = vksort::cli_checks::empty_value_option(argc, argv); !empty.empty())
    return fail(2, empty);
  vksort::cli_checks::decimal_integer_options(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help: 0; bad input: 2, as the other apps
  }
  if (const std::string empty = vksort::cli_checks::empty_value_given(app); !empty.empty()) return fail(2, empty);
  remove_work_folder_on_signals();
  try {
    if (!o.json.empty()) vksort::io::check_destination(o.json, "--json");  // before the benchmark, not after it
    return run(o);
  } catch (const BadInput& e) {
    return fail(2, e.what());
  } catch (const vksort::external::InputError& e) {
    return fail(2, e.what());
  } catch (const vksort::io::FileError& e) {
    return fail(e.kind() == vksort::io::FileError::Kind::destination ? 2 : 1, e.what());
  } catch (const std::bad_alloc&) {
    return fail(1, "out of host memory (--n " + std::to_string(o.n) + ")");
  } catch (const std::exception& e) {
    return fail(1, e.what());
  }
}
