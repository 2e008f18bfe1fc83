// SPDX-License-Identifier: MIT
// bench_external — the out-of-core sort end to end on a file several times the (pretend) device memory,
// beside the two things that bound it on the same machine and data: copying the file (read + write,
// the I/O ceiling) and std::sort of the same keys in memory.
//
//   bench_external [--n KEYS] [--type u32|u64] [--values] [--device-memory BYTES] [--memory BYTES]
//                  [--dir DIR] [--repeat R] [--overlap -1|0|1] [--json FILE]
//
// The file is written once (random keys), then each measurement runs R times and the fastest is kept.
// Files go through the page cache: on a machine with free RAM, "read" and "write" are memory copies and
// the I/O ceiling is that of the cache, not of the disk (dropping caches needs root and a quiet machine).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <vksort/external.hpp>
#include <vksort/vksort.hpp>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "bench_external: %s\n", why.c_str());
  std::exit(2);
}

void write_all(int fd, const char* p, size_t n) {
  while (n) {
    const ssize_t w = ::write(fd, p, n);
    if (w <= 0) die(std::string("write: ") + std::strerror(errno));
    p += w;
    n -= size_t(w);
  }
}

// read(2) + write(2) in 16 MiB blocks, fsync at the end: what cp does, and what the sort must at least do
// once (it reads and writes the data twice: runs, then the merge).
double timed_copy(const fs::path& from, const fs::path& to) {
  const auto t = Clock::now();
  const int in = ::open(from.c_str(), O_RDONLY), out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0) die("cannot open " + from.string() + " or " + to.string());
  std::vector<char> buf(16u << 20);
  for (ssize_t r; (r = ::read(in, buf.data(), buf.size())) > 0;) write_all(out, buf.data(), size_t(r));
  fsync(out);
  ::close(in);
  ::close(out);
  return since(t);
}

uint64_t parse_bytes(const char* s) {
  char* end = nullptr;
  double v = std::strtod(s, &end);
  switch (*end) {
    case 'k': case 'K': v *= 1024; break;
    case 'm': case 'M': v *= 1024 * 1024; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; break;
    default: break;
  }
  return uint64_t(v);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t n = 16u << 20, device_memory = 16u << 20, memory = 64u << 20;
  std::string type = "u32", dir = fs::temp_directory_path().string(), json;
  bool values = false;
  int repeat = 3, overlap = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--n") n = parse_bytes(next());
    else if (a == "--type") type = next();
    else if (a == "--values") values = true;
    else if (a == "--device-memory") device_memory = parse_bytes(next());
    else if (a == "--memory") memory = parse_bytes(next());
    else if (a == "--dir") dir = next();
    else if (a == "--repeat") repeat = std::max(1, std::atoi(next()));
    else if (a == "--json") json = next();
    else if (a == "--overlap") overlap = std::atoi(next());
    else die("unknown option " + a);
  }
  if (type != "u32" && type != "u64") die("--type is u32 or u64");
  const vksort::Key key = type == "u32" ? vksort::Key::u32 : vksort::Key::u64;
  const uint32_t kb = vksort::key_bytes(key), vb = values ? 4 : 0;
  const fs::path folder = fs::path(dir) / ("vksort-bench-external-" + std::to_string(getpid()));
  fs::create_directories(folder);
  const fs::path in = folder / "in.bin", vin = folder / "values.bin";

  // Random keys (and values 0..n-1), written once.
  std::vector<std::byte> keys(n * kb);
  {
    std::mt19937_64 rng(1);
    for (size_t i = 0; i < keys.size(); i += 8) {
      const uint64_t r = rng();
      std::memcpy(&keys[i], &r, std::min<size_t>(8, keys.size() - i));
    }
    std::ofstream(in, std::ios::binary).write(reinterpret_cast<const char*>(keys.data()), std::streamsize(keys.size()));
    if (values) {
      std::vector<uint32_t> v(n);
      for (uint64_t i = 0; i < n; ++i) v[i] = uint32_t(i);
      std::ofstream(vin, std::ios::binary).write(reinterpret_cast<const char*>(v.data()), std::streamsize(n * 4));
    }
  }
  const double bytes = double(n) * (kb + vb);

  double copy_s = 1e30, std_sort_s = 1e30;
  for (int r = 0; r < repeat; ++r) {
    double c = timed_copy(in, folder / "copy.bin");
    if (values) c += timed_copy(vin, folder / "copy_values.bin");
    copy_s = std::min(copy_s, c);
    fs::remove(folder / "copy.bin");
    fs::remove(folder / "copy_values.bin");
  }
  for (int r = 0; r < repeat; ++r) {
    // Unsigned keys: their numeric order is the sort order. With values, pairs move together. Only
    // the sort is timed, not the copy into the vector.
    if (key == vksort::Key::u32 && !values) {
      std::vector<uint32_t> k(n);
      std::memcpy(k.data(), keys.data(), keys.size());
      const auto t2 = Clock::now();
      std::sort(k.begin(), k.end());
      std_sort_s = std::min(std_sort_s, since(t2));
    } else if (key == vksort::Key::u64 && !values) {
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
  dopt.pretend.device_memory = device_memory;
  vksort::Device device(dopt);
  vksort::external::ExternalOptions o;
  o.input = in;
  o.output = folder / "out.bin";
  if (values) {
    o.values_input = vin;
    o.values_output = folder / "values_out.bin";
  }
  o.sort.key = key;
  o.sort.value_bytes = vb;
  o.memory_bytes = memory;
  o.temp_dir = folder;
  o.overlap = overlap;
  vksort::external::ExternalStats best;
  best.total_s = 1e30;
  for (int r = 0; r < repeat; ++r) {
    const auto s = vksort::external::sort_file(device, o);
    if (s.total_s < best.total_s) best = s;
  }
  fs::remove_all(folder);

  const double gb = bytes / 1e9;
  std::printf("device: %s, pretend device memory %.0f MiB, host budget %.0f MiB\n", device.info().name.c_str(),
              double(device_memory) / (1 << 20), double(memory) / (1 << 20));
  std::printf("input: %llu %s keys%s = %.1f MiB (%.1fx the device memory), %llu runs of up to %llu keys, %llu merge pass(es), "
              "uploads %s\n",
              (unsigned long long)n, type.c_str(), values ? " + u32 values" : "", bytes / (1 << 20),
              bytes / double(device_memory), (unsigned long long)best.runs, (unsigned long long)best.run_keys,
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
  if (!json.empty()) {
    std::ofstream j(json);
    j << "{\n  \"device\": \"" << device.info().name << "\",\n  \"n\": " << n << ",\n  \"type\": \"" << type
      << "\",\n  \"values\": " << (values ? "true" : "false") << ",\n  \"bytes\": " << uint64_t(bytes)
      << ",\n  \"pretend_device_memory\": " << device_memory << ",\n  \"memory\": " << memory
      << ",\n  \"overlapped\": " << (best.overlapped ? "true" : "false") << ",\n  \"runs\": " << best.runs << ",\n  \"run_keys\": " << best.run_keys << ",\n  \"merge_passes\": " << best.merge_passes
      << ",\n  \"seconds\": {\"total\": " << best.total_s << ", \"read\": " << best.read_s << ", \"upload\": " << best.upload_s
      << ", \"sort\": " << best.sort_s << ", \"download\": " << best.download_s << ", \"write\": " << best.write_s
      << ", \"merge\": " << best.merge_s << ", \"file_copy\": " << copy_s << ", \"std_sort\": " << std_sort_s << "},\n  \"repeat\": "
      << repeat << "\n}\n";
  }
  return 0;
}
