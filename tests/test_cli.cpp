// SPDX-License-Identifier: MIT
// test_cli.cpp — the vksort command-line tool, run as a user runs it: a separate process per command
// (posix_spawn, no shell), in a fresh folder per test. Sorted files are compared byte for byte with the
// CPU reference sort of the same input; failures must exit 2 with one "vksort: " line that names the
// problem, and must leave the output files exactly as they were (absent, or with their old contents).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <pty.h>
#include <spawn.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "distributions.hpp"
#include "reference_sort.hpp"
#include "support/test_device.hpp"
#include "support/npy_test_file.hpp"
#include "vksort/vksort.hpp"

#ifndef VKSORT_CLI
#error "VKSORT_CLI must name the vksort executable"
#endif

extern char** environ;

namespace fs = std::filesystem;
using namespace vksort;

namespace {

constexpr Key kKeys[] = {Key::u32, Key::i32, Key::f32, Key::u64, Key::i64, Key::f64};

struct Run {
  int code = -1;  // exit status, or -1 when a signal ended the process
  std::string out;
  std::string err;
  int signal = 0;  // the signal that ended it, or 0
};

// What a run may meet: a file size limit (a full disk, as far as the process can tell), with SIGXFSZ
// ignored when vksort starts or at its default (which kills; vksort ignores it itself, so writes fail
// with EFBIG either way), or SIGKILL after a delay.
struct Hazards {
  uint64_t file_size_limit = 0;  // bytes; 0: none
  bool ignore_sigxfsz = false;
  int kill_after_ms = -1;
  std::string stdout_to;  // a file for stdout instead of the captured one (Run::out is then empty), e.g. /dev/full
};

std::vector<std::byte> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << p);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  if (!chars.empty()) std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

std::string read_text(const fs::path& p) {
  const auto b = read_bytes(p);
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

void write_bytes(const fs::path& p, std::span<const std::byte> data) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  REQUIRE_MESSAGE(out.good(), "cannot write " << p);
}

void write_text(const fs::path& p, const std::string& text) {
  write_bytes(p, std::as_bytes(std::span(text.data(), text.size())));
}

// A fresh folder per test: `work` holds the command's files, captured output lives beside it so that
// listing `work` shows exactly what the command created.
class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "vksort-cli-XXXXXX").string();
    REQUIRE(mkdtemp(templ.data()) != nullptr);
    root_ = templ;
    fs::create_directory(work());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  fs::path work() const { return root_ / "work"; }
  std::string operator/(const std::string& name) const { return (work() / name).string(); }

  // Runs vksort with `args` (no shell: every argument arrives as given) and extra NAME=VALUE
  // environment entries; returns the exit code and what it printed.
  // With `stderr_terminal`, stderr is a pseudo-terminal (as when a person watches) and Run::err holds
  // what was written to it.
  Run run(const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {},
          bool stderr_terminal = false, const Hazards& hazards = {}) const {
    const std::string out_path = (root_ / "stdout").string(), err_path = (root_ / "stderr").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (!hazards.stdout_to.empty()) std::ofstream(out_path, std::ios::trunc);  // Run::out: nothing captured
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, hazards.stdout_to.empty() ? out_path.c_str() : hazards.stdout_to.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int pty_master = -1, pty_slave = -1;
    if (stderr_terminal) {
      REQUIRE(openpty(&pty_master, &pty_slave, nullptr, nullptr, nullptr) == 0);
      posix_spawn_file_actions_adddup2(&actions, pty_slave, STDERR_FILENO);
      posix_spawn_file_actions_addclose(&actions, pty_slave);
      posix_spawn_file_actions_addclose(&actions, pty_master);
    } else {
      posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    }

    std::vector<std::string> argv_s = {VKSORT_CLI};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    // The extra entries replace inherited ones of the same name.
    std::vector<std::string> env_s;
    for (char** e = environ; *e; ++e) {
      const std::string entry = *e, name = entry.substr(0, entry.find('=') + 1);
      if (std::none_of(extra_env.begin(), extra_env.end(), [&](const std::string& x) { return x.starts_with(name); }))
        env_s.push_back(entry);
    }
    env_s.insert(env_s.end(), extra_env.begin(), extra_env.end());
    std::vector<char*> envp;
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);

    // Limits and ignored signals are inherited through exec: set them around the spawn only.
    rlimit old_limit{};
    getrlimit(RLIMIT_FSIZE, &old_limit);
    if (hazards.file_size_limit) {
      rlimit limit = old_limit;
      limit.rlim_cur = hazards.file_size_limit;
      REQUIRE(setrlimit(RLIMIT_FSIZE, &limit) == 0);
    }
    struct sigaction old_action {}, given {};
    given.sa_handler = hazards.ignore_sigxfsz ? SIG_IGN : SIG_DFL;
    sigaction(SIGXFSZ, &given, &old_action);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, VKSORT_CLI, &actions, nullptr, argv.data(), envp.data());
    if (hazards.file_size_limit) setrlimit(RLIMIT_FSIZE, &old_limit);
    sigaction(SIGXFSZ, &old_action, nullptr);
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE_MESSAGE(rc == 0, "posix_spawn " << VKSORT_CLI << ": " << std::strerror(rc));
    std::string terminal;
    if (stderr_terminal) {
      // Read while the child runs (a full terminal buffer would block it); read() fails with EIO once
      // the child's side is closed.
      close(pty_slave);
      char buf[4096];
      for (ssize_t got; (got = read(pty_master, buf, sizeof buf)) > 0;) terminal.append(buf, size_t(got));
      close(pty_master);
    }
    if (hazards.kill_after_ms >= 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(hazards.kill_after_ms));
      kill(pid, SIGKILL);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    const bool expect_signal = hazards.kill_after_ms >= 0;
    REQUIRE_MESSAGE((WIFEXITED(status) || expect_signal),
                    "vksort died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : -1));
    Run r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out_path),
          stderr_terminal ? terminal : read_text(err_path), WIFSIGNALED(status) ? WTERMSIG(status) : 0};
    return r;
  }

  std::set<std::string> listing() const {
    std::set<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(work())) names.insert(fs::relative(e.path(), work()).string());
    return names;
  }

 private:
  fs::path root_;
};

// The options every GPU-touching command gets: validation wherever the layer is installed, as in the
// other suites, so that a validation message fails the command (exit 1) and with it the test.
std::vector<std::string> with_globals(std::vector<std::string> args) {
  if (validation_layer_available()) args.push_back("--validation");
  return args;
}

std::string show(const std::vector<std::string>& args) {
  std::string s = "vksort";
  for (const auto& a : args) s += " " + a;
  return s;
}

// Exit 2 and exactly one line on stderr that starts with "vksort: " and contains every `needle`.
void check_usage_error(const Run& r, const std::vector<std::string>& needles) {
  CHECK_MESSAGE(r.code == 2, "stderr: " << r.err);
  CHECK(r.err.starts_with("vksort: "));
  CHECK_MESSAGE(std::count(r.err.begin(), r.err.end(), '\n') == 1, "stderr must be one line: " << r.err);
  for (const auto& n : needles) CHECK_MESSAGE(r.err.find(n) != std::string::npos, "stderr lacks '" << n << "': " << r.err);
}

// The number that starts at `pos` in `text` (std::regex trips GCC 12's -Wmaybe-uninitialized).
std::optional<double> number_at(const std::string& text, size_t pos) {
  if (pos >= text.size() || !std::isdigit(static_cast<unsigned char>(text[pos]))) return std::nullopt;
  return std::strtod(text.c_str() + pos, nullptr);
}

// The median, min and max of a "1.234 (1.100..1.500)" cell found in `line`.
std::optional<std::array<double, 3>> gpu_cell(const std::string& line) {
  const size_t open = line.find(" ("), dots = line.find("..", open == std::string::npos ? 0 : open);
  if (open == std::string::npos || dots == std::string::npos) return std::nullopt;
  size_t start = line.rfind(' ', open - 1);
  start = start == std::string::npos ? 0 : start + 1;
  const auto median = number_at(line, start), lo = number_at(line, open + 2), hi = number_at(line, dots + 2);
  if (!median || !lo || !hi) return std::nullopt;
  return std::array<double, 3>{*median, *lo, *hi};
}

std::span<const std::byte> bytes_of(const std::vector<uint32_t>& v) { return std::as_bytes(std::span(v)); }

std::vector<uint32_t> as_values(const std::vector<std::byte>& b) {
  std::vector<uint32_t> v(b.size() / 4);
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

}  // namespace

TEST_CASE("cli: sort of every key type matches the reference, with and without values, in both orders") {
  TempDir dir;
  uint64_t seed = 1;
  for (Key key : kKeys)
    for (size_t n : {size_t(1000), size_t(0), size_t(1)}) {
      // `special` holds what breaks comparisons: NaNs of both signs, -0.0/+0.0, infinities, denormals,
      // min/max integers, and many ties (so stability shows in the values).
      const std::vector<std::byte> keys = workloads::generate_keys(key, workloads::default_spec(workloads::Distribution::special), n, ++seed);
      const std::vector<uint32_t> values = workloads::generate_values(n);
      write_bytes(dir / "in.bin", keys);
      write_bytes(dir / "vals.bin", bytes_of(values));
      for (Order order : {Order::ascending, Order::descending})
        for (bool with_values : {false, true}) {
          std::vector<std::string> args = {"sort", "--type", std::string(to_string(key)), dir / "in.bin", dir / "out.bin"};
          if (order == Order::descending) args.push_back("--descending");
          if (with_values) args.insert(args.end(), {"--values", dir / "vals.bin", "--values-out", dir / "vals_out.bin"});
          // An existing, longer output must be replaced entirely, not overwritten in place.
          write_text(dir / "out.bin", std::string(n * 8 + 17, 'x'));
          fs::remove(dir / "vals_out.bin");
          CAPTURE(show(args));
          const Run r = dir.run(with_globals(args));
          REQUIRE_MESSAGE(r.code == 0, "stderr: " << r.err);
          CHECK(r.out.empty());  // quiet on success
          CHECK(r.err.empty());

          std::vector<std::byte> expected = keys;
          std::vector<uint32_t> expected_values = with_values ? values : std::vector<uint32_t>{};
          workloads::reference_sort(key, order, expected, expected_values);
          const std::vector<std::byte> got = read_bytes(dir / "out.bin");
          const std::vector<uint32_t> got_values = with_values ? as_values(read_bytes(dir / "vals_out.bin")) : std::vector<uint32_t>{};
          if (with_values) CHECK(read_bytes(dir / "vals_out.bin").size() == n * 4);
          const std::string diff = workloads::first_difference(key, expected, got, expected_values, got_values);
          CHECK_MESSAGE(diff.empty(), diff);
          // Inputs are read, never written.
          CHECK(read_bytes(dir / "in.bin") == keys);
        }
    }
  const std::set<std::string> left = dir.listing();
  CHECK(left == std::set<std::string>{"in.bin", "out.bin", "vals.bin", "vals_out.bin"});  // no temporary files
}

// Records of --value-bytes N bytes: every word encodes the record's input position and its slot, so a
// record that moved apart from its key, or a torn one, is a byte difference from the reference.
TEST_CASE("cli: sort --value-bytes moves records of N bytes with their keys") {
  TempDir dir;
  uint64_t seed = 40;
  struct Case {
    Key key;
    Order order;
    const char* algo;
  };
  for (uint32_t vb : {8u, 12u, 64u})
    for (const Case k : {Case{Key::u32, Order::ascending, "auto"}, Case{Key::f64, Order::descending, "radix"},
                         Case{Key::i32, Order::ascending, vb == 8 ? "brick" : "sample"}})
      for (size_t n : {size_t(0), size_t(1000)}) {  // 1000 last: the verbose run below reuses its files
        const std::vector<std::byte> keys = workloads::generate_keys(k.key, workloads::default_spec(workloads::Distribution::special), n, ++seed);
        std::vector<uint32_t> words(n * vb / 4);
        for (size_t w = 0; w < words.size(); ++w) words[w] = uint32_t(w / (vb / 4)) * 1000u + uint32_t(w % (vb / 4)) + uint32_t(seed);
        const std::span<const std::byte> raw = bytes_of(words);
        const std::vector<std::byte> records(raw.begin(), raw.end());
        write_bytes(dir / "in.bin", keys);
        write_bytes(dir / "recs.bin", records);
        std::vector<std::string> args = {"sort", "--type", std::string(to_string(k.key)), "--algo", k.algo, dir / "in.bin",
                                         dir / "out.bin", "--values", dir / "recs.bin", "--value-bytes", std::to_string(vb),
                                         "--values-out", dir / "recs_out.bin", "--check"};
        if (k.order == Order::descending) args.push_back("--descending");
        CAPTURE(show(args));
        const Run r = dir.run(with_globals(args));
        REQUIRE_MESSAGE(r.code == 0, "stderr: " << r.err);
        CHECK(r.err.empty());

        std::vector<std::byte> expected = keys;
        std::vector<uint32_t> from(n);
        std::iota(from.begin(), from.end(), 0u);
        workloads::reference_sort(k.key, k.order, expected, from);
        std::vector<std::byte> expected_records(records.size());
        for (size_t i = 0; i < n; ++i) std::memcpy(&expected_records[i * vb], &records[size_t(from[i]) * vb], vb);
        const std::string diff = workloads::first_difference(k.key, expected, read_bytes(dir / "out.bin"));
        CHECK_MESSAGE(diff.empty(), diff);
        CHECK(read_bytes(dir / "recs_out.bin") == expected_records);
      }
  CHECK(dir.listing() == std::set<std::string>{"in.bin", "out.bin", "recs.bin", "recs_out.bin"});
  // --verbose names the record size and shows the gather.
  const Run v = dir.run(with_globals({"sort", "-v", "--algo", "radix", dir / "in.bin", dir / "out.bin", "--values",
                                      dir / "recs.bin", "--value-bytes", "64", "--values-out", dir / "recs_out.bin"}));
  REQUIRE_MESSAGE(v.code == 0, v.err);
  CHECK(v.out.find("records of 64 bytes") != std::string::npos);
  CHECK(v.out.find("gather") != std::string::npos);
}

using vksort::test::npy_dict;
using vksort::test::npy_file;

TEST_CASE("cli: sort reads and writes NumPy .npy: the dtype comes from the header") {
  TempDir dir;
  uint64_t seed = 70;
  const char* descrs[] = {"<u4", "<i4", "<f4", "<u8", "<i8", "<f8"};
  for (size_t t = 0; t < 6; ++t) {
    const Key key = kKeys[t];
    CAPTURE(descrs[t]);
    const size_t n = 3000;
    const auto keys = workloads::generate_keys(key, workloads::default_spec(workloads::Distribution::special), n, ++seed);
    const std::vector<uint32_t> values = workloads::generate_values(n);
    write_bytes(dir / "in.npy", npy_file(npy_dict(descrs[t], n), keys, t == 5 ? 2 : 1));  // one format 2.0 file
    write_bytes(dir / "vals.npy", npy_file(npy_dict("<f4", n), bytes_of(values)));
    const Run r = dir.run(with_globals({"sort", dir / "in.npy", dir / "out.npy", "--values", dir / "vals.npy",
                                        "--values-out", dir / "vals_out.npy", "--check"}));
    REQUIRE_MESSAGE(r.code == 0, "stderr: " << r.err);
    std::vector<std::byte> expected = keys;
    std::vector<uint32_t> expected_values = values;
    workloads::reference_sort(key, Order::ascending, expected, expected_values);
    // vksort writes format 1.0 with the header NumPy would write: the same bytes as the file above.
    CHECK(read_bytes(dir / "out.npy") == npy_file(npy_dict(descrs[t], n), expected));
    CHECK(read_bytes(dir / "vals_out.npy") == npy_file(npy_dict("<f4", n), bytes_of(expected_values)));
    // A raw output of a .npy input holds the keys alone; --type may name the dtype's kind.
    const Run raw = dir.run(with_globals({"sort", "--type", std::string(to_string(key)), dir / "in.npy", dir / "out.bin"}));
    REQUIRE_MESSAGE(raw.code == 0, "stderr: " << raw.err);
    CHECK(read_bytes(dir / "out.bin") == expected);
  }
  // Raw input, .npy output: the header carries --type's dtype; records travel as void ('|V8').
  const auto keys = workloads::generate_keys(Key::i64, workloads::default_spec(workloads::Distribution::uniform), 100, 3);
  std::vector<uint32_t> records(200);
  std::iota(records.begin(), records.end(), 0u);
  write_bytes(dir / "in.bin", keys);
  write_bytes(dir / "recs.bin", bytes_of(records));
  const Run r = dir.run(with_globals({"sort", "--type", "i64", dir / "in.bin", dir / "out.npy", "--values", dir / "recs.bin",
                                      "--value-bytes", "8", "--values-out", dir / "recs_out.npy"}));
  REQUIRE_MESSAGE(r.code == 0, "stderr: " << r.err);
  std::vector<std::byte> expected = keys;
  std::vector<uint32_t> order(100);
  std::iota(order.begin(), order.end(), 0u);
  workloads::reference_sort(Key::i64, Order::ascending, expected, order);
  std::vector<uint32_t> expected_records(200);
  for (size_t i = 0; i < 100; ++i) expected_records[2 * i] = 2 * order[i], expected_records[2 * i + 1] = 2 * order[i] + 1;
  CHECK(read_bytes(dir / "out.npy") == npy_file(npy_dict("<i8", 100), expected));
  CHECK(read_bytes(dir / "recs_out.npy") == npy_file(npy_dict("|V8", 100), bytes_of(expected_records)));
}

TEST_CASE("cli: sort refuses .npy files it cannot take with exit 2 and writes nothing") {
  TempDir dir;
  const auto keys = workloads::generate_keys(Key::f32, workloads::default_spec(workloads::Distribution::uniform), 100, 5);
  const std::vector<uint32_t> values = workloads::generate_values(100);
  struct Bad {
    std::string what;
    std::vector<std::byte> file;
    std::vector<std::string> needles;
    std::vector<std::string> extra_args = {};
  };
  std::vector<std::byte> no_magic = npy_file(npy_dict("<f4", 100), keys);
  no_magic[1] = std::byte{'X'};
  std::vector<std::byte> truncated = npy_file(npy_dict("<f4", 100), keys);
  truncated.resize(40);
  std::vector<std::byte> version9 = npy_file(npy_dict("<f4", 100), keys);
  version9[6] = std::byte{9};
  const std::vector<Bad> cases = {
      {"fortran order", npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (100,), }", keys), {"fortran_order True"}},
      {"two dimensions", npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (10, 10), }", keys), {"(10, 10)", "1-D"}},
      {"a scalar", npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", std::span(keys).first(4)), {"()", "1-D"}},
      {"big-endian", npy_file(npy_dict(">f4", 100), keys), {"'>f4'", "big-endian"}},
      {"half floats", npy_file(npy_dict("<f2", 200), keys), {"'<f2'", "not supported"}},
      {"records as keys", npy_file(npy_dict("|V4", 100), keys), {"'|V4'", "not a key type"}},
      // A record size past 2^64 ended in "vksort: stoul" (exit 1); a length of 22 digits was "not 1-D".
      {"records of 10^20 bytes", npy_file(npy_dict("|V99999999999999999999", 100), keys), {"'|V99999999999999999999'", "not supported"}},
      {"a length of 22 digits", npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000000000000,), }", keys),
       {"(1000000000000000000000,)", "too large"}},
      {"a length with 18 leading zeros", npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (000000000000000000101,), }", keys),
       {"400 data bytes", "404"}},
      {"structured dtype as keys", npy_file("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (100,), }", keys),
       {"[('a', '<f4')]", "not a key type", "--values"}},
      // NumPy refuses both; vksort read the first as 100 keys and the second by its first descr (NumPy's
      // dict keeps the last: these f32 keys were sorted as u32).
      {"a length split by a space", npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (10 0,), }", keys),
       {"(10 0,)", "bad .npy header"}},
      {"descr given twice", npy_file("{'descr': '<u4', 'descr': '<f4', 'fortran_order': False, 'shape': (100,), }", keys),
       {"bad .npy header"}},
      {"unclosed field list", npy_file("{'descr': [('a', '<f4'), 'fortran_order': False, 'shape': (100,), }", keys), {"bad .npy header"}},
      {"no magic", no_magic, {"not a NumPy .npy file"}},
      {"truncated header", truncated, {"truncated"}},
      {"unknown format version", version9, {"version 9"}},
      {"fewer data than the shape", npy_file(npy_dict("<f4", 101), keys), {"400 data bytes", "404"}},
      {"--type contradicting the dtype", npy_file(npy_dict("<f4", 100), keys), {"--type u32", "'<f4'"}, {"--type", "u32"}},
  };
  write_bytes(dir / "vals.npy", npy_file(npy_dict("<u4", 100), bytes_of(values)));
  for (const Bad& c : cases)
    for (bool outputs_exist : {false, true}) {
      CAPTURE(c.what);
      write_bytes(dir / "in.npy", c.file);
      fs::remove(dir / "out.npy");
      if (outputs_exist) write_text(dir / "out.npy", "old");
      const std::set<std::string> listing = dir.listing();
      std::vector<std::string> args = {"sort", dir / "in.npy", dir / "out.npy"};
      args.insert(args.end(), c.extra_args.begin(), c.extra_args.end());
      check_usage_error(dir.run(with_globals(args)), c.needles);
      if (outputs_exist) CHECK(read_text(dir / "out.npy") == "old");
      CHECK(dir.listing() == listing);
    }
  // A values file is checked the same way, and against --value-bytes.
  write_bytes(dir / "in.npy", npy_file(npy_dict("<f4", 100), keys));
  write_bytes(dir / "bad_vals.npy", npy_file(npy_dict("<u4", 99), std::span(bytes_of(values)).first(396)));
  check_usage_error(dir.run(with_globals({"sort", dir / "in.npy", dir / "out.npy", "--values", dir / "bad_vals.npy",
                                          "--values-out", dir / "v.npy"})), {"99 values", "100 keys"});
  check_usage_error(dir.run(with_globals({"sort", dir / "in.npy", dir / "out.npy", "--values", dir / "vals.npy",
                                          "--value-bytes", "8", "--values-out", dir / "v.npy"})), {"--value-bytes 8", "'<u4'"});
  write_bytes(dir / "huge_vals.npy", npy_file(npy_dict("|V99999999999999999999", 100), bytes_of(values)));
  check_usage_error(dir.run(with_globals({"sort", dir / "in.npy", dir / "out.npy", "--values", dir / "huge_vals.npy",
                                          "--values-out", dir / "v.npy"})), {"huge_vals.npy", "256"});
  // Records of a structured dtype must be a size vksort moves (a multiple of 4 up to 256 bytes), and
  // their field list's size times the shape: 100 records of 6 bytes are refused by their size, 398 and
  // 800 bytes of 4-byte records by the data's size (800 were taken as 100 records of 8 bytes: values cut
  // at the wrong size, written back under a 4-byte dtype), object fields as no raw records.
  const std::string six = "{'descr': [('a', '<u2'), ('b', '<u4')], 'fortran_order': False, 'shape': (100,), }";
  write_bytes(dir / "recs6.npy", npy_file(six, std::vector<std::byte>(100 * 6, std::byte{1})));
  check_usage_error(dir.run(with_globals({"sort", dir / "in.npy", dir / "out.npy", "--values", dir / "recs6.npy",
                                          "--values-out", dir / "v.npy"})), {"recs6.npy", "6 bytes", "multiple of 4"});
  const std::string ragged = "{'descr': [('a', '<u4')], 'fortran_order': False, 'shape': (100,), }";
  write_bytes(dir / "ragged.npy", npy_file(ragged, std::span(bytes_of(values)).first(398)));
  check_usage_error(dir.run(with_globals({"sort", dir / "in.npy", dir / "out.npy", "--values", dir / "ragged.npy",
                                          "--values-out", dir / "v.npy"})), {"398 data bytes", "needs 400"});
  std::vector<std::byte> trailing(800, std::byte{0});
  std::memcpy(trailing.data(), values.data(), 400);
  write_bytes(dir / "trailing.npy", npy_file(ragged, trailing));
  check_usage_error(dir.run(with_globals({"sort", dir / "in.npy", dir / "out.npy", "--values", dir / "trailing.npy",
                                          "--values-out", dir / "v.npy"})), {"800 data bytes", "needs 400"});
  const std::string objects = "{'descr': [('a', '<u4'), ('o', '|O')], 'fortran_order': False, 'shape': (100,), }";
  write_bytes(dir / "objects.npy", npy_file(objects, std::vector<std::byte>(100 * 12, std::byte{1})));
  check_usage_error(dir.run(with_globals({"sort", dir / "in.npy", dir / "out.npy", "--values", dir / "objects.npy",
                                          "--values-out", dir / "v.npy"})), {"objects.npy", "record size cannot be worked out"});
  CHECK(!fs::exists(dir / "v.npy"));
}

// A structured dtype's records (named fields, nested ones too) travel whole with their keys, and the
// values output gets the same dtype back in the header format NumPy reads: 1.0 while the header fits
// 64 KiB, 2.0 beyond, and 3.0 (UTF-8) where the input's was.
TEST_CASE("cli: sort carries .npy values of a structured dtype and writes the same dtype back") {
  TempDir dir;
  const size_t n = 777;
  const auto keys = workloads::generate_keys(Key::u32, workloads::default_spec(workloads::Distribution::few_unique), n, 9);
  write_bytes(dir / "in.bin", keys);
  std::vector<std::byte> expected_keys = keys;
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  workloads::reference_sort(Key::u32, Order::ascending, expected_keys, order);
  // Each record's bytes name the record (its index in the first word, then a pattern of it).
  auto records_of = [&](uint32_t bytes) {
    std::vector<std::byte> r(n * bytes);
    for (size_t i = 0; i < n; ++i)
      for (uint32_t b = 0; b < bytes; ++b) r[i * bytes + b] = std::byte((b < 4 ? i >> (8 * b) : i * 31 + b) & 0xFF);
    return r;
  };
  auto permuted = [&](const std::vector<std::byte>& r, uint32_t bytes) {
    std::vector<std::byte> out(r.size());
    for (size_t i = 0; i < n; ++i) std::memcpy(&out[i * bytes], &r[size_t(order[i]) * bytes], bytes);
    return out;
  };
  std::string long_fields = "[";
  for (int f = 0; f < 64; ++f) long_fields += "('field" + std::to_string(f) + std::string(1100, 'x') + "', '<u4'), ";
  long_fields += "]";
  struct Case {
    std::string what, fields;
    uint32_t bytes;
    int major_in, major_out;
  } cases[] = {
      {"flat", "[('id', '<u4'), ('mass', '<f4'), ('tag', '<u8')]", 16, 1, 1},
      {"nested, with a subarray and quotes", "[('pos', '<f4', (3,)), ('n]ame', '|S4'), ('sub', [('x', '<u2'), ('y', '<u2')])]", 20, 1, 1},
      {"a header beyond 64 KiB", long_fields, 256, 2, 2},
      {"a UTF-8 field name", "[('\xc3\xa4', '<u4'), ('b', '<u4')]", 8, 3, 3},
      // Fields named as the header's own keys (a field 'shape' was taken for the array's shape), and
      // a name holding both quotes, which Python writes with a backslash escape.
      {"fields named shape, descr and fortran_order", "[('shape', '<u4'), ('descr', '<u4'), ('fortran_order', '<u4')]", 12, 1, 1},
      {"a field name with both quotes", "[('a\\'b\"c', '<u4'), ('x', '<u4')]", 8, 1, 1},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const std::string dict = "{'descr': " + c.fields + ", 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }";
    const std::vector<std::byte> records = records_of(c.bytes);
    write_bytes(dir / "recs.npy", npy_file(dict, records, c.major_in));
    const Run r = dir.run(with_globals({"sort", dir / "in.bin", dir / "out.bin", "--values", dir / "recs.npy",
                                        "--values-out", dir / "recs_out.npy", "--check"}));
    REQUIRE_MESSAGE(r.code == 0, "stderr: " << r.err);
    CHECK(read_bytes(dir / "out.bin") == expected_keys);
    CHECK(read_bytes(dir / "recs_out.npy") == npy_file(dict, permuted(records, c.bytes), c.major_out));
  }
  // An empty structured array: nothing moves, and the dtype comes back.
  write_bytes(dir / "empty.bin", std::vector<std::byte>{});
  const std::string empty = "{'descr': [('a', '<u4'), ('b', '<f8')], 'fortran_order': False, 'shape': (0,), }";
  write_bytes(dir / "recs.npy", npy_file(empty, {}));
  const Run r = dir.run(with_globals({"sort", dir / "empty.bin", dir / "out.bin", "--values", dir / "recs.npy",
                                      "--values-out", dir / "recs_out.npy"}));
  REQUIRE_MESSAGE(r.code == 0, "stderr: " << r.err);
  CHECK(read_bytes(dir / "recs_out.npy") == npy_file(empty, {}));
}

TEST_CASE("cli: sort --begin-bit/--end-bit orders by those bits of the key alone, stably") {
  TempDir dir;
  // Cell ids in the low 12 bits, anything above: sorting bits [0, 12) keeps equal cells in input order.
  std::vector<uint32_t> keys(5000);
  std::mt19937 random(12);
  for (uint32_t& k : keys) k = uint32_t(random());
  write_bytes(dir / "in.bin", bytes_of(keys));
  const Run r = dir.run(with_globals({"sort", "--algo", "radix", "--end-bit", "12", "--check", dir / "in.bin", dir / "out.bin"}));
  REQUIRE_MESSAGE(r.code == 0, "stderr: " << r.err);
  std::vector<uint32_t> expected = keys;
  std::stable_sort(expected.begin(), expected.end(), [](uint32_t a, uint32_t b) { return (a & 0xFFF) < (b & 0xFFF); });
  CHECK(as_values(read_bytes(dir / "out.bin")) == expected);
  // Integer options are decimal: "012" is 12 (CLI11 read it as octal, 10 bits), "0x0c" is refused.
  const Run zeros = dir.run(with_globals({"sort", "--algo", "radix", "--end-bit", "012", dir / "in.bin", dir / "out.bin"}));
  REQUIRE_MESSAGE(zeros.code == 0, "stderr: " << zeros.err);
  CHECK(as_values(read_bytes(dir / "out.bin")) == expected);
  check_usage_error(dir.run(with_globals({"sort", "--end-bit", "0x0c", dir / "in.bin", dir / "out2.bin"})),
                    {"--end-bit", "0x0c is not a decimal integer"});
  const Run mid = dir.run(with_globals({"sort", "--begin-bit", "8", "--end-bit", "16", dir / "in.bin", dir / "out.bin"}));
  REQUIRE_MESSAGE(mid.code == 0, "stderr: " << mid.err);
  expected = keys;
  std::stable_sort(expected.begin(), expected.end(), [](uint32_t a, uint32_t b) { return ((a >> 8) & 0xFF) < ((b >> 8) & 0xFF); });
  CHECK(as_values(read_bytes(dir / "out.bin")) == expected);
  // A bit range is radix sort's: another algorithm, or a range beyond the key, is bad input.
  check_usage_error(dir.run(with_globals({"sort", "--algo", "brick", "--end-bit", "12", dir / "in.bin", dir / "out2.bin"})),
                    {"begin_bit", "radix"});
  check_usage_error(dir.run(with_globals({"sort", "--end-bit", "40", dir / "in.bin", dir / "out2.bin"})), {"40"});
  // An option's empty value after '=' is refused by name (CLI11 took the next argument, here the input).
  check_usage_error(dir.run(with_globals({"sort", "--end-bit=", dir / "in.bin", dir / "out2.bin"})),
                    {"--end-bit", "empty value"});
  check_usage_error(dir.run(with_globals({"sort", "--tmp-dir", "", dir / "in.bin", dir / "out2.bin"})),
                    {"the option --tmp-dir has an empty value"});
  CHECK(!fs::exists(dir / "out2.bin"));
}

TEST_CASE("cli: sort in place, --check, --verbose and the permissions of replaced files") {
  TempDir dir;
  const auto keys = workloads::generate_keys(Key::i64, workloads::default_spec(workloads::Distribution::uniform), 777, 5);
  auto expected = keys;
  workloads::reference_sort(Key::i64, Order::descending, expected, {});

  SUBCASE("OUTPUT may be INPUT") {
    write_bytes(dir / "k.bin", keys);
    const Run r = dir.run(with_globals({"sort", "--type", "i64", "--descending", "--check", dir / "k.bin", dir / "k.bin"}));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(read_bytes(dir / "k.bin") == expected);
  }
  SUBCASE("--verbose reports the GPU time and the algorithm's facts") {
    write_bytes(dir / "k.bin", keys);
    const Run r = dir.run(with_globals({"sort", "--type", "i64", "--descending", "-v", dir / "k.bin", dir / "o.bin"}));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(read_bytes(dir / "o.bin") == expected);
    CHECK(r.out.find("sorted 777 i64 keys descending") != std::string::npos);
    if (test::device().info().timestamps) {
      const size_t gpu = r.out.find("GPU ");
      REQUIRE(gpu != std::string::npos);
      const auto ms = number_at(r.out, gpu + 4);
      REQUIRE_MESSAGE(ms.has_value(), r.out);
      CHECK(*ms > 0);
      CHECK(r.out.find(" ms", gpu + 4) != std::string::npos);
    }
    else CHECK(r.out.find("n/a") != std::string::npos);
    // The facts the library reports for the same sort, whatever algorithm "auto" picks.
    std::vector<std::byte> same = keys;
    SortOptions o;
    o.key = Key::i64;
    o.order = Order::descending;
    const SortStats stats = sort_host(test::device(), same.data(), 777, nullptr, o);
    REQUIRE(!stats.facts.empty());
    for (const auto& [fact, value] : stats.facts) CHECK_MESSAGE(r.out.find(fact) != std::string::npos, fact);
    CHECK(r.err.empty());
  }
  SUBCASE("a new output gets the umask's permissions, a replaced one keeps its own") {
    write_bytes(dir / "k.bin", keys);
    const mode_t mask = umask(0);
    umask(mask);
    REQUIRE(dir.run(with_globals({"sort", "--type", "i64", dir / "k.bin", dir / "new.bin"})).code == 0);
    CHECK((fs::status(dir / "new.bin").permissions() & fs::perms::mask) == fs::perms(0666 & ~mask));
    write_text(dir / "old.bin", "old");
    fs::permissions(dir / "old.bin", fs::perms(0640));
    REQUIRE(dir.run(with_globals({"sort", "--type", "i64", dir / "k.bin", dir / "old.bin"})).code == 0);
    CHECK((fs::status(dir / "old.bin").permissions() & fs::perms::mask) == fs::perms(0640));
    CHECK(read_bytes(dir / "old.bin").size() == keys.size());
  }
}

TEST_CASE("cli: a full disk or a kill mid-way leaves the output as it was or complete, never half written") {
  TempDir dir;
  const uint64_t n = 1 << 21;  // 8 MiB of keys
  const auto keys = workloads::generate_keys(Key::u32, workloads::default_spec(workloads::Distribution::uniform), n, 3);
  auto expected = keys;
  workloads::reference_sort(Key::u32, Order::ascending, expected, {});
  write_bytes(dir / "in.bin", keys);
  const std::string old = "old contents";
  auto reset_output = [&] { write_text(dir / "out.bin", old); };
  const std::set<std::string> files = {"in.bin", "out.bin"};

  SUBCASE("disk full: the write fails, the error names the output, nothing is left behind") {
    reset_output();
    const Run r = dir.run(with_globals({"sort", dir / "in.bin", dir / "out.bin"}), {}, false,
                          {.file_size_limit = 1 << 20, .ignore_sigxfsz = true});
    CHECK(r.code == 1);
    CHECK(r.err.starts_with("vksort: "));
    CHECK_MESSAGE(r.err.find("out.bin") != std::string::npos, r.err);
    CHECK(read_text(dir / "out.bin") == old);
    CHECK(dir.listing() == files);  // the temporary file is gone
  }
  SUBCASE("disk full with SIGXFSZ at its default (a shell's ulimit -f): reported the same way") {
    // The signal killed vksort mid-write with no message; it ignores the signal itself now.
    reset_output();
    const Run r = dir.run(with_globals({"sort", dir / "in.bin", dir / "out.bin"}), {}, false, {.file_size_limit = 1 << 20});
    CHECK(r.signal == 0);
    CHECK(r.code == 1);
    CHECK_MESSAGE(r.err.find("out.bin") != std::string::npos, r.err);
    CHECK_MESSAGE(r.err.find("File too large") != std::string::npos, r.err);
    CHECK(read_text(dir / "out.bin") == old);
    CHECK(dir.listing() == files);
  }
  SUBCASE("killed at any moment: the output holds the old contents or the whole sorted file") {
    int old_seen = 0, new_seen = 0;
    for (int delay : {30, 150, 400, 900, 2000, 6000}) {
      CAPTURE(delay);
      reset_output();
      const Run r = dir.run(with_globals({"sort", dir / "in.bin", dir / "out.bin"}), {}, false, {.kill_after_ms = delay});
      const auto now = read_bytes(dir / "out.bin");
      if (now.size() == old.size()) {
        CHECK(read_text(dir / "out.bin") == old);
        ++old_seen;
      } else {
        CHECK(now == expected);
        ++new_seen;
      }
      // A killed process cannot remove its temporary file; it may only ever be a temporary.
      for (const auto& name : dir.listing())
        if (!files.count(name)) CHECK_MESSAGE(name.starts_with(".out.bin.vksort-"), name);
    }
    MESSAGE("kills that found the old output: " << old_seen << ", the complete new one: " << new_seen);
  }
}

TEST_CASE("cli: sort refuses bad input with exit 2 and leaves the outputs untouched") {
  struct Bad {
    std::string what;
    std::vector<std::string> args;     // "@name" stands for the file `name` in the test folder
    std::vector<std::string> outputs;  // files the command must neither create nor change
    std::vector<std::string> needles;  // what the message must name
  };
  const std::vector<Bad> cases = {
      {"missing input", {"@nope.bin", "@out.bin"}, {"out.bin"}, {"nope.bin", "does not exist"}},
      {"input is a folder", {"@folder", "@out.bin"}, {"out.bin"}, {"folder", "is a folder"}},
      {"input size not a multiple of the key size", {"@odd.bin", "@out.bin"}, {"out.bin"}, {"odd.bin", "4001 bytes", "multiple of 4"}},
      {"input size not a multiple of the 64-bit key size", {"--type", "f64", "@keys12.bin", "@out.bin"}, {"out.bin"},
       {"keys12.bin", "12 bytes", "multiple of 8"}},
      {"values file with fewer values", {"@keys.bin", "@out.bin", "--values", "@short_vals.bin", "--values-out", "@vout.bin"},
       {"out.bin", "vout.bin"}, {"short_vals.bin", "999 values", "1000 keys"}},
      {"values file with more values than 64-bit keys", {"--type", "u64", "@keys.bin", "@out.bin", "--values", "@vals.bin", "--values-out", "@vout.bin"},
       {"out.bin", "vout.bin"}, {"vals.bin", "1000 values", "500 keys"}},
      {"unknown type", {"--type", "u16", "@keys.bin", "@out.bin"}, {"out.bin"}, {"u16", "--type"}},
      {"unknown algorithm", {"--algo", "quicksort", "@keys.bin", "@out.bin"}, {"out.bin"}, {"quicksort", "--algo"}},
      {"unknown variant", {"--variant", "triples", "@keys.bin", "@out.bin"}, {"out.bin"}, {"triples"}},
      {"--values without --values-out", {"@keys.bin", "@out.bin", "--values", "@vals.bin"}, {"out.bin"}, {"--values-out"}},
      {"--values-out without --values", {"@keys.bin", "@out.bin", "--values-out", "@vout.bin"}, {"out.bin", "vout.bin"}, {"--values"}},
      {"output in a missing folder", {"@keys.bin", "@nodir/out.bin"}, {}, {"nodir", "does not exist"}},
      {"values output in a missing folder", {"@keys.bin", "@out.bin", "--values", "@vals.bin", "--values-out", "@nodir/v.bin"},
       {"out.bin"}, {"nodir", "does not exist"}},
      {"output is a folder", {"@keys.bin", "@folder"}, {}, {"folder", "is a folder"}},
      // An empty name passed every check and failed at the rename, after the sort (exit 1); out of core too.
      {"empty output name", {"@keys.bin", ""}, {}, {"output: the file name is empty"}},
      {"empty output name, out of core", {"@keys.bin", "", "--memory", "1K"}, {}, {"output: the file name is empty"}},
      {"--value-bytes not a multiple of 4", {"@keys.bin", "@out.bin", "--values", "@vals.bin", "--value-bytes", "6", "--values-out", "@vout.bin"},
       {"out.bin", "vout.bin"}, {"--value-bytes", "6", "multiple of 4"}},
      {"--value-bytes too large", {"@keys.bin", "@out.bin", "--values", "@vals.bin", "--value-bytes", "260", "--values-out", "@vout.bin"},
       {"out.bin", "vout.bin"}, {"--value-bytes", "260", "256"}},
      {"--value-bytes 0", {"@keys.bin", "@out.bin", "--values", "@vals.bin", "--value-bytes", "0", "--values-out", "@vout.bin"},
       {"out.bin", "vout.bin"}, {"--value-bytes", "0"}},
      {"values file of fewer records", {"@keys.bin", "@out.bin", "--values", "@vals.bin", "--value-bytes", "8", "--values-out", "@vout.bin"},
       {"out.bin", "vout.bin"}, {"vals.bin", "500 8-byte records", "1000 keys"}},
      {"values file not a whole number of records", {"@keys.bin", "@out.bin", "--values", "@vals.bin", "--value-bytes", "12", "--values-out", "@vout.bin"},
       {"out.bin", "vout.bin"}, {"vals.bin", "not a whole number of 12-byte records"}},
      {"--value-bytes without values", {"@keys.bin", "@out.bin", "--value-bytes", "8"}, {"out.bin"}, {"--value-bytes", "--values"}},
      {"keys and values to the same file", {"@keys.bin", "@out.bin", "--values", "@vals.bin", "--values-out", "@out.bin"},
       {"out.bin"}, {"out.bin", "same file"}},
      {"device that does not exist", {"--device", "no-such-gpu-anywhere", "@keys.bin", "@out.bin"}, {"out.bin"}, {"no-such-gpu-anywhere"}},
      {"unknown option (a CLI11 parse error)", {"--frobnicate", "@keys.bin", "@out.bin"}, {"out.bin"}, {"--frobnicate"}},
      {"missing OUTPUT (a CLI11 parse error)", {"@keys.bin"}, {}, {"OUTPUT"}},
  };
  // An algorithm vksort knows by name but this build lacks (while there is one) is bad input too.
  std::vector<Bad> all = cases;
  for (Algorithm a : {Algorithm::radix, Algorithm::sample}) {
    SortOptions o;
    o.algorithm = a;
    try {
      Sorter(test::device(), o);
    } catch (const Error&) {
      const std::string name(to_string(a));
      all.push_back({"algorithm this build lacks", {"--algo", name, "@keys.bin", "@out.bin"}, {"out.bin"}, {name, "not available"}});
      break;
    }
  }
  TempDir dir;
  const auto keys = workloads::generate_keys(Key::u32, workloads::default_spec(workloads::Distribution::uniform), 1000, 9);
  write_bytes(dir / "keys.bin", keys);
  {
    std::vector<std::byte> odd = keys;
    odd.push_back(std::byte{7});
    write_bytes(dir / "odd.bin", odd);
  }
  write_bytes(dir / "keys12.bin", std::span(keys).first(12));
  write_bytes(dir / "vals.bin", bytes_of(workloads::generate_values(1000)));
  write_bytes(dir / "short_vals.bin", bytes_of(workloads::generate_values(999)));
  fs::create_directory(dir.work() / "folder");

  for (const Bad& c : all)
    for (bool outputs_exist : {false, true}) {
      std::vector<std::string> args = {"sort"};
      for (const auto& a : c.args) args.push_back(a.starts_with("@") ? dir / a.substr(1) : a);
      std::map<std::string, std::string> before;
      for (const auto& o : c.outputs) {
        fs::remove(dir / o);
        if (outputs_exist) {
          before[o] = "old contents of " + o + " that must survive";
          write_text(dir / o, before[o]);
        }
      }
      const std::set<std::string> listing = dir.listing();
      CAPTURE(c.what);
      CAPTURE(outputs_exist);
      CAPTURE(show(args));
      check_usage_error(dir.run(with_globals(args)), c.needles);
      for (const auto& o : c.outputs) {
        if (outputs_exist) CHECK_MESSAGE(read_text(dir / o) == before[o], o << " was changed");
        else CHECK_MESSAGE(!fs::exists(dir / o), o << " was created");
      }
      CHECK(dir.listing() == listing);  // nothing created, not even a temporary file
    }
}

// Keys and values into one file by two spellings of its name: relative names before the file exists
// ("out.bin" and "./out.bin" were taken as two files, and the values replaced the sorted keys), and
// two hard links to one existing file. Out of core too (the library makes its own check).
TEST_CASE("cli: sort refuses keys and values into one file however it is named") {
  TempDir dir;
  const auto keys = workloads::generate_keys(Key::u32, workloads::default_spec(workloads::Distribution::uniform), 1000, 4);
  write_bytes(dir / "keys.bin", keys);
  write_bytes(dir / "vals.bin", bytes_of(workloads::generate_values(1000)));
  write_text(dir / "old.bin", "old contents");
  fs::create_hard_link(dir / "old.bin", dir / "old_link.bin");
  // A link to the output before it exists (dangling): it was taken as another file, exit 0 with the
  // values in the keys' place.
  fs::create_symlink("out.bin", dir.work() / "to_out.bin");
  const fs::path was = fs::current_path();
  fs::current_path(dir.work());  // the child runs here: relative names resolve in the test folder
  struct Restore {
    fs::path to;
    ~Restore() { fs::current_path(to); }
  } restore{was};
  for (const std::vector<std::string>& extra : {std::vector<std::string>{}, std::vector<std::string>{"--memory", "1k"}}) {
    for (const auto& [out, values_out] : {std::pair{"out.bin", "./out.bin"}, std::pair{"sub/../out.bin", "out.bin"},
                                          std::pair{"old.bin", "old_link.bin"}, std::pair{"out.bin", "to_out.bin"},
                                          std::pair{"to_out.bin", "out.bin"}}) {
      std::vector<std::string> args = {"sort", "keys.bin", out, "--values", "vals.bin", "--values-out", values_out};
      args.insert(args.end(), extra.begin(), extra.end());
      CAPTURE(show(args));
      check_usage_error(dir.run(with_globals(args)), {"same file"});
      CHECK(!fs::exists(dir / "out.bin"));
      CHECK(read_text(dir / "old.bin") == "old contents");
    }
  }
}

// A symbolic link as OUTPUT is kept and the file it names replaced (renaming over the link turned it
// into a plain file); an output that is no regular file (a pipe, /dev/null, /dev/stdout) is written
// straight through (a temporary file and a rename replaced /dev/stdout itself when run as root, and
// failed in /dev for anyone else).
TEST_CASE("cli: sort writes through symbolic links and into pipes and devices") {
  TempDir dir;
  const auto keys = workloads::generate_keys(Key::u32, workloads::default_spec(workloads::Distribution::uniform), 5000, 5);
  std::vector<std::byte> sorted = keys;
  workloads::reference_sort(Key::u32, Order::ascending, sorted, {});
  write_bytes(dir / "keys.bin", keys);
  auto is_link = [](const fs::path& p) { return fs::is_symlink(fs::symlink_status(p)); };
  // A chain of two links to an existing file, and a dangling link whose file does not exist yet.
  write_text(dir / "target.bin", "old");
  fs::create_symlink("target.bin", dir.work() / "link1");
  fs::create_symlink("link1", dir.work() / "link2");
  fs::create_symlink("later.bin", dir.work() / "dangling");
  for (const char* out : {"link2", "dangling"}) {
    CAPTURE(out);
    const Run r = dir.run(with_globals({"sort", dir / "keys.bin", dir / out}));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(is_link(dir / out));
  }
  CHECK(is_link(dir / "link1"));
  CHECK(read_bytes(dir / "target.bin") == sorted);
  CHECK(read_bytes(dir / "later.bin") == sorted);
  // Out of core too (the library writes through the same writer).
  fs::remove(dir / "later.bin");
  const Run ooc = dir.run(with_globals({"sort", dir / "keys.bin", dir / "dangling", "--memory", "8k"}));
  REQUIRE_MESSAGE(ooc.code == 0, ooc.err);
  CHECK(is_link(dir / "dangling"));
  CHECK(read_bytes(dir / "later.bin") == sorted);
  // A loop of links is refused (ELOOP), not broken by a plain file in the place of its last link.
  fs::create_symlink("loop2", dir.work() / "loop1");
  fs::create_symlink("loop1", dir.work() / "loop2");
  for (const std::vector<std::string>& extra : {std::vector<std::string>{}, std::vector<std::string>{"--memory", "8k"}}) {
    std::vector<std::string> args = {"sort", dir / "keys.bin", dir / "loop1"};
    args.insert(args.end(), extra.begin(), extra.end());
    CAPTURE(show(args));
    check_usage_error(dir.run(with_globals(args)), {"loop1", "Too many levels of symbolic links"});
    CHECK(is_link(dir / "loop1"));
    CHECK(is_link(dir / "loop2"));
  }

  // A named pipe, read while vksort writes it (keys, and values to a second pipe).
  REQUIRE(mkfifo((dir / "keys.fifo").c_str(), 0600) == 0);
  std::string from_pipe;
  std::thread reader([&] {
    std::ifstream in(dir / "keys.fifo", std::ios::binary);
    from_pipe.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  });
  const Run piped = dir.run(with_globals({"sort", dir / "keys.bin", dir / "keys.fifo"}));
  reader.join();
  REQUIRE_MESSAGE(piped.code == 0, piped.err);
  CHECK(from_pipe.size() == sorted.size());
  CHECK(std::memcmp(from_pipe.data(), sorted.data(), std::min(from_pipe.size(), sorted.size())) == 0);
  CHECK((fs::status(dir / "keys.fifo").type() == fs::file_type::fifo));
  // A pipe as INPUT too large for the device goes out of core as a file does, from a spool file (it was
  // refused, exit 2, whichever allocation found it: a pipe cannot be read twice).
  for (const char* memory : {"20k", "40k"}) {
    CAPTURE(memory);
    const auto many = workloads::generate_keys(Key::f64, workloads::default_spec(workloads::Distribution::uniform), 3000, 7);
    fs::remove(dir / "in.fifo");
    REQUIRE(mkfifo((dir / "in.fifo").c_str(), 0600) == 0);
    std::thread writer([&] {
      std::ofstream to(dir / "in.fifo", std::ios::binary);
      to.write(reinterpret_cast<const char*>(many.data()), std::streamsize(many.size()));
    });
    const Run big = dir.run(with_globals({"sort", "--type", "f64", "--device-memory", memory, "-v", dir / "in.fifo", dir / "big.bin"}));
    writer.join();
    REQUIRE_MESSAGE(big.code == 0, big.err);
    CHECK_MESSAGE(big.out.find("out of core") != std::string::npos, big.out);
    std::vector<std::byte> want = many;
    workloads::reference_sort(Key::f64, Order::ascending, want, {});
    CHECK(read_bytes(dir / "big.bin") == want);
    fs::remove(dir / "big.bin");
  }
  // /dev/null takes it and stays a device.
  const Run null = dir.run(with_globals({"sort", dir / "keys.bin", "/dev/null"}));
  REQUIRE_MESSAGE(null.code == 0, null.err);
  CHECK((fs::status("/dev/null").type() == fs::file_type::character));
}

TEST_CASE("cli: bench with tiny sizes prints a checked table") {
  TempDir dir;
  const std::vector<std::string> args = {"bench", "--n", "1000,2^10+1", "--dist", "uniform,special", "--type", "u32,f64",
                                         "--values", "--repeat", "2", "--json", dir / "bench.json"};
  const Run r = dir.run(with_globals(args));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.err.empty());
  std::istringstream lines(r.out);
  std::string line, header;
  int rows = 0;
  std::set<std::string> seen;
  const Device& device = test::device();
  bool in_table = false;
  int details = 0;
  while (std::getline(lines, line)) {
    // The table, its header text and each case's detail line fit a 160-column terminal.
    CHECK_MESSAGE(line.size() <= 160, line.size() << " columns: " << line);
    if (line.starts_with("algo ")) header = line;
    if (line.starts_with("----")) in_table = true;
    if (!in_table || line.starts_with("----")) continue;
    if (line.starts_with("      ")) continue;  // a detail line's wrapped continuation
    if (line.starts_with("    ")) {             // under each case: its phases and facts
      ++details;
      CHECK(line.starts_with("    phases ms: "));
      CHECK(r.out.find("facts: ", r.out.find(line)) != std::string::npos);
      continue;
    }
    ++rows;
    std::istringstream cells(line);
    std::string algo, type, order, dist, n;
    cells >> algo >> type >> order >> dist >> n;
    seen.insert(type + " " + dist + " " + n);
    CHECK(order == "ascending");
    if (device.info().timestamps) {
      const auto cell = gpu_cell(line);
      REQUIRE_MESSAGE(cell.has_value(), line);
      const auto [median, lo, hi] = *cell;
      CHECK(lo <= median);
      CHECK(median <= hi);
      CHECK(hi > 0);
    } else {
      CHECK(line.find("n/a") != std::string::npos);
    }
  }
  CHECK(header.find("GPU ms median (min..max)") != std::string::npos);
  CHECK(header.find("Mkeys/s") != std::string::npos);
  CHECK(header.find("vs std::sort") != std::string::npos);
  CHECK(r.out.find("; CPU ms: std::sort ") != std::string::npos);
  CHECK(rows == 8);
  CHECK(details == rows);
  for (const char* type : {"u32+values", "f64+values"})
    for (const char* dist : {"uniform", "special"})
      for (const char* n : {"1000", "1025"}) CHECK_MESSAGE(seen.count(std::string(type) + " " + dist + " " + n), type << " " << dist << " " << n);
  const std::string json = read_text(dir / "bench.json");
  CHECK(json.starts_with("{"));
  CHECK(json.find("\"results\"") != std::string::npos);
  CHECK(json.find("\"n\": 1025") != std::string::npos);
}

// The CSV as rows of fields (RFC 4180 quoting), for the tests below.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field), field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field), field.clear();
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  REQUIRE_MESSAGE(rows.back().empty(), "the CSV must end with a line break");
  rows.pop_back();
  return rows;
}

TEST_CASE("cli: bench --format csv and json carry every field, roofline and all three CPU baselines") {
  TempDir dir;
  const bool timed = test::device().info().timestamps;
  const std::vector<std::string> common = {"bench", "--n", "3000", "--dist", "uniform,sorted", "--algo", "radix,brick",
                                           "--type", "i64", "--values", "--repeat", "2"};

  SUBCASE("csv on stdout replaces the table") {
    std::vector<std::string> args = common;
    args.insert(args.end(), {"--format", "csv"});
    const Run r = dir.run(with_globals(args));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(r.err.empty());  // no progress bar: stderr is not a terminal
    const auto rows = parse_csv(r.out);
    REQUIRE(rows.size() == 1 + 4);
    const auto& header = rows[0];
    for (const char* column : {"device", "git_commit", "algorithm", "key", "order", "values", "distribution", "n", "bytes",
                               "gpu_ms_median", "gpu_ms_min", "gpu_ms_max", "mkeys_per_s", "copy_ms", "roofline_fraction",
                               "cpu_std_sort_ms", "cpu_std_stable_sort_ms", "cpu_lsd_radix_ms", "phase_pass_ms",
                               "phase_tile_sort_ms", "fact_tile"})
      CHECK_MESSAGE(std::find(header.begin(), header.end(), column) != header.end(), column);
    auto col = [&](const char* name) { return size_t(std::find(header.begin(), header.end(), name) - header.begin()); };
    std::set<std::string> algos;
    for (size_t i = 1; i < rows.size(); ++i) {
      const auto& row = rows[i];
      REQUIRE(row.size() == header.size());
      algos.insert(row[col("algorithm")]);
      CHECK(row[col("key")] == "i64");
      CHECK(row[col("values")] == "1");
      CHECK(row[col("n")] == "3000");
      CHECK(row[col("bytes")] == "36000");  // 8-byte keys + 4-byte values
      CHECK(std::stod(row[col("cpu_lsd_radix_ms")]) >= 0);
      if (timed) {
        CHECK(std::stod(row[col("gpu_ms_min")]) <= std::stod(row[col("gpu_ms_median")]));
        const double roof = std::stod(row[col("roofline_fraction")]);
        CHECK(roof > 0);
        CHECK(roof == doctest::Approx(std::stod(row[col("copy_ms")]) / std::stod(row[col("gpu_ms_median")])).epsilon(1e-3));
      }
    }
    CHECK(algos == std::set<std::string>{"radix", "brick/blocks"});
  }

  SUBCASE("json to --out keeps the table on stdout") {
    std::vector<std::string> args = common;
    args.insert(args.end(), {"--out", dir / "r.json"});
    const Run r = dir.run(with_globals(args));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(r.out.find("copy%") != std::string::npos);
    CHECK(r.out.find("vs stable") != std::string::npos);
    const auto doc = nlohmann::json::parse(read_text(dir / "r.json"));
    CHECK(doc["vksort_version"] == std::string(version()));
    CHECK(!doc["git_commit"].get<std::string>().empty());
    CHECK(doc["command_line"].get<std::string>().find("--out") != std::string::npos);
  }

  SUBCASE("the JSON's command line is quoted as a shell reads it") {
    // It joined the words with spaces: `--out "it's a.json"` could not be read back as one word.
    std::vector<std::string> args = common;
    args.insert(args.end(), {"--out", dir / "it's a.json"});
    const Run r = dir.run(with_globals(args));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const auto doc = nlohmann::json::parse(read_text(dir / "it's a.json"));
    const std::string line = doc["command_line"].get<std::string>();
    CHECK_MESSAGE(line.find(" --out '" + (dir / "it") + "'\\''s a.json'") != std::string::npos, line);
    CHECK_MESSAGE(line.find(" --n ") != std::string::npos, line);  // plain words stay as they are
    for (const char* field : {"name", "vendor_id", "uuid", "driver_name", "driver_version", "subgroup_size", "max_shared_memory",
                              "max_workgroup_invocations", "max_workgroup_count", "max_storage_buffer_range"})
      CHECK_MESSAGE(doc["device"].contains(field), field);
    CHECK(doc["device"]["name"] == test::device().info().name);
    REQUIRE(doc["results"].size() == 4);
    for (const auto& c : doc["results"]) {
      for (const char* field : {"algorithm", "key", "order", "values", "distribution", "n", "bytes", "gpu_ms", "mkeys_per_s",
                                "copy_ms", "warmup_runs", "roofline_fraction", "phases_ms", "facts", "cpu_ms"})
        CHECK_MESSAGE(c.contains(field), field);
      CHECK(c["warmup_runs"] == 1);  // --warmup's default, no --warmup-ms
      for (const char* cpu : {"std::sort", "std::stable_sort", "lsd_radix"}) {
        REQUIRE_MESSAGE(c["cpu_ms"].contains(cpu), cpu);
        CHECK(c["cpu_ms"][cpu]["runs"].size() == 2);
      }
      if (timed) {
        CHECK(c["gpu_ms"]["runs"].size() == 2);
        CHECK(c["roofline_fraction"].get<double>() > 0);
      }
    }
  }

  SUBCASE("bad format and file names are usage errors, nothing written") {
    for (const auto& extra : std::vector<std::vector<std::string>>{{"--format", "xml"},
                                                                   {"--out", dir / "r.txt"},
                                                                   {"--format", "table", "--out", dir / "r.csv"}}) {
      std::vector<std::string> args = common;
      args.insert(args.end(), extra.begin(), extra.end());
      CAPTURE(show(args));
      check_usage_error(dir.run(with_globals(args)), {extra[0]});
    }
    CHECK(dir.listing().empty());
  }
}

// Warm-ups: at least --warmup sorts, and more until --warmup-ms have passed since the first of them,
// with the input on the host or resident on the GPU; the JSON says how many ran.
TEST_CASE("cli: bench --warmup and --warmup-ms, with and without --resident") {
  TempDir dir;
  for (const bool resident : {false, true}) {
    for (const auto& [warmup, warmup_ms] : {std::pair<int, int>{3, 0}, std::pair<int, int>{1, 400}}) {
      std::vector<std::string> args = {"bench", "--n", "2000", "--dist", "uniform", "--algo", "radix", "--repeat", "2",
                                       "--no-cpu", "--warmup", std::to_string(warmup), "--warmup-ms", std::to_string(warmup_ms),
                                       "--format", "json", "--out", dir / "w.json"};
      if (resident) args.push_back("--resident");
      CAPTURE(show(args));
      const Run r = dir.run(with_globals(args));
      REQUIRE_MESSAGE(r.code == 0, r.err);
      const auto doc = nlohmann::json::parse(read_text(dir / "w.json"));
      REQUIRE(doc["results"].size() == 1);
      const auto& c = doc["results"][0];
      if (warmup_ms == 0) {
        CHECK(c["warmup_runs"] == warmup);
      } else {
        // 400 ms of sorts of 2000 keys are many sorts on any device (lavapipe: a few ms each).
        CHECK(c["warmup_runs"].get<int64_t>() > 1);
      }
      if (test::device().info().timestamps) CHECK(c["gpu_ms"]["runs"].size() == 2);
    }
  }
}

// --phase-clocks: the single pass's phase shares in the table ("clocks: ...") and as facts in the JSON,
// summing to 1; without it, neither. A device without the shader clock refuses it (an error, exit 1).
TEST_CASE("cli: bench --phase-clocks reports the single pass's phase shares") {
  TempDir dir;
  for (const bool clocks : {true, false}) {
    std::vector<std::string> args = {"bench", "--n", "5000", "--dist", "uniform", "--algo", "radix", "--radix-scan",
                                     "single-pass", "--repeat", "1", "--no-cpu", "--json", dir / "c.json"};
    if (clocks) args.push_back("--phase-clocks");
    CAPTURE(show(args));
    const Run r = dir.run(with_globals(args));
    if (clocks && r.code != 0 && r.err.find("VK_KHR_shader_clock") != std::string::npos) {
      CHECK(r.code == 1);
      test::skip("the device has no shader clock: " + r.err);
      continue;
    }
    REQUIRE_MESSAGE(r.code == 0, r.err);
    // The table wraps its detail lines: read them as one.
    std::string table;
    for (char c : r.out)
      if (c == '\n') table += ' ';
      else if (c != ' ' || table.empty() || table.back() != ' ') table += c;
    CHECK((table.find("; clocks: take_tile ") != std::string::npos) == clocks);
    CHECK((table.find(" ticks/tile") != std::string::npos) == clocks);
    CHECK((table.find("; histogram clocks: clear ") != std::string::npos) == clocks);
    const auto doc = nlohmann::json::parse(read_text(dir / "c.json"));
    REQUIRE(doc["results"].size() == 1);
    const auto& facts = doc["results"][0]["facts"];
    double sum = 0;
    for (const char* phase : {"take_tile", "load_count", "offsets", "rank", "look_back", "stage", "write"}) {
      const std::string name = std::string("clock_share_") + phase;
      CHECK_MESSAGE(facts.contains(name) == clocks, name);
      if (facts.contains(name)) sum += facts[name].get<double>();
    }
    if (clocks) {
      CHECK(sum == doctest::Approx(1.0));
      CHECK(facts["clock_ticks_per_tile"].get<double>() > 0);
      CHECK(facts["histogram_clock_blocks"].get<double>() >= 1);
    }
  }
}

// Records: every algorithm checked against the CPU reference, copy% over the bytes really moved (keys
// and whole records), the gather's share as a phase, the CPU baselines doing the same two steps.
TEST_CASE("cli: bench --value-bytes times record sorts with their real bytes") {
  TempDir dir;
  const Run r = dir.run(with_globals({"bench", "--n", "3000", "--dist", "uniform,few_unique", "--algo", "radix,brick,sample,auto",
                                      "--value-bytes", "20", "--repeat", "1", "--format", "csv"}));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const auto rows = parse_csv(r.out);
  REQUIRE(rows.size() == 1 + 8);
  const auto& header = rows[0];
  auto col = [&](const char* name) {
    const size_t i = size_t(std::find(header.begin(), header.end(), name) - header.begin());
    REQUIRE_MESSAGE(i < header.size(), name);
    return i;
  };
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    REQUIRE(row.size() == header.size());
    CHECK(row[col("values")] == "1");
    CHECK(row[col("value_bytes")] == "20");
    CHECK(row[col("bytes")] == "72000");  // 3000 x (4-byte key + 20-byte record)
    CHECK(std::stod(row[col("cpu_std_stable_sort_ms")]) >= 0);
    if (test::device().info().timestamps) CHECK(std::stod(row[col("phase_gather_ms")]) > 0);
  }
  // The table names the record size with the key type.
  const Run t = dir.run(with_globals({"bench", "--n", "1000", "--algo", "radix", "--value-bytes", "64", "--repeat", "1"}));
  REQUIRE_MESSAGE(t.code == 0, t.err);
  CHECK(t.out.find("u32+64B") != std::string::npos);
}

// The radix facts describe the whole recording at every value width, on both paths: records (values
// wider than 4 bytes) sort (key, index) pairs between a stage and a gather, which the facts count.
// 32-bit keys in 8-bit digits: 4 passes. What is recorded (radix_onesweep.cpp, radix_sort.cpp,
// record_gather.cpp):
//   single pass:      init, histogram, plan, 4 passes, finish         = 8 dispatches, a barrier after
//                     each but the last                                = 7 barriers; CPU drivers'
//                     histogram columns read the keys once per two passes (histogram_column_passes),
//                     a dispatch per read                              = +1 dispatch, +1 barrier
//   reduce-then-scan: init, 4 x (count, spine, scatter), finish        = 14 dispatches, 13 barriers
//   records, either:  + stage (index_fill, copy; barrier), + (barrier; gather)
//                                                                      = +3 dispatches, +2 barriers
// A 4-byte value travels through the passes itself: as many dispatches as keys alone. Bytes per key:
// the single pass reads the keys for its histogram (4 per read), then per pass reads them (twice with counter
// columns), writes them, and reads and writes the value (4 + 4); reduce-then-scan per pass reads the
// keys twice, writes them, moves the value, plus its spine and columns (a fraction of a byte per key
// that depends on the block, so only compared). A 16-byte record adds its index written and read
// (8) and the record read and written by the copy and by the gather (4 x 16): 72 over the index's
// 4-byte value sort, which the same inner sort carries.
TEST_CASE("cli: bench's radix facts count the record staging and gather: dispatches, barriers, bytes per key") {
  TempDir dir;
  auto facts_of = [&](const char* scan, const std::vector<std::string>& values) {
    std::vector<std::string> args = {"bench", "--algo", "radix", "--type", "u32", "--radix-scan", scan, "--radix-bits", "8",
                                     "--n", "4096", "--dist", "uniform", "--repeat", "1", "--warmup", "0", "--no-cpu",
                                     "--format", "json"};
    args.insert(args.end(), values.begin(), values.end());
    CAPTURE(show(args));
    const Run r = dir.run(with_globals(args));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const auto doc = nlohmann::json::parse(r.out);
    REQUIRE(doc["results"].size() == 1);
    const auto& f = doc["results"][0]["facts"];
    std::map<std::string, double> got;
    for (const char* name : {"single_pass", "ranking_columns", "ranking_ballot", "ranking_match", "passes_recorded", "dispatches",
                             "global_barriers", "bytes_per_key"}) {
      REQUIRE_MESSAGE(f.contains(name), name);
      got[name] = f[name].get<double>();
    }
    if (scan == std::string("single-pass")) {
      REQUIRE(f.contains("histogram_column_passes"));
      got["histogram_column_passes"] = f["histogram_column_passes"].get<double>();
    }
    return got;
  };
  const std::vector<std::vector<std::string>> widths = {{}, {"--value-bytes", "4"}, {"--value-bytes", "16"}};
  for (const bool single_pass : {true, false}) {
    const char* scan = single_pass ? "single-pass" : "reduce-then-scan";
    std::vector<std::map<std::string, double>> runs;
    for (const auto& values : widths) runs.push_back(facts_of(scan, values));
    for (size_t w = 0; w < runs.size(); ++w) {
      auto& f = runs[w];
      CAPTURE(scan);
      CAPTURE(w);
      CHECK(f["single_pass"] == (single_pass ? 1 : 0));
      CHECK(f["passes_recorded"] == 4);
      // One ranking ran: the single pass's columns, ballot or match; reduce-then-scan's columns or splits.
      if (single_pass) CHECK(f["ranking_columns"] + f["ranking_ballot"] + f["ranking_match"] == 1);
      else CHECK(f["ranking_ballot"] + f["ranking_match"] == 0);
      const double records = w == 2 ? 1 : 0;
      const double reads = !single_pass || f["histogram_column_passes"] == 0 ? 1 : 4 / f["histogram_column_passes"];
      CHECK(f["dispatches"] == (single_pass ? 7 + reads : 14) + 3 * records);
      CHECK(f["global_barriers"] == (single_pass ? 6 + reads : 13) + 2 * records);
      if (single_pass) {
        const double value = w == 0 ? 0 : 4, columns = f["ranking_columns"];
        CHECK(f["bytes_per_key"] == 4 * reads + 4 * ((columns ? 8 : 4) + 4 + 2 * value) + 72 * records);
      }
    }
    // More per key at each width: keys alone, a 4-byte value, a 16-byte record (its index sorted as
    // the 4-byte value is, so exactly the stage and gather more).
    CHECK(runs[1]["bytes_per_key"] > runs[0]["bytes_per_key"]);
    CHECK(runs[2]["bytes_per_key"] == doctest::Approx(runs[1]["bytes_per_key"] + 72));
    CHECK(runs[1]["dispatches"] == runs[0]["dispatches"]);
    CHECK(runs[2]["dispatches"] > runs[1]["dispatches"]);
  }
}

TEST_CASE("cli: bench shows a progress bar with time left on a terminal, and erases it") {
  TempDir dir;
  const Run r = dir.run(with_globals({"bench", "--n", "2000,3000,4000", "--dist", "uniform", "--repeat", "1"}), {}, true);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  for (const char* needle : {"[", "%", " left", "#3 ", "n=4000"})
    CHECK_MESSAGE(r.err.find(needle) != std::string::npos, needle << " missing in: " << r.err);
  // Each update overwrites the last; the final erase leaves the cursor at the start of an empty line.
  CHECK(r.err.back() == '\r');
  CHECK(r.err.find('\n') == std::string::npos);
  CHECK(r.out.find("n=") == std::string::npos);  // the bar never reaches stdout
}

TEST_CASE("cli: bench-buckets runs Tables 1-3 with checked lists, and refuses bad input") {
  TempDir dir;
  const bool timed = test::device().info().timestamps;
  const Run r = dir.run(with_globals({"bench-buckets", "--n", "3000,2^12+1", "--per-bucket", "1,16", "--moved", "0,50",
                                      "--parts", "1,auto", "--repeat", "1", "--format", "json", "--json", dir / "b.json"}));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.err.empty());
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc == nlohmann::json::parse(read_text(dir / "b.json")));
  std::map<int, int> rows;
  for (const auto& c : doc["results"]) {
    ++rows[c["table"].get<int>()];
    const uint64_t n = c["n"], m = c["buckets"];
    CHECK((n == 3000 || n == 4097));
    if (c["table"] == 1) CHECK((m == n || m == n / 16));
    else CHECK(m == n / 4);
    if (timed) CHECK(c["gpu_ms"]["median"].get<double>() > 0);
    const std::string op = c["op"];
    if (op == "build" && c["parts"] == "1") CHECK(c["iterations"].get<double>() >= 1);
    if (c["table"] != 1 && timed) CHECK(c["vs_build"].is_number());
    // Above the library's default share (0.35), resorts build.
    if (op == "resort")
      CHECK(c["rebuilt"] == (c["moved_percent"].get<double>() > 100 * doc["rebuild_above"].get<double>()));
  }
  CHECK(rows[1] == 2 * 2 * 2);      // sizes x per-bucket x parts
  CHECK(rows[2] == 2 * (1 + 2));    // sizes x (build + resorts)
  CHECK(rows[3] == 2 * 4);          // sizes x (build, resort 2%, sort build, radix pairs)

  // Chained resorts (each after a resort back) check their lists and moved counts the same way.
  const Run chained = dir.run(with_globals({"bench-buckets", "--n", "3000", "--tables", "2", "--moved", "0,2,100",
                                            "--chained", "--repeat", "2", "--format", "json"}));
  REQUIRE_MESSAGE(chained.code == 0, chained.err);
  const auto chained_doc = nlohmann::json::parse(chained.out);
  CHECK(chained_doc["chained"] == true);
  CHECK(chained_doc["results"].size() == 4);

  const Run corrupt = dir.run(with_globals({"bench-buckets", "--n", "1000", "--tables", "2", "--repeat", "1"}),
                              {"VKSORT_BENCH_TEST_CORRUPT=1"});
  CHECK(corrupt.code == 1);
  CHECK(corrupt.err.find("built wrong lists") != std::string::npos);

  const std::vector<std::vector<std::string>> bad = {{"--tables", "4"}, {"--moved", "150"}, {"--parts", "0"},
                                                     {"--per-bucket", "x"}, {"--n", "0"}, {"--format", "xml"},
                                                     {"--grid-per-bucket", "0"}, {"--rebuild-above", "-1"},
                                                     {"--rebuild-above", "nan"}, {"--grid-per-bucket", "nan"},
                                                     // The ids take 32-bit seeds: this ran seed 1's, labelled 2^32 + 1.
                                                     {"--seed", "4294967297"},
                                                     // 5 * 2^30 buckets wrapped in 32 bits (exit 1 after allocating).
                                                     {"--per-bucket", "0.001", "--tables", "1", "--n", "5M"},
                                                     // One bucket, where a resort moves nothing: rows said "50%" (exit 0).
                                                     {"--grid-per-bucket", "60"}};
  for (const auto& b : bad) {
    std::vector<std::string> args = {"bench-buckets", "--n", "100", "--repeat", "1"};
    args.insert(args.end(), b.begin(), b.end());
    CAPTURE(show(args));
    check_usage_error(dir.run(with_globals(args)), {b[0]});
  }
  check_usage_error(dir.run(with_globals({"bench", "--algo", "buckets"})), {"bench-buckets"});
}

#ifdef VKSORT_CLI_SPLAT
TEST_CASE("cli: bench-splat culls and sorts splat frames on the GPU, checks every frame, reports cull and sort apart") {
  TempDir dir;
  const bool timed = test::device().info().timestamps;
  const Run r = dir.run(with_globals({"bench-splat", "--n", "20000,2^12+1", "--frames", "2", "--format", "json", "--json",
                                      dir / "s.json"}));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.err.empty());
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc == nlohmann::json::parse(read_text(dir / "s.json")));
  CHECK(doc["frames"] == 2);
  CHECK(doc["warmup"] == 1);
  CHECK(doc["device"]["name"] == test::device().info().name);
  REQUIRE(doc["results"].size() == 2);
  const uint64_t sizes[] = {20000, 4097};
  for (size_t i = 0; i < 2; ++i) {
    const auto& c = doc["results"][i];
    CAPTURE(c.dump());
    CHECK(c["splats"] == sizes[i]);
    // 1920x1080 pixels in 16x16 tiles: 120 x 68 = 8160 tiles, 13 bits above the 32 of depth.
    CHECK(c["tiles"] == 8160);
    CHECK(c["end_bit"] == 45);
    CHECK(c["checked_frames"] == 3);
    // The camera sees most of the cube, not all of it: the count is the GPU's own.
    const double visible = c["visible"]["median"];
    CHECK(visible > 0.5 * double(sizes[i]));
    CHECK(visible < double(sizes[i]));
    if (!timed) continue;
    const auto cull = c["cull_ms"]["runs"], sort = c["sort_ms"]["runs"], frame = c["frame_ms"]["runs"];
    REQUIRE(cull.size() == 2);
    REQUIRE(sort.size() == 2);
    REQUIRE(frame.size() == 2);
    for (size_t f = 0; f < 2; ++f) {
      CHECK(cull[f].get<double>() > 0);
      CHECK(sort[f].get<double>() > 0);
      CHECK(frame[f].get<double>() == doctest::Approx(cull[f].get<double>() + sort[f].get<double>()));
    }
  }

  // A small camera: 64x48 pixels are 4 x 3 tiles, so the sort needs only 4 bits above the depth's 32.
  const Run small = dir.run(with_globals({"bench-splat", "--n", "5000", "--frames", "1", "--width", "64", "--height", "48"}));
  REQUIRE_MESSAGE(small.code == 0, small.err);
  CHECK(small.out.find("bench-splat on") != std::string::npos);
  CHECK(small.out.find("[0, 36)") != std::string::npos);
  const Run csv = dir.run(with_globals({"bench-splat", "--n", "3000", "--frames", "1", "--format", "csv"}));
  REQUIRE_MESSAGE(csv.code == 0, csv.err);
  CHECK(csv.out.starts_with("device,git_commit,splats,visible_median,tiles,end_bit,cull_ms_median"));
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 2);
}

TEST_CASE("cli: bench-splat refuses bad input with exit 2 before any device work") {
  TempDir dir;
  struct Bad {
    std::vector<std::string> args;
    std::vector<std::string> needles;
  };
  const std::vector<Bad> cases = {
      {{"--n", "0"}, {"--n", "at least 1"}},
      {{"--n", "many"}, {"--n", "many"}},
      {{"--n", "2^30"}, {"splats", "2^30 - 1"}},
      {{"--frames", "0"}, {"--frames"}},
      {{"--frames", "x"}, {"--frames"}},
      {{"--width", "0"}, {"width 0"}},
      {{"--height", "70000"}, {"height 70000", "65536"}},
      {{"--width", "-3"}, {"--width", "-3"}},
      {{"--format", "xml"}, {"--format", "xml"}},
      {{"--json", dir / "nodir/s.json"}, {"nodir"}},
  };
  for (const Bad& c : cases) {
    std::vector<std::string> args = {"bench-splat", "--n", "100", "--frames", "1"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    CAPTURE(show(args));
    check_usage_error(dir.run(with_globals(args)), c.needles);
  }
  CHECK(dir.listing().empty());
}
#else
TEST_CASE("cli: bench-splat says this build has no splat workload") {
  TempDir dir;
  check_usage_error(dir.run({"bench-splat", "--n", "100"}), {"bench-splat", "libvulkan-dev"});
}
#endif

TEST_CASE("cli: tune measures, saves a profile that info shows and bench --algo auto follows") {
  TempDir dir;
  const std::string cache = dir / "cache";
  const std::vector<std::string> env = {"VKSORT_CACHE_DIR=" + cache};
  const Run r = dir.run(with_globals({"tune", "--max-n", "2^14", "--repeat", "1"}), env);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  for (const char* needle : {"brick ms", "radix ms", "sample ms", "fastest", "64-bit keys + values", "Saved to " })
    CHECK_MESSAGE(r.out.find(needle) != std::string::npos, needle << " missing in: " << r.out);
  // Exactly one profile file in the cache, and it parses.
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(cache)) files.push_back(e.path());
  REQUIRE(files.size() == 1);
  const AutoProfile saved = AutoProfile::parse(read_text(files[0]), files[0].string());
  CHECK(r.out.find(files[0].string()) != std::string::npos);
  // The digit width was calibrated for every kind of sort (4 or 8 bits measured at the largest size).
  CHECK(r.out.find("Radix sort digits at n = 16384") != std::string::npos);
  for (int w = 0; w < 2; ++w)
    for (int v = 0; v < 2; ++v) CHECK((saved.crossovers[w][v].radix_bits == 4 || saved.crossovers[w][v].radix_bits == 8));
  // A CPU driver's radix sort is reduce-then-scan: no single-pass shapes (the next case poses as a GPU).
  if (test::device().info().type == "cpu") {
    CHECK(r.out.find("Single-pass shapes: not measured") != std::string::npos);
    for (int w = 0; w < 2; ++w)
      for (int v = 0; v < 2; ++v) CHECK(saved.crossovers[w][v].single_pass_workgroup == 0);
  }

  // Every row of the table names the fastest of the times it shows (as printed: rounding may tie).
  std::istringstream lines(r.out);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) {
    if (!line.starts_with("32-bit") && !line.starts_with("64-bit")) continue;
    // "<sort name with spaces>  n  brick  radix  sample  fastest", read from the right.
    std::vector<std::string> words;
    std::istringstream in(line);
    for (std::string w; in >> w;) words.push_back(w);
    REQUIRE(words.size() >= 6);
    const std::string fastest = words.back();
    const std::string times[3] = {words[words.size() - 4], words[words.size() - 3], words[words.size() - 2]};
    const char* names[3] = {"brick", "radix", "sample"};
    double best = 1e300, named = -1;
    for (int i = 0; i < 3; ++i) {
      if (times[i] == "-") continue;
      best = std::min(best, std::stod(times[i]));
      if (fastest == names[i]) named = std::stod(times[i]);
    }
    CHECK_MESSAGE(named == best, line);
    ++rows;
  }
  CHECK(rows == 4 * 7);  // 4 kinds x sizes 256 .. 2^14

  const Run info = dir.run(with_globals({"info"}), env);
  REQUIRE_MESSAGE(info.code == 0, info.err);
  CHECK(info.out.find(std::string("profile: ").append(files[0].string())) != std::string::npos);

  // bench --algo auto labels each size with what the saved profile chooses there.
  const uint64_t small = 256, large = 1 << 14;
  const Run b = dir.run(with_globals({"bench", "--algo", "auto", "--n", std::to_string(small) + "," + std::to_string(large),
                                      "--dist", "uniform", "--repeat", "1", "--format", "csv"}), env);
  REQUIRE_MESSAGE(b.code == 0, b.err);
  const uint32_t brick_tile = Sorter(test::device(), {.algorithm = Algorithm::brick}).tile_size();
  auto expect = [&](uint64_t n) {
    const Algorithm a = saved.choose(Key::u32, false, n, brick_tile);
    std::string row(",auto=");
    row.append(to_string(a)).append(a == Algorithm::brick ? "/blocks" : "").append(",u32,ascending,0,uniform,");
    return row.append(std::to_string(n)).append(",");
  };
  CHECK_MESSAGE(b.out.find(expect(small)) != std::string::npos, b.out);
  CHECK_MESSAGE(b.out.find(expect(large)) != std::string::npos, b.out);

  // --dry-run saves nothing; --out writes elsewhere; a bad --out is refused before measuring.
  fs::remove_all(cache);
  const Run dry = dir.run(with_globals({"tune", "--max-n", "512", "--repeat", "1", "--dry-run"}), env);
  REQUIRE_MESSAGE(dry.code == 0, dry.err);
  CHECK(dry.out.find("vksort-auto-profile 1") != std::string::npos);
  CHECK(!fs::exists(cache));
  const Run out = dir.run(with_globals({"tune", "--max-n", "512", "--repeat", "1", "--out", dir / "p.txt"}), env);
  REQUIRE_MESSAGE(out.code == 0, out.err);
  CHECK_NOTHROW(AutoProfile::parse(read_text(dir / "p.txt"), "p.txt"));
  // An --out file is no profile every Device reads (it said "used by every vksort::Device").
  CHECK_MESSAGE(out.out.find("not the profile every vksort::Device reads") != std::string::npos, out.out);
  CHECK(out.out.find("never (0)") == std::string::npos);
  check_usage_error(dir.run(with_globals({"tune", "--max-n", "512", "--out", dir / "no/such/dir/p.txt"}), env), {"--out"});
  // So is a cache folder that cannot take the profile: it failed only after every measurement (exit 1).
  write_text(dir / "a_file", "not a folder");
  const Run no_cache = dir.run(with_globals({"tune", "--max-n", "512", "--repeat", "1"}), {"VKSORT_CACHE_DIR=" + dir / "a_file/cache"});
  check_usage_error(no_cache, {"a_file/cache", "--out"});
  CHECK_MESSAGE(no_cache.out.find("brick ms") == std::string::npos, "measured before refusing: " << no_cache.out);
  // --out with --dry-run was ignored (exit 0, nothing written), where other ignored options are refused.
  check_usage_error(dir.run(with_globals({"tune", "--dry-run", "--out", dir / "dry.txt"}), env), {"--out with --dry-run"});
  CHECK(!fs::exists(dir / "dry.txt"));
  check_usage_error(dir.run(with_globals({"tune", "--max-n", "100"}), env), {"--max-n"});
  check_usage_error(dir.run(with_globals({"tune", "--max-n", "0"}), env), {"--max-n: 0"});
  check_usage_error(dir.run(with_globals({"tune", "--max-n", "lots"}), env), {"--max-n: 'lots'"});
}

// Where radix sort takes the single pass ranking by subgroup ballots (GPUs; here lavapipe posing as one,
// VKSORT_PRETEND_GPU=1), tune times its shapes per kind beside the built-in one and saves the fastest
// unless that is the built-in; a radix sort that leaves the shape to the device then takes it.
TEST_CASE("cli: tune times the single pass's shapes on GPUs, and radix sorts take the saved one") {
  const DeviceInfo& info = test::device().info();
  if (!info.subgroup_ballot || !info.subgroup_shuffle || info.subgroup_size == 0) {
    test::skip("the device has no subgroup ballot: the single pass ranks by columns, whose shape tune leaves");
    return;
  }
  TempDir dir;
  const std::string cache = dir / "cache";
  const std::vector<std::string> env = {"VKSORT_CACHE_DIR=" + cache, "VKSORT_PRETEND_GPU=1"};
  const Run r = dir.run(with_globals({"tune", "--max-n", "512", "--repeat", "1"}), env);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  REQUIRE_MESSAGE(r.out.find("Single-pass shapes (workgroup x keys per invocation) at n = 512:") != std::string::npos, r.out);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(cache)) files.push_back(e.path());
  REQUIRE(files.size() == 1);
  const AutoProfile saved = AutoProfile::parse(read_text(files[0]), files[0].string());
  // "  <kind>: built-in WxI T ms; fastest WxI T ms" or "...; the built-in is the fastest", per kind,
  // and the profile says the same.
  const std::pair<const char*, std::pair<Key, bool>> kinds[] = {{"32-bit keys:", {Key::u32, false}},
                                                                {"32-bit keys + values:", {Key::u32, true}},
                                                                {"64-bit keys:", {Key::u64, false}},
                                                                {"64-bit keys + values:", {Key::u64, true}}};
  for (const auto& [name, kind] : kinds) {
    CAPTURE(name);
    const size_t at = r.out.find(std::string("  ") + name + " built-in ");
    REQUIRE(at != std::string::npos);
    const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    CAPTURE(line);
    const AutoCrossovers& c = saved.of(kind.first, kind.second);
    if (line.find("the built-in is the fastest") != std::string::npos) {
      CHECK(c.single_pass_workgroup == 0);
      continue;
    }
    const std::string shape = std::to_string(c.single_pass_workgroup) + "x" + std::to_string(c.single_pass_items);
    CHECK(line.find("; fastest " + shape + " ") != std::string::npos);
    // The fastest is no slower than the built-in, as printed.
    std::istringstream words(line.substr(line.find(" built-in ") + 10));
    std::string built_in_shape, skip, fastest_shape;
    double built_in_ms = 0, fastest_ms = 0;
    words >> built_in_shape >> built_in_ms >> skip >> skip >> fastest_shape >> fastest_ms;
    CHECK(fastest_ms <= built_in_ms);
  }

  // A radix sort of 32-bit keys that leaves the shape to the device takes the saved one (or the
  // built-in one where none is saved); one that sets its own does not.
  const AutoCrossovers& keys = saved.of(Key::u32, false);
  auto bench = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"bench", "--algo", "radix", "--n", "5000", "--dist", "uniform", "--repeat", "1", "--no-cpu",
                                     "--format", "json", "--out", dir / "b.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Run b = dir.run(with_globals(args), env);
    REQUIRE_MESSAGE(b.code == 0, b.err);
    const auto doc = nlohmann::json::parse(read_text(dir / "b.json"));
    REQUIRE(doc["results"].size() == 1);
    return doc["results"][0]["facts"];
  };
  const auto facts = bench({});
  CHECK(facts["shape_from_profile"].get<double>() == (keys.single_pass_workgroup ? 1 : 0));
  if (keys.single_pass_workgroup) {
    CHECK(facts["workgroup"].get<double>() == keys.single_pass_workgroup);
    CHECK(facts["tile"].get<double>() == keys.single_pass_workgroup * keys.single_pass_items);
  }
  CHECK(bench({"--items-per-thread", "4"})["shape_from_profile"].get<double>() == 0);

  // info shows the saved shape (JSON: [workgroup, items] or null; text: "single-pass tiles WxI").
  const Run text = dir.run(with_globals({"info"}), env);
  REQUIRE_MESSAGE(text.code == 0, text.err);
  const Run json = dir.run(with_globals({"info", "--format", "json"}), env);
  REQUIRE_MESSAGE(json.code == 0, json.err);
  const nlohmann::json shown_doc = nlohmann::json::parse(json.out);
  const auto& shown = shown_doc.at("auto").at("kinds").at(0);
  REQUIRE(shown.at("key_bits") == 32);
  REQUIRE(shown.at("values") == false);
  if (keys.single_pass_workgroup) {
    CHECK(shown.at("single_pass_shape") == nlohmann::json::array({keys.single_pass_workgroup, keys.single_pass_items}));
    CHECK(text.out.find("(single-pass tiles " + std::to_string(keys.single_pass_workgroup) + "x" +
                        std::to_string(keys.single_pass_items) + ")") != std::string::npos);
  } else {
    CHECK(shown.at("single_pass_shape").is_null());
  }
}

TEST_CASE("cli: bench --suite paper runs every experiment at sizes up to --max-n, with the bucket tables") {
  TempDir dir;
  const Run r = dir.run(with_globals({"bench", "--suite", "paper", "--max-n", "2048", "--repeat", "1", "--out", dir / "s.json"}));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const auto doc = nlohmann::json::parse(read_text(dir / "s.json"));
  CHECK(doc["suite"] == "paper");
  std::set<std::string> experiments, algorithms;
  for (const auto& c : doc["results"]) {
    experiments.insert(c["experiment"].get<std::string>());
    algorithms.insert(c["algorithm"].get<std::string>());
    CHECK(c["n"].get<uint64_t>() <= 2048);
  }
  for (const char* e : {"Ha, Krueger & Silva: radix sort over sizes and distributions (u32)",
                        "Dehne & Zaboli, Figure 8: samples per sublist s = 64"})
    CHECK_MESSAGE(experiments.count(e), e);
  CHECK(experiments.size() == 9);
  CHECK(algorithms == std::set<std::string>{"radix", "sample", "brick/blocks", "brick/pairs"});
  // One titled table per experiment on stdout, then the bucket tables, whose JSON lies beside.
  int titles = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) titles += line.starts_with("== ") && line.ends_with(" ==");
  CHECK(titles == 9);
  CHECK(r.out.find("bench-buckets") != std::string::npos);
  const auto buckets = nlohmann::json::parse(read_text(dir / "s-buckets.json"));
  std::set<int> tables;
  for (const auto& c : buckets["results"]) tables.insert(c["table"].get<int>());
  CHECK(tables == std::set<int>{1, 2, 3});
  check_usage_error(dir.run(with_globals({"bench", "--suite", "papers"})), {"--suite", "paper"});
  check_usage_error(dir.run(with_globals({"bench", "--max-n", "1M"})), {"--max-n", "--suite"});
  check_usage_error(dir.run(with_globals({"bench", "--suite", "paper", "--max-n", "0"})), {"--max-n: 0"});
  // The bucket tables' file is created before the first sort: a --json whose neighbour cannot be made
  // (a file descriptor's name) is refused with nothing run, not after every experiment.
  const Run fd = dir.run(with_globals({"bench", "--suite", "paper", "--max-n", "2048", "--repeat", "1", "--json", "/dev/fd/1"}));
  CHECK(fd.code == 2);
  CHECK(fd.out.empty());
  CHECK_MESSAGE(fd.err.find("/dev/fd/1-buckets.json") != std::string::npos, fd.err);
  // CSV on stdout and no file: the bucket tables' results would go nowhere (they ran, quietly, and were
  // lost); they are not run, and stderr says so. stdout is the sorts' CSV alone.
  const Run csv = dir.run(with_globals({"bench", "--suite", "paper", "--max-n", "512", "--repeat", "1", "--format", "csv"}));
  REQUIRE_MESSAGE(csv.code == 0, csv.err);
  CHECK_MESSAGE(csv.err.find("bucket tables were not run") != std::string::npos, csv.err);
  CHECK(csv.out.starts_with("device,"));
  CHECK(csv.out.find("bench-buckets") == std::string::npos);
}

TEST_CASE("cli: output on stdout that cannot be written fails the command") {
  TempDir dir;
  write_bytes(dir / "k.bin", std::vector<std::byte>(4000, std::byte{7}));
  for (const std::vector<std::string>& args : {std::vector<std::string>{"sort", dir / "k.bin", dir / "o.bin", "-v"},
                                               std::vector<std::string>{"info"},
                                               // --help and --version printed into the full disk with exit 0.
                                               std::vector<std::string>{"--help"}, std::vector<std::string>{"--version"},
                                               std::vector<std::string>{"sort", "--help"}}) {
    CAPTURE(show(args));
    const Run r = dir.run(with_globals(args), {}, false, {.stdout_to = "/dev/full"});
    CHECK(r.code == 1);
    CHECK_MESSAGE(r.err.find("writing standard output failed") != std::string::npos, r.err);
  }
}

TEST_CASE("cli: bench reports a wrong GPU result as a failure, never as a number") {
  TempDir dir;
  // VKSORT_BENCH_TEST_CORRUPT makes the CLI flip a bit in its last run's result, as a broken sort would.
  const Run r = dir.run(with_globals({"bench", "--n", "500", "--dist", "uniform", "--repeat", "2"}), {"VKSORT_BENCH_TEST_CORRUPT=1"});
  CHECK(r.code == 1);
  CHECK(r.err.starts_with("vksort: "));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  for (const char* needle : {"u32", "uniform", "n=500", "timed run 2 of 2", "wrong result", "first at index 499"})
    CHECK_MESSAGE(r.err.find(needle) != std::string::npos, needle << " missing in: " << r.err);
}

TEST_CASE("cli: bench refuses bad sizes and names with exit 2") {
  TempDir dir;
  struct Bad {
    std::vector<std::string> args;
    std::vector<std::string> needles;
  };
  std::vector<Bad> cases = {
      {{"--n", "0"}, {"--n", "at least 1"}},
      {{"--n", "12q"}, {"--n", "12q"}},
      {{"--n", "-5"}, {"-5"}},
      {{"--n", "2^31"}, {"2^31"}},
      {{"--dist", "pareto"}, {"--dist", "pareto"}},
      {{"--dist", "nearly_sorted:250"}, {"nearly_sorted:250"}},
      {{"--repeat", "0"}, {"--repeat"}},
      {{"--repeat", "many"}, {"--repeat"}},
      {{"--seed", "-1"}, {"--seed", "-1"}},
      {{"--type", "f16"}, {"f16"}},
      {{"--algo", "bogo"}, {"bogo"}},
      {{"--radix-bits", "3"}, {"--radix-bits", "2, 4 or 8"}},
      {{"--radix-ranking", "sideways"}, {"--radix-ranking", "sideways", "splits, columns"}},
      {{"--radix-staging", "sideways"}, {"--radix-staging", "sideways", "direct, late, early"}},
      {{"--samples", "48"}, {"--samples", "power of two"}},
      {{"--lookback-window", "33"}, {"--lookback-window", "1 to 32"}},
      // 0 is Tuning's "the device's default"; on the command line it is a mistake, not a request.
      {{"--workgroup-size", "0"}, {"--workgroup-size", "leave the option out"}},
      {{"--items-per-thread", "0"}, {"--items-per-thread", "leave the option out"}},
      {{"--radix-bits", "0"}, {"--radix-bits", "leave the option out"}},
      {{"--lookback-window", "00"}, {"--lookback-window", "leave the option out"}},
      {{"--samples", "0"}, {"--samples", "leave the option out"}},
      {{"--value-bytes", "6"}, {"--value-bytes", "multiple of 4"}},
      {{"--value-bytes", "512"}, {"--value-bytes", "256"}},
      {{"--value-bytes", "-1"}, {"--value-bytes", "negative"}},  // -1 is the option's "not given" inside
      // --resident keeps repeat + 3 copies: near 2^63 their bytes wrapped to a few KiB, the check passed,
      // and result buffers were allocated until the host's memory ran out.
      {{"--resident", "--repeat", "4611686018427387904"}, {"copies with --resident", "more than 2^64 bytes"}},
      // Integers are decimal: CLI11 read "0x0" as 0 past the checks that refuse 0, "010" as 8.
      {{"--workgroup-size", "0x0"}, {"--workgroup-size", "0x0 is not a decimal integer"}},
      {{"--radix-bits", "0x8"}, {"--radix-bits", "0x8 is not a decimal integer"}},
      {{"--repeat", "0b11"}, {"--repeat", "0b11 is not a decimal integer"}},
      {{"--seed", "1e3"}, {"--seed", "1e3 is not a decimal integer"}},
      {{"--value-bytes", "0x8"}, {"--value-bytes", "0x8 is not a decimal integer"}},
      {{"--json", dir / "nodir/b.json"}, {"nodir"}},
      // A folder that takes no files, which root passes access(2) in: refused before the benchmark, not
      // after it ("cannot create a file in '/proc'"; others: "folder '/proc' is not writable").
      {{"--json", "/proc/b.json"}, {"--json '/proc/b.json': "}},
      {{"--json", dir / "r.json", "--out", dir / "./r.json"}, {"--json and --out name the same file"}},
      // An empty value is no size either (a script's empty variable was taken as the default), and an
      // empty list item is refused (CLI11's splitting dropped it: two sizes ran where three were asked).
      {{"--workgroup-size", ""}, {"--workgroup-size", "empty value"}},
      {{"--items-per-thread", ""}, {"--items-per-thread", "empty value"}},
      {{"--n", "1000,,2000"}, {"--n", "'1000,,2000' has an empty item"}},
      {{"--dist", "uniform,"}, {"--dist", "empty item"}},
      {{"--type", ",u64"}, {"--type", "empty item"}},
      // `--opt=` with nothing after '=' took the next argument as its value (here --n's).
      {{"--type=", "--n", "200"}, {"--type=", "empty value"}},
      {{"--workgroup-size=", "--n", "200"}, {"--workgroup-size", "empty value"}},
      // An empty file or device name (a script's unset variable): no file was written, or the default
      // device ran, with exit 0.
      {{"--json", ""}, {"the option --json has an empty value"}},
      {{"--out", ""}, {"the option --out has an empty value"}},
      {{"--device", ""}, {"the option --device has an empty value"}},
      // A suite writes its bucket tables to r-buckets.json beside --json r.json: --out may not name it.
      {{"--suite", "paper", "--json", dir / "r.json", "--out", dir / "r-buckets.json"}, {"bucket tables", "r-buckets.json", "--out"}},
      // The suite's bucket tables take 32-bit seeds (they ran seed 1's ids for 2^32 + 1), refused before the sorts.
      {{"--suite", "paper", "--max-n", "512", "--seed", "4294967297"}, {"--seed", "4294967295"}},
      // Sizes too small for the suite's bucket tables (one bucket: resorts that move nothing), refused
      // before the sorts run (they ended the run after the sorts' results, exit 2).
      {{"--suite", "paper", "--max-n", "4"}, {"--max-n 4", "bucket tables"}},
  };
  // A size no allocation on this device can hold (lavapipe: 2 GiB), refused before anything is generated.
  const DeviceInfo& info = test::device().info();
  const uint64_t too_many = info.max_allocation_size / 8 + 1;
  if (too_many < (uint64_t(1) << 31)) cases.push_back({{"--type", "u64", "--n", std::to_string(too_many)}, {"maxMemoryAllocationSize"}});
  for (const Bad& c : cases) {
    // A repeated scalar option takes its last value; lists such as --n append.
    std::vector<std::string> args = {"bench", "--repeat", "1", "--n", "100"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    CAPTURE(show(args));
    check_usage_error(dir.run(with_globals(args)), c.needles);
  }
  // Element-wise brick sort's limit (max_brick_pairs_keys) was met only when its case ran: the cases
  // before it were timed and printed, then exit 2. Refused before the first case now.
  const Run pairs = dir.run(with_globals({"bench", "--repeat", "1", "--algo", "brick", "--variant", "blocks,pairs",
                                          "--n", "100," + std::to_string(max_brick_pairs_keys + 1), "--dist", "uniform"}));
  check_usage_error(pairs, {"--n " + std::to_string(max_brick_pairs_keys + 1), "brick/pairs", "--variant blocks"});
  CHECK_MESSAGE(pairs.out.empty(), "cases ran before the refusal: " << pairs.out);
  CHECK(dir.listing().empty());
}

TEST_CASE("cli: --radix-ranking picks the radix sort's block ranking, and the facts say which ran") {
  TempDir dir;
  for (const auto& [ranking, fact] : {std::pair{"splits", "ranking_columns 0"}, std::pair{"columns", "ranking_columns 1"}}) {
    const Run r = dir.run(with_globals({"bench", "--algo", "radix", "--n", "5000", "--repeat", "1", "--radix-ranking", ranking}));
    CAPTURE(ranking);
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(r.out.find(fact) != std::string::npos);
  }
}

// --radix-staging reaches the single pass's ballot ranking (the JSON's facts say which staging ran);
// with the counter columns the library refuses it, which the CLI reports as a usage error (exit 2, as
// other option conflicts) with the library's reason.
TEST_CASE("cli: --radix-staging picks how the ballot ranking writes a tile") {
  TempDir dir;
  if (!test::device().info().subgroup_ballot || !test::device().info().subgroup_shuffle) {
    test::skip("the device has no subgroup ballot and shuffle");
    return;
  }
  for (const auto& [staging, staged, early] : {std::tuple{"direct", 0, 0}, std::tuple{"late", 1, 0}, std::tuple{"early", 1, 1}}) {
    const Run r = dir.run(with_globals({"bench", "--algo", "radix", "--type", "u32", "--values", "--n", "3000", "--repeat", "1",
                                        "--no-cpu", "--radix-ranking", "ballot", "--radix-staging", staging, "--workgroup-size",
                                        "16", "--items-per-thread", "4", "--format", "json", "--out", dir / "s.json"}));
    CAPTURE(staging);
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const auto doc = nlohmann::json::parse(read_text(dir / "s.json"));
    for (const auto& c : doc["results"]) {
      CHECK(c["facts"]["staged"] == staged);
      CHECK(c["facts"]["staged_early"] == early);
    }
  }
  const Run refused = dir.run(with_globals({"bench", "--algo", "radix", "--n", "3000", "--repeat", "1", "--no-cpu",
                                            "--radix-scan", "single-pass", "--radix-ranking", "columns", "--radix-staging", "late"}));
  CHECK(refused.code == 2);
  CHECK(refused.err.find("counter columns write each key directly") != std::string::npos);
}

// --workgroup-size and --items-per-thread take shapes of no power of two where the kernel does (the
// single pass's ballot ranking: the JSON's facts say the shape ran); elsewhere the library refuses
// them, which the CLI reports as a usage error with the library's reason.
TEST_CASE("cli: shapes of no power of two reach the single pass's ballot ranking; other sorts refuse them") {
  TempDir dir;
  if (!test::device().info().subgroup_ballot || !test::device().info().subgroup_shuffle) {
    test::skip("the device has no subgroup ballot and shuffle");
    return;
  }
  const std::string workgroup = std::to_string(3 * test::device().info().subgroup_size);
  const Run r = dir.run(with_globals({"bench", "--algo", "radix", "--type", "u32", "--values", "--n", "3001", "--repeat", "1",
                                      "--no-cpu", "--radix-scan", "single-pass", "--radix-ranking", "ballot", "--workgroup-size",
                                      workgroup, "--items-per-thread", "5", "--format", "json", "--out", dir / "s.json"}));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const auto doc = nlohmann::json::parse(read_text(dir / "s.json"));
  REQUIRE(!doc["results"].empty());
  for (const auto& c : doc["results"]) {
    CHECK(c["facts"]["workgroup"] == std::stoi(workgroup));
    CHECK(c["facts"]["tile"] == 5 * std::stoi(workgroup));
  }
  for (const char* algo : {"brick", "sample"}) {
    const Run refused = dir.run(with_globals({"bench", "--algo", algo, "--n", "3000", "--repeat", "1", "--no-cpu", "--workgroup-size", "24"}));
    CAPTURE(algo);
    CHECK(refused.code == 2);
    CHECK(refused.err.find("workgroup size 24 must be a power of two") != std::string::npos);
  }
  const Run refused = dir.run(with_globals({"bench", "--algo", "radix", "--n", "3000", "--repeat", "1", "--no-cpu", "--radix-scan",
                                            "reduce-then-scan", "--items-per-thread", "6"}));
  CHECK(refused.code == 2);
  CHECK(refused.err.find("items per thread 6 must be a power of two") != std::string::npos);
}

TEST_CASE("cli: info lists the devices and names the chosen one") {
  TempDir dir;
  const Run r = dir.run(with_globals({"info"}));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const std::vector<DeviceListing> devices = list_devices();
  REQUIRE(!devices.empty());
  for (const auto& d : devices) {
    std::string entry = std::to_string(d.index);  // appended: GCC 12 warns falsely on "[" + std::string
    entry.insert(0, 1, '[');
    entry += "] " + d.info.name;
    CHECK_MESSAGE(r.out.find(entry) != std::string::npos, entry);
  }
  // The device a library user gets by default is the one info reports as chosen.
  const Device& device = test::device();
  const size_t chosen = r.out.find("\nChosen device: [");
  REQUIRE(chosen != std::string::npos);
  const size_t name = r.out.find("] ", chosen) + 2, name_end = r.out.find("  (", name);
  REQUIRE(name_end != std::string::npos);
  CHECK(r.out.substr(name, name_end - name) == device.info().name);
  for (const char* limit : {"subgroup size", "max shared memory", "max workgroup invocations", "max workgroup count",
                            "maxStorageBufferRange", "maxMemoryAllocationSize", "device-local memory", "timestamps"})
    CHECK_MESSAGE(r.out.find(limit) != std::string::npos, limit);
  CHECK(r.out.find(std::to_string(device.info().max_workgroup_invocations)) != std::string::npos);
  CHECK(r.out.find(version()) != std::string::npos);

  const auto usable = std::find_if(devices.begin(), devices.end(), [](const DeviceListing& d) { return d.usable; });
  REQUIRE(usable != devices.end());
  const std::string index = std::to_string(usable->index);
  const Run by_index = dir.run(with_globals({"info", "--device", index}));
  REQUIRE_MESSAGE(by_index.code == 0, by_index.err);
  CHECK(by_index.out.find("Chosen device: [" + index + "] " + usable->info.name) != std::string::npos);
  CHECK(by_index.out.find("selected by --device") != std::string::npos);

  check_usage_error(dir.run({"info", "--device", std::to_string(devices.size() + 3)}), {"--device", std::to_string(devices.size() + 3)});
}

TEST_CASE("cli: info --format json is one object with the same facts, or nothing on stdout") {
  TempDir dir;
  const Run r = dir.run(with_globals({"info", "--format", "json"}));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const DeviceInfo& d = test::device().info();
  CHECK(j.at("vksort") == version());
  CHECK(j.at("devices").size() == list_devices().size());
  const auto& chosen = j.at("chosen");
  CHECK(chosen.at("name") == d.name);
  CHECK(chosen.at("max_storage_buffer_range") == d.max_storage_buffer_range);
  CHECK(chosen.at("max_workgroup_invocations") == d.max_workgroup_invocations);
  CHECK(chosen.at("subgroup_size") == d.subgroup_size);
  CHECK(chosen.at("full_subgroups") == d.full_subgroups);
  CHECK(chosen.at("timestamps") == d.timestamps);
  const auto& kinds = j.at("auto").at("kinds");
  REQUIRE(kinds.size() == 4);
  for (const auto& k : kinds) CHECK(k.at("brick_up_to").get<uint64_t>() > 0);  // the built-in profile: one tile
  // A device that cannot be opened: the usual one-line error, and stdout stays empty (no half object).
  const Run bad = dir.run({"info", "--format", "json", "--device", "no-such-gpu-anywhere"});
  check_usage_error(bad, {"no-such-gpu-anywhere"});
  CHECK(bad.out.empty());
  // The library's rule and words (vksort::choose_device), not a copy of them in the CLI: digits are an
  // index only, and the refusal says so and where the selector came from.
  const std::string past_last = std::to_string(list_devices().size());
  check_usage_error(dir.run({"info", "--device", past_last}),
                    {"--device: no Vulkan device matches \"" + past_last + "\"", "digits select a device by its index"});
  check_usage_error(dir.run({"info"}, {"VKSORT_DEVICE=" + past_last}), {"VKSORT_DEVICE: no Vulkan device matches"});
  check_usage_error(dir.run({"info", "--format", "xml"}), {"--format", "xml"});
}

TEST_CASE("cli: version, missing command and parse errors") {
  TempDir dir;
  const Run v = dir.run({"--version"});
  CHECK(v.code == 0);
  CHECK(v.out == std::string("vksort ") + version() + "\n");
  check_usage_error(dir.run({}), {"command"});
  check_usage_error(dir.run({"shuffle"}), {"shuffle"});
  // An unknown command is named as one: it was "The following arguments were not expected: o.bin a.bin
  // sortt" (the words backwards). Unknown options keep CLI11's message, which names them.
  check_usage_error(dir.run({"sortt", "a.bin", "o.bin"}), {"unknown command 'sortt'", "sort, bench"});
  check_usage_error(dir.run({"--device", "0", "bnech", "--n", "5"}), {"unknown command 'bnech'"});
  const Run unknown_option = dir.run({"--frobnicate", "x"});
  check_usage_error(unknown_option, {"--frobnicate"});
  CHECK(unknown_option.err.find("unknown command") == std::string::npos);
  check_usage_error(dir.run({"bench", "--n"}), {"--n"});
  // Every comma list refuses an empty item (cli_checks::add_list_option; CLI11's delimiter dropped it),
  // in each subcommand that takes lists, before any device work.
  check_usage_error(dir.run({"bench", "--algo", "radix,", "--n", "100"}), {"--algo: 'radix,' has an empty item"});
  check_usage_error(dir.run({"bench", "--n", "5,,6"}), {"--n: '5,,6' has an empty item"});
  check_usage_error(dir.run({"bench", "--variant=,blocks", "--n", "100"}), {"--variant: ',blocks' has an empty item"});
  check_usage_error(dir.run({"bench-buckets", "--moved", "0,,2", "--n", "100"}), {"--moved: '0,,2' has an empty item"});
  check_usage_error(dir.run({"bench-buckets", "--tables", "1,", "--n", "100"}), {"--tables: '1,' has an empty item"});
  check_usage_error(dir.run({"bench-splat", "--n", "1000,"}), {"--n: '1000,' has an empty item"});
  const Run help = dir.run({"sort", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("--values-out") != std::string::npos);
  CHECK(help.out.find("--device") != std::string::npos);
}

TEST_CASE("cli: sort and bench with --algo sample: sorted like the reference, per-step times, the largest bucket") {
  TempDir dir;
  const uint64_t n = 20011;
  const std::vector<std::byte> keys = workloads::generate_keys(Key::i64, workloads::default_spec(workloads::Distribution::few_unique), n, 5);
  const std::vector<uint32_t> values = workloads::generate_values(n);
  write_bytes(dir / "in.bin", keys);
  write_bytes(dir / "vals.bin", bytes_of(values));
  const Run r = dir.run(with_globals({"sort", "--algo", "sample", "--samples", "16", "--type", "i64", "--descending",
                                      "--values", dir / "vals.bin", "--values-out", dir / "vals_out.bin", dir / "in.bin",
                                      dir / "out.bin"}));
  REQUIRE_MESSAGE(r.code == 0, "stderr: " << r.err);
  std::vector<std::byte> expected = keys;
  std::vector<uint32_t> expected_values = values;
  workloads::reference_sort(Key::i64, Order::descending, expected, expected_values);
  const std::string diff = workloads::first_difference(Key::i64, expected, read_bytes(dir / "out.bin"), expected_values,
                                                       as_values(read_bytes(dir / "vals_out.bin")));
  CHECK_MESSAGE(diff.empty(), diff);

  const Run b = dir.run(with_globals({"bench", "--algo", "sample", "--type", "u64", "--n", "5000", "--dist", "all_equal",
                                      "--repeat", "1", "--samples", "8"}));
  REQUIRE_MESSAGE(b.code == 0, b.err);
  for (const char* needle : {"sublist_sort", "sample_sort", "global_samples", "locate", "prefix_sum", "relocate",
                             "bucket_sort", "largest_bucket", "samples 8"})
    CHECK_MESSAGE(b.out.find(needle) != std::string::npos, needle << " missing in: " << b.out);

  // A number of samples that is not a power of two is bad input.
  check_usage_error(dir.run(with_globals({"bench", "--algo", "sample", "--n", "100", "--samples", "12"})), {"--samples", "12"});
}
