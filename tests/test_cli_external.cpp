// SPDX-License-Identifier: MIT
// test_cli_external.cpp — `vksort sort` out of core, run as a user runs it (a child process per
// command): inputs beyond --memory or a pretend --device-memory, checked against the CPU reference;
// full disks, signals and bad input leave no temporary file and no output, and say so in one line.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <sys/resource.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "distributions.hpp"
#include "reference_sort.hpp"
#include "support/npy_test_file.hpp"
#include "vksort/vksort.hpp"

#ifndef VKSORT_CLI
#error "VKSORT_CLI must name the vksort executable"
#endif

namespace fs = std::filesystem;
using namespace vksort;
using vksort::workloads::Distribution;

namespace {

struct Outcome {
  int code = -1;    // exit status, or -1 after a signal
  int signal = 0;   // the signal that ended it
  std::string out, err;
  long max_rss_kib = 0;  // the child's peak resident memory (getrusage's ru_maxrss)
};

struct Limits {
  uint64_t file_size = 0;       // RLIMIT_FSIZE in bytes (0: none)
  bool ignore_sigxfsz = false;  // SIGXFSZ ignored when the CLI starts (else its default, which kills)
  std::string signal_on;        // send `signal` once the terminal shows this (implies `terminal`)
  int signal = SIGKILL;
  bool terminal = false;        // stderr a pseudo-terminal
  bool nobody = false;          // run as the user nobody where the tests run as root (root writes in /dev)
  unsigned kill_after_s = 0;    // SIGALRM ends the child after this many seconds (0: never): a hang fails
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& p, std::span<const std::byte> data) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  REQUIRE(out.good());
}

std::vector<std::byte> read_file(const fs::path& p) {
  const std::string s = slurp(p);
  std::vector<std::byte> b(s.size());
  if (!s.empty()) std::memcpy(b.data(), s.data(), s.size());
  return b;
}

class Workspace {
 public:
  Workspace() {
    std::string templ = (fs::temp_directory_path() / "vksort-cli-ext-XXXXXX").string();
    REQUIRE(mkdtemp(templ.data()) != nullptr);
    root_ = templ;
    fs::create_directories(root_ / "work" / "tmp");
  }
  ~Workspace() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  std::string operator/(const std::string& name) const { return (root_ / "work" / name).string(); }
  // The names in work/ (tmp/ included, with its contents).
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(root_ / "work")) names.push_back(fs::relative(e.path(), root_ / "work").string());
    std::sort(names.begin(), names.end());
    return names;
  }

  // Runs vksort with `args` in a child (fork + exec, no shell) under `limits`.
  Outcome run(const std::vector<std::string>& args, const Limits& limits = {}) const {
    const std::string out_path = (root_ / "stdout").string(), err_path = (root_ / "stderr").string();
    std::vector<std::string> argv_s = {VKSORT_CLI};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    int master = -1;
    const bool terminal = limits.terminal || !limits.signal_on.empty();
    const pid_t pid = terminal ? forkpty(&master, nullptr, nullptr, nullptr) : fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // The child: only async-signal-safe calls until exec.
      const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, STDOUT_FILENO);
      if (!terminal) {
        const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(err, STDERR_FILENO);
      }
      if (limits.file_size) {
        rlimit l{};
        getrlimit(RLIMIT_FSIZE, &l);
        l.rlim_cur = limits.file_size;
        setrlimit(RLIMIT_FSIZE, &l);
      }
      signal(SIGXFSZ, limits.ignore_sigxfsz ? SIG_IGN : SIG_DFL);
      if (limits.kill_after_s) alarm(limits.kill_after_s);  // survives exec; its default action ends the process
      if (limits.nobody && getuid() == 0 && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(126);
      execv(VKSORT_CLI, argv.data());
      _exit(127);
    }
    std::string shown;
    bool signalled = false;
    if (terminal) {
      // Read while the child runs (a full terminal would block it); read() fails with EIO once the
      // child's side is closed. The progress bar says which phase it is in: the signal lands there.
      char buf[4096];
      for (ssize_t got; (got = read(master, buf, sizeof buf)) > 0;) {
        shown.append(buf, size_t(got));
        if (!signalled && !limits.signal_on.empty() && shown.find(limits.signal_on) != std::string::npos) {
          kill(pid, limits.signal);
          signalled = true;
        }
      }
      close(master);
    }
    int status = 0;
    struct rusage usage {};
    REQUIRE(wait4(pid, &status, 0, &usage) == pid);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0, slurp(out_path),
            terminal ? shown : slurp(err_path), usage.ru_maxrss};
  }

 private:
  fs::path root_;
};

// An environment variable set for the children run while this lives.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// One line on stderr, "vksort: ...", containing `needle`.
void check_one_line(const Outcome& r, const std::string& needle) {
  CHECK_MESSAGE(r.err.starts_with("vksort: "), r.err);
  CHECK_MESSAGE(std::count(r.err.begin(), r.err.end(), '\n') == 1, "stderr must be one line: " << r.err);
  CHECK_MESSAGE(r.err.find(needle) != std::string::npos, "stderr lacks '" << needle << "': " << r.err);
}

// The stable reference for keys with 32-bit values 0..n-1.
void expect_sorted(Key key, Order order, std::vector<std::byte> keys, const fs::path& keys_out, const fs::path& values_out) {
  const uint64_t n = keys.size() / key_bytes(key);
  std::vector<uint32_t> index(n);
  std::iota(index.begin(), index.end(), 0u);
  workloads::reference_sort(key, order, keys, index);
  const std::vector<std::byte> got = read_file(keys_out);
  CHECK_MESSAGE(workloads::first_difference(key, keys, got).empty(), workloads::first_difference(key, keys, got));
  if (!values_out.empty()) CHECK(read_file(values_out) == std::vector<std::byte>(std::as_bytes(std::span(index)).begin(),
                                                                                  std::as_bytes(std::span(index)).end()));
}

uint64_t runs_reported(const std::string& out) {
  const size_t at = out.find(" runs of up to");
  if (at == std::string::npos) return 0;
  const size_t start = out.rfind(' ', at - 1) + 1;
  return std::stoull(out.substr(start, at - start));
}

std::vector<std::byte> index_values(uint64_t n) {
  std::vector<uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  return {std::as_bytes(std::span(v)).begin(), std::as_bytes(std::span(v)).end()};
}

constexpr uint64_t kN = 100000;

// Opens the FIFO `path` for writing once a reader has it open (ENXIO before), blocking then; waits
// without blocking so that a reader that never comes does not hang the test: -1 once `stop` is set.
int open_when_read(const std::string& path, const std::atomic<bool>& stop) {
  int fd = -1;
  while (!stop && (fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  if (fd >= 0) fcntl(fd, F_SETFL, 0);
  return fd;
}

// Feeds `data` into a new FIFO at `path` from a thread while a command runs, as `cat data | vksort ...`
// would; finish() stops waiting once the command ended without opening it (a refusal before reading).
class FifoFeeder {
 public:
  FifoFeeder(const std::string& path, std::vector<std::byte> data) : data_(std::move(data)) {
    REQUIRE(mkfifo(path.c_str(), 0600) == 0);
    signal(SIGPIPE, SIG_IGN);  // a reader that stops early is an EPIPE here, not the end of the test
    thread_ = std::thread([this, path] {
      const int fd = open_when_read(path, stop_);
      if (fd < 0) return;
      opened_ = true;
      for (size_t done = 0; done < data_.size();) {
        const ssize_t w = write(fd, data_.data() + done, data_.size() - done);
        if (w <= 0) break;
        done += size_t(w);
      }
      close(fd);
    });
  }
  ~FifoFeeder() { finish(); }
  FifoFeeder(const FifoFeeder&) = delete;
  FifoFeeder& operator=(const FifoFeeder&) = delete;
  // True when the command opened the pipe.
  bool finish() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return opened_;
  }

 private:
  std::vector<std::byte> data_;
  std::thread thread_;
  std::atomic<bool> stop_{false}, opened_{false};
};

// One writer feeding keys and values into two new FIFOs in turns, `chunk` bytes of each at a time, as a
// program that produces pairs would; it opens the values' FIFO first where `values_first`. It stops
// when the reader goes away (EPIPE) and, from finish(), while still waiting for one to open them.
class TurnFeeder {
 public:
  TurnFeeder(const std::string& keys_path, std::vector<std::byte> keys, const std::string& values_path,
             std::vector<std::byte> values, size_t chunk, bool values_first) {
    REQUIRE(mkfifo(keys_path.c_str(), 0600) == 0);
    REQUIRE(mkfifo(values_path.c_str(), 0600) == 0);
    signal(SIGPIPE, SIG_IGN);
    thread_ = std::thread([=, this] {
      const std::string paths[2] = {values_first ? values_path : keys_path, values_first ? keys_path : values_path};
      int fds[2] = {-1, -1};
      for (int i = 0; i < 2; ++i) fds[i] = open_when_read(paths[i], stop_);
      const int key_fd = values_first ? fds[1] : fds[0], value_fd = values_first ? fds[0] : fds[1];
      bool failed = key_fd < 0 || value_fd < 0;
      for (size_t done_k = 0, done_v = 0; !failed && (done_k < keys.size() || done_v < values.size());) {
        auto feed = [&](int fd, const std::vector<std::byte>& data, size_t& done) {
          const size_t end = std::min(data.size(), done + chunk);
          while (!failed && done < end) {
            const ssize_t w = write(fd, data.data() + done, end - done);
            if (w <= 0) failed = true;
            else done += size_t(w);
          }
        };
        // Each turn in the order of opening.
        if (values_first) feed(value_fd, values, done_v);
        feed(key_fd, keys, done_k);
        if (!values_first) feed(value_fd, values, done_v);
      }
      fed_all_ = !failed;
      for (int fd : fds)
        if (fd >= 0) close(fd);
    });
  }
  ~TurnFeeder() { finish(); }
  TurnFeeder(const TurnFeeder&) = delete;
  TurnFeeder& operator=(const TurnFeeder&) = delete;
  // True when the reader took every byte of both.
  bool finish() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return fed_all_;
  }

 private:
  std::thread thread_;
  std::atomic<bool> stop_{false}, fed_all_{false};
};

}  // namespace

// One program writing keys and values into two FIFOs in turns: both are read as their data come. Read
// one after the other, the writer blocked on the full values pipe (64 KiB) while vksort waited for the
// rest of the keys, for ever; and a writer that opened the values' FIFO first waited for vksort, which
// waited to open the keys' FIFO. In memory and out of core, either order of opening and writing.
TEST_CASE("vksort sort: keys and values piped in turns by one writer, opened in either order") {
  Workspace w;
  const auto keys = workloads::generate_keys(Key::u32, workloads::default_spec(Distribution::uniform), kN, 21);
  const std::vector<std::byte> values = index_values(kN);  // 400 KB each
  for (bool values_first : {false, true})
    for (const char* memory : {"64M", "128k"}) {
      CAPTURE(values_first);
      CAPTURE(memory);
      TurnFeeder feed(w / "k.fifo", keys, w / "v.fifo", values, 16384, values_first);
      Limits limits;
      limits.kill_after_s = 120;
      const Outcome r = w.run({"sort", w / "k.fifo", w / "out.bin", "--values", w / "v.fifo", "--values-out", w / "vout.bin",
                               "--memory", memory, "--tmp-dir", w / "tmp", "-v"},
                              limits);
      CHECK(feed.finish());
      REQUIRE_MESSAGE(r.code == 0, "exit " << r.code << ", signal " << r.signal << ": " << r.err);
      CHECK_MESSAGE((r.out.find("out of core") != std::string::npos) == (std::string(memory) == "128k"), r.out);
      expect_sorted(Key::u32, Order::ascending, keys, w / "out.bin", w / "vout.bin");
      for (const char* f : {"k.fifo", "v.fifo", "out.bin", "vout.bin"}) fs::remove(w / f);
      CHECK(w.listing() == std::vector<std::string>{"tmp"});
    }
}

// .npy keys and values through two FIFOs, each written whole in turn (numpy.save to one, then the other):
// vksort read the keys' header before anything else, so a writer that saved the values first blocked
// on their full pipe for ever. Both headers are now read as they come, with the other pipe's data, and
// checked before the bulk is read: also a header that refuses (a dtype that is no key) is one line.
TEST_CASE("vksort sort: .npy keys and values piped, each saved whole in turn, either first") {
  using test::npy_dict;
  using test::npy_file;
  Workspace w;
  const auto keys = workloads::generate_keys(Key::f32, workloads::default_spec(Distribution::uniform), kN, 23);
  const std::vector<std::byte> values = index_values(kN);  // 400 KB each, far beyond a pipe's 64 KiB
  const std::vector<std::byte> key_npy = npy_file(npy_dict("<f4", kN), keys), value_npy = npy_file(npy_dict("<u4", kN), values);
  const size_t whole = std::max(key_npy.size(), value_npy.size());
  for (bool values_first : {false, true})
    for (const char* memory : {"64M", "128k"}) {
      CAPTURE(values_first);
      CAPTURE(memory);
      TurnFeeder feed(w / "k.npy", key_npy, w / "v.npy", value_npy, whole, values_first);
      Limits limits;
      limits.kill_after_s = 120;
      const Outcome r = w.run({"sort", w / "k.npy", w / "out.bin", "--values", w / "v.npy", "--values-out", w / "vout.bin",
                               "--memory", memory, "--tmp-dir", w / "tmp", "-v"},
                              limits);
      CHECK(feed.finish());
      REQUIRE_MESSAGE(r.code == 0, "exit " << r.code << ", signal " << r.signal << ": " << r.err);
      CHECK_MESSAGE((r.out.find("out of core") != std::string::npos) == (std::string(memory) == "128k"), r.out);
      expect_sorted(Key::f32, Order::ascending, keys, w / "out.bin", w / "vout.bin");
      for (const char* f : {"k.npy", "v.npy", "out.bin", "vout.bin"}) fs::remove(w / f);
      CHECK(w.listing() == std::vector<std::string>{"tmp"});
    }
  // Values of a dtype vksort does not move (2-byte records), saved first: refused from their header,
  // one line, exit 2, nothing written.
  {
    const std::vector<std::byte> shorts(2 * kN, std::byte{1});
    TurnFeeder feed(w / "k.npy", key_npy, w / "v.npy", npy_file(npy_dict("<u2", kN), shorts), whole, true);
    Limits limits;
    limits.kill_after_s = 120;
    const Outcome r = w.run({"sort", w / "k.npy", w / "out.bin", "--values", w / "v.npy", "--values-out", w / "vout.bin"}, limits);
    feed.finish();
    CHECK_MESSAGE(r.code == 2, "exit " << r.code << ", signal " << r.signal << ": " << r.err);
    CHECK_MESSAGE(r.err.find("<u2") != std::string::npos, r.err);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    for (const char* f : {"k.npy", "v.npy"}) fs::remove(w / f);
    CHECK(w.listing() == std::vector<std::string>{"tmp"});
  }
}

// A pipe says no size up front and can be read once: it was read whole into memory whatever --memory
// said (a large one ended in the OOM killer). Within the budget it still is; beyond it, it goes on into a
// temporary file without a name in --tmp-dir (else the output's folder), sorted out of core from there.
TEST_CASE("vksort sort: a pipe beyond --memory goes out of core through a spool file; within it, in memory") {
  Workspace w;
  const auto keys = workloads::generate_keys(Key::u64, workloads::default_spec(Distribution::few_unique), kN, 9);
  const std::vector<std::byte> values = index_values(kN);
  write_file(w / "in.bin", keys);
  write_file(w / "v.bin", values);
  struct Case {
    std::string what;
    bool keys_piped, values_piped;
    const char* memory;
    bool out_of_core;
  } cases[] = {
      {"keys piped, beyond the budget", true, false, "128k", true},
      {"keys and values piped, beyond the budget", true, true, "128k", true},
      // The keys (800 KB) fit the budget alone; with the values file (400 KB) they do not: spooled after all.
      {"keys piped within the budget, values past it", true, false, "1000k", true},
      {"values piped, beyond the budget", false, true, "128k", true},
      {"both piped, within the budget", true, true, "64M", false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    std::optional<FifoFeeder> key_feed, value_feed;
    if (c.keys_piped) key_feed.emplace(w / "k.fifo", keys);
    if (c.values_piped) value_feed.emplace(w / "v.fifo", values);
    const Outcome r = w.run({"sort", "--type", "u64", c.keys_piped ? w / "k.fifo" : w / "in.bin", w / "out.bin", "--values",
                             c.values_piped ? w / "v.fifo" : w / "v.bin", "--values-out", w / "vout.bin", "--tmp-dir",
                             w / "tmp", "--memory", c.memory, "-v"});
    if (key_feed) CHECK(key_feed->finish());
    if (value_feed) CHECK(value_feed->finish());
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(r.err.empty());
    CHECK_MESSAGE((r.out.find("out of core") != std::string::npos) == c.out_of_core, r.out);
    if (c.out_of_core) CHECK_MESSAGE(runs_reported(r.out) >= 2, r.out);
    expect_sorted(Key::u64, Order::ascending, keys, w / "out.bin", w / "vout.bin");
    // The spool files had no name: nothing is left in tmp/ or beside the output.
    std::vector<std::string> want = {"in.bin", "out.bin", "tmp", "v.bin", "vout.bin"};
    if (c.keys_piped) want.push_back("k.fifo");
    if (c.values_piped) want.push_back("v.fifo");
    std::sort(want.begin(), want.end());
    CHECK(w.listing() == want);
    for (const char* f : {"k.fifo", "v.fifo", "out.bin", "vout.bin"}) fs::remove(w / f);
  }
  // A .npy output gets the header of the keys the spool file holds.
  {
    FifoFeeder feed(w / "k.fifo", keys);
    const Outcome r = w.run({"sort", "--type", "u64", w / "k.fifo", w / "out.npy", "--memory", "128k", "--tmp-dir", w / "tmp"});
    CHECK(feed.finish());
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const std::vector<std::byte> npy = read_file(w / "out.npy");
    REQUIRE(npy.size() > keys.size());
    const std::string header(reinterpret_cast<const char*>(npy.data()), npy.size() - keys.size());
    CHECK_MESSAGE(header.find("'shape': (" + std::to_string(kN) + ",)") != std::string::npos, header);
    fs::remove(w / "k.fifo");
    fs::remove(w / "out.npy");
  }
}

TEST_CASE("vksort sort: a pipe's bad size, a bad output and a full spool folder are one line each, nothing written") {
  Workspace w;
  const auto keys = workloads::generate_keys(Key::u32, workloads::default_spec(Distribution::uniform), kN, 4);
  {
    // Not a whole number of keys: named as the pipe it is, in memory and beyond the budget alike.
    for (const char* memory : {"64M", "64k"}) {
      CAPTURE(memory);
      std::vector<std::byte> odd = keys;
      odd.pop_back();
      FifoFeeder feed(w / "k.fifo", odd);
      const Outcome r = w.run({"sort", w / "k.fifo", w / "out.bin", "--memory", memory, "--tmp-dir", w / "tmp"});
      feed.finish();
      CHECK(r.code == 2);
      check_one_line(r, "input '" + w / "k.fifo" + "' holds " + std::to_string(odd.size()) + " bytes, not a multiple of 4");
      fs::remove(w / "k.fifo");
    }
  }
  {
    // An output that cannot be written is refused before the pipe is read (a spool of it could be large).
    FifoFeeder feed(w / "k.fifo", keys);
    const Outcome r = w.run({"sort", w / "k.fifo", w / "missing/out.bin", "--memory", "64k"});
    CHECK_FALSE(feed.finish());
    CHECK(r.code == 2);
    check_one_line(r, "missing");
    fs::remove(w / "k.fifo");
  }
  {
    // A spool folder without room (a file size limit stands for a full disk): exit 1, one line naming it.
    FifoFeeder feed(w / "k.fifo", keys);
    Limits limits;
    limits.file_size = 100000;
    limits.ignore_sigxfsz = true;
    const Outcome r = w.run({"sort", w / "k.fifo", w / "out.bin", "--memory", "64k", "--tmp-dir", w / "tmp"}, limits);
    feed.finish();
    CHECK(r.code == 1);
    check_one_line(r, "to a temporary file in '" + w / "tmp" + "': File too large");
    fs::remove(w / "k.fifo");
  }
  {
    // Values that do not match the keys in number: named as the pipes and files they are (the out-of-core
    // sort named the spool files, '/proc/self/fd/N'), in memory and beyond the budget alike.
    write_file(w / "in.bin", keys);
    const std::vector<std::byte> short_values = index_values(kN - 1);
    for (const char* memory : {"64M", "64k"})
      for (bool keys_piped : {true, false}) {
        CAPTURE(memory);
        CAPTURE(keys_piped);
        std::optional<FifoFeeder> key_feed;
        if (keys_piped) key_feed.emplace(w / "k.fifo", keys);
        FifoFeeder value_feed(w / "v.fifo", short_values);
        const std::string input = keys_piped ? w / "k.fifo" : w / "in.bin";
        const Outcome r = w.run({"sort", input, w / "out.bin", "--values", w / "v.fifo", "--values-out", w / "vout.bin",
                                 "--memory", memory, "--tmp-dir", w / "tmp"});
        if (key_feed) key_feed->finish();
        value_feed.finish();
        CHECK(r.code == 2);
        check_one_line(r, "values file '" + w / "v.fifo" + "' holds " + std::to_string(short_values.size()) + " bytes (" +
                              std::to_string(kN - 1) + " values) but input '" + input + "' holds " + std::to_string(kN) + " keys");
        fs::remove(w / "k.fifo");
        fs::remove(w / "v.fifo");
      }
    fs::remove(w / "in.bin");
  }
  {
    // A --tmp-dir that is no folder reads as it does for a file, not as a spool file that cannot be made.
    FifoFeeder feed(w / "k.fifo", keys);
    const Outcome r = w.run({"sort", w / "k.fifo", w / "out.bin", "--memory", "64k", "--tmp-dir", w / "nowhere"});
    CHECK_FALSE(feed.finish());  // refused before the pipe was read
    CHECK(r.code == 2);
    check_one_line(r, "--tmp-dir '" + w / "nowhere" + "' is not a folder");
    fs::remove(w / "k.fifo");
  }
  {
    // A mistyped --device-memory and options the library refuses are refused before the pipe is read
    // too (they were refused only after it had been read, or spooled), keys or values alike.
    const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
        {{"--device-memory", "1x"}, "--device-memory '1x' is not a number of bytes"},
        {{"--workgroup-size", "3"}, "sorting u32 keys from '" + w / "k.fifo" + "'"},
        {{"--algo", "brick", "--begin-bit", "4", "--end-bit", "8"}, "sorting u32 keys from '" + w / "k.fifo" + "'"}};
    write_file(w / "in.bin", keys);
    for (const auto& [options, message] : refused)
      for (bool values_piped : {false, true}) {
        CAPTURE(options.front());
        CAPTURE(values_piped);
        FifoFeeder feed(w / "k.fifo", values_piped ? index_values(kN) : keys);
        std::vector<std::string> args = {"sort", values_piped ? w / "in.bin" : w / "k.fifo", w / "out.bin", "--memory", "64k"};
        if (values_piped) args.insert(args.end(), {"--values", w / "k.fifo", "--values-out", w / "vout.bin"});
        args.insert(args.end(), options.begin(), options.end());
        const Outcome r = w.run(args);
        CHECK_FALSE(feed.finish());
        CHECK(r.code == 2);
        check_one_line(r, values_piped && message.rfind("sorting", 0) == 0 ? "sorting u32 keys from '" + w / "in.bin" + "'" : message);
        fs::remove(w / "k.fifo");
      }
    fs::remove(w / "in.bin");
  }
  CHECK(w.listing() == std::vector<std::string>{"tmp"});
}

// A .npy pipe is read whole with its header; beside a raw pipe beyond --memory (spooled), or on a device
// too small for it, it goes out of core too, from a spool file of its own. The in-memory path took the
// spooled raw pipe's bytes, which were no longer in memory: "input holds 0 keys", exit 2.
TEST_CASE("vksort sort: a .npy pipe beside a raw pipe beyond --memory, or beyond the device, sorts out of core") {
  using test::npy_dict;
  using test::npy_file;
  Workspace w;
  const auto keys = workloads::generate_keys(Key::u32, workloads::default_spec(Distribution::uniform), kN, 6);
  const std::vector<std::byte> values = index_values(kN);
  struct Case {
    std::string what;
    bool keys_npy;
    const char* limit;
  } cases[] = {
      {"raw keys beyond --memory, .npy values", false, "--memory"},
      {".npy keys, raw values beyond --memory", true, "--memory"},
      {".npy keys, raw values, a small device", true, "--device-memory"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const std::string in = w / (c.keys_npy ? "k.npy" : "k.fifo"), vin = w / (c.keys_npy ? "v.fifo" : "v.npy");
    FifoFeeder key_feed(in, c.keys_npy ? npy_file(npy_dict("<u4", kN), keys) : keys);
    FifoFeeder value_feed(vin, c.keys_npy ? values : npy_file(npy_dict("<u4", kN), values));
    const Outcome r = w.run({"sort", in, w / "out.bin", "--values", vin, "--values-out", w / "vout.bin", c.limit, "128k",
                             "--tmp-dir", w / "tmp", "--check", "-v"});
    key_feed.finish();
    value_feed.finish();
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK_MESSAGE(runs_reported(r.out) >= 2, r.out);
    expect_sorted(Key::u32, Order::ascending, keys, w / "out.bin", w / "vout.bin");
    for (const std::string& f : {in, vin, w / "out.bin", w / "vout.bin"}) fs::remove(f);
    CHECK(w.listing() == std::vector<std::string>{"tmp"});
  }
}

// A .npy pipe's data are read as a raw pipe's, within --memory and spooled beyond it: they were read
// whole with the header, whatever --memory said (a large one ended in the OOM killer). Seen in the peak
// memory of a run that reads 128 MiB of keys through a .npy pipe and is then refused (its values file
// does not match), beside the same run with a small pipe: the difference stays far below the data. The
// data come from a shell (`head -c N /dev/zero`), not from this process: a child's peak memory counts
// what it shared with this process between fork and exec.
TEST_CASE("vksort sort: a .npy pipe's data beyond --memory are spooled, not held in memory") {
  using test::npy_dict;
  using test::npy_file;
  Workspace w;
  write_file(w / "v.bin", index_values(1));
  auto peak_kib = [&](uint64_t n) {
    write_file(w / "header.bin", npy_file(npy_dict("<u4", n), {}));
    REQUIRE(mkfifo((w / "k.npy").c_str(), 0600) == 0);
    const std::string feed_command = "{ cat '" + w / "header.bin" + "'; head -c " + std::to_string(n * 4) + " /dev/zero; } > '" +
                                     w / "k.npy" + "' 2>/dev/null";
    std::thread feed([&] { (void)std::system(feed_command.c_str()); });
    const Outcome r = w.run({"sort", w / "k.npy", w / "out.bin", "--values", w / "v.bin", "--values-out", w / "vout.bin",
                             "--memory", "1M", "--tmp-dir", w / "tmp"});
    feed.join();
    fs::remove(w / "header.bin");
    CHECK(r.code == 2);
    check_one_line(r, "but input '" + w / "k.npy" + "' holds " + std::to_string(n) + " keys");
    fs::remove(w / "k.npy");
    return r.max_rss_kib;
  };
  const long small = peak_kib(1000);
  const long large = peak_kib(uint64_t(32) << 20);  // 128 MiB of keys
  CHECK_MESSAGE(large - small < 48 * 1024, "peak memory " << small << " KiB with 4 KB of keys, " << large << " KiB with 128 MiB");
  fs::remove(w / "v.bin");
  CHECK(w.listing() == std::vector<std::string>{"tmp"});
}

TEST_CASE("vksort sort out of core: beyond --memory or --device-memory, every key type, values, stable") {
  for (Key key : {Key::u32, Key::i32, Key::f32, Key::u64, Key::i64, Key::f64})
    for (bool descending : {false, true}) {
      CAPTURE(to_string(key));
      CAPTURE(descending);
      Workspace w;
      const auto keys = workloads::generate_keys(key, workloads::default_spec(descending ? Distribution::few_unique
                                                                                         : Distribution::special), kN, 4);
      write_file(w / "in.bin", keys);
      write_file(w / "v.bin", index_values(kN));
      std::vector<std::string> args = {"sort", w / "in.bin", w / "out.bin", "--type", std::string(to_string(key)),
                                       "--values", w / "v.bin", "--values-out", w / "vout.bin", "--tmp-dir", w / "tmp", "-v"};
      if (descending) args.push_back("--descending");
      if (key_bytes(key) == 8) args.push_back("--check");  // order and records checked without a reference sort
      // Half the keys cut by the host budget, half by a pretend small device.
      if (key_bytes(key) == 4) args.insert(args.end(), {"--memory", "128k"});
      else args.insert(args.end(), {"--device-memory", "256k"});
      const Outcome r = w.run(args);
      REQUIRE_MESSAGE(r.code == 0, r.err);
      CHECK(r.err.empty());
      CHECK_MESSAGE(runs_reported(r.out) >= 8, r.out);
      expect_sorted(key, descending ? Order::descending : Order::ascending, keys, w / "out.bin", w / "vout.bin");
      CHECK(w.listing() == std::vector<std::string>{"in.bin", "out.bin", "tmp", "v.bin", "vout.bin"});
    }
}

// .npy inputs are read past their headers and .npy outputs begin with one, out of core as in memory:
// the dtype says the key type and the record size, a structured dtype comes back as it went in.
TEST_CASE("vksort sort out of core: .npy files in and out, headers skipped and written") {
  using test::npy_dict;
  using test::npy_file;
  Workspace w;
  const auto keys = workloads::generate_keys(Key::f64, workloads::default_spec(Distribution::special), kN, 5);
  // Records of 12 bytes: the index, then a pattern of it.
  constexpr uint32_t rb = 12;
  std::vector<std::byte> records(kN * rb);
  for (uint64_t i = 0; i < kN; ++i)
    for (uint32_t b = 0; b < rb; ++b) records[i * rb + b] = std::byte((b < 4 ? i >> (8 * b) : i * 13 + b) & 0xFF);
  const std::string fields = "{'descr': [('id', '<u4'), ('x', '<f8')], 'fortran_order': False, 'shape': (" +
                             std::to_string(kN) + ",), }";
  write_file(w / "in.npy", npy_file(npy_dict("<f8", kN), keys));
  write_file(w / "recs.npy", npy_file(fields, records, 2));  // format 2.0: a 12-byte preamble
  std::vector<std::byte> sorted = keys;
  std::vector<uint32_t> index(kN);
  std::iota(index.begin(), index.end(), 0u);
  workloads::reference_sort(Key::f64, Order::ascending, sorted, index);
  std::vector<std::byte> moved(records.size());
  for (uint64_t i = 0; i < kN; ++i) std::memcpy(&moved[i * rb], &records[uint64_t(index[i]) * rb], rb);
  for (const char* limit : {"--memory", "--device-memory"}) {
    CAPTURE(limit);
    const Outcome r = w.run({"sort", w / "in.npy", w / "out.npy", "--values", w / "recs.npy", "--values-out", w / "vout.npy",
                             limit, "256k", "--tmp-dir", w / "tmp", "--check", "-v"});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK_MESSAGE(runs_reported(r.out) >= 4, r.out);
    CHECK(read_file(w / "out.npy") == npy_file(npy_dict("<f8", kN), sorted));
    // The values output is written as format 1.0, its header being short.
    CHECK(read_file(w / "vout.npy") == npy_file(fields, moved));
  }
  // A raw input into a .npy output: the header carries --type's dtype.
  const auto ints = workloads::generate_keys(Key::i32, workloads::default_spec(Distribution::uniform), kN, 6);
  write_file(w / "in.bin", ints);
  const Outcome raw = w.run({"sort", w / "in.bin", w / "ints.npy", "--type", "i32", "--memory", "128k", "-v"});
  REQUIRE_MESSAGE(raw.code == 0, raw.err);
  CHECK_MESSAGE(runs_reported(raw.out) >= 4, raw.out);
  std::vector<std::byte> sorted_ints = ints;
  workloads::reference_sort(Key::i32, Order::ascending, sorted_ints, {});
  CHECK(read_file(w / "ints.npy") == npy_file(npy_dict("<i4", kN), sorted_ints));
  // A .npy input whose data fall short of its shape is refused before anything is written.
  std::vector<std::byte> short_file = npy_file(npy_dict("<f8", kN), keys);
  short_file.resize(short_file.size() - 8);
  write_file(w / "short.npy", short_file);
  const Outcome bad = w.run({"sort", w / "short.npy", w / "s.npy", "--memory", "64k"});
  CHECK(bad.code == 2);
  check_one_line(bad, "data bytes");
  CHECK(w.listing() == std::vector<std::string>{"in.bin", "in.npy", "ints.npy", "out.npy", "recs.npy", "short.npy", "tmp", "vout.npy"});
}

TEST_CASE("vksort sort out of core: --begin-bit/--end-bit order by those bits, stably, as in memory") {
  Workspace w;
  const auto keys = workloads::generate_keys(Key::u64, workloads::default_spec(Distribution::uniform), kN, 7);
  write_file(w / "in.bin", keys);
  write_file(w / "v.bin", index_values(kN));
  const std::vector<std::string> common = {"sort", w / "in.bin", "--type", "u64", "--begin-bit", "3", "--end-bit", "17",
                                           "--descending", "--values", w / "v.bin"};
  std::vector<std::string> in_memory = common, out_of_core = common;
  in_memory.insert(in_memory.end(), {w / "mem.bin", "--values-out", w / "vmem.bin"});
  out_of_core.insert(out_of_core.end(), {w / "out.bin", "--values-out", w / "vout.bin", "--memory", "256k", "--check", "-v"});
  const Outcome m = w.run(in_memory);
  REQUIRE_MESSAGE(m.code == 0, m.err);
  const Outcome r = w.run(out_of_core);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK_MESSAGE(runs_reported(r.out) >= 4, r.out);
  std::vector<std::byte> sorted = keys;
  std::vector<uint32_t> index(kN);
  std::iota(index.begin(), index.end(), 0u);
  workloads::reference_sort(Key::u64, Order::descending, sorted, index, 3, 17);
  CHECK(read_file(w / "out.bin") == sorted);
  CHECK(read_file(w / "vout.bin") == std::vector<std::byte>(std::as_bytes(std::span(index)).begin(), std::as_bytes(std::span(index)).end()));
  CHECK(read_file(w / "mem.bin") == sorted);
  CHECK(read_file(w / "vmem.bin") == read_file(w / "vout.bin"));
}

TEST_CASE("vksort sort out of core: a progress bar with the phase and time left on a terminal only") {
  Workspace w;
  const auto keys = workloads::generate_keys(Key::u32, workloads::default_spec(Distribution::uniform), kN, 2);
  write_file(w / "in.bin", keys);
  Limits terminal;
  terminal.terminal = true;
  const Outcome r = w.run({"sort", w / "in.bin", w / "out.bin", "--memory", "64k"}, terminal);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK_MESSAGE(r.err.find("sorting run") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("merging") != std::string::npos, r.err);
  expect_sorted(Key::u32, Order::ascending, keys, w / "out.bin", {});
  const Outcome quiet = w.run({"sort", w / "in.bin", w / "out2.bin", "--memory", "64k"});
  CHECK(quiet.code == 0);
  CHECK(quiet.err.empty());
}

TEST_CASE("vksort sort out of core: a full disk, SIGXFSZ, SIGINT and SIGKILL leave no temporary file and no output") {
  Workspace w;
  // 16 MB in 128 runs: the merge takes long enough (about 8000 output buffers, 0.1 s or more here) for a
  // signal sent when it is first shown to land in it, even on a loaded machine.
  const auto keys = workloads::generate_keys(Key::u64, workloads::default_spec(Distribution::uniform), 2u << 20, 6);
  write_file(w / "in.bin", keys);
  const std::vector<std::string> args = {"sort", w / "in.bin", w / "out.bin", "--type", "u64", "--memory", "256k",
                                         "--tmp-dir", w / "tmp"};
  const std::vector<std::string> untouched = {"in.bin", "tmp"};

  Limits full;
  full.file_size = keys.size() / 2;  // the run data cannot all be written
  full.ignore_sigxfsz = true;
  Outcome r = w.run(args, full);
  CHECK(r.code == 1);
  check_one_line(r, "writing temporary run data in '" + (w / "tmp") + "': File too large");
  CHECK(w.listing() == untouched);

  // With SIGXFSZ as a shell leaves it (the default kills): the CLI ignores it itself, so the limit is
  // reported the same way, not a death by signal with no message.
  full.ignore_sigxfsz = false;
  r = w.run(args, full);
  CHECK(r.signal == 0);
  CHECK(r.code == 1);
  check_one_line(r, "writing temporary run data in '" + (w / "tmp") + "': File too large");
  CHECK(w.listing() == untouched);

  // Signals while runs are written and while they are merged: the library's files have no name until
  // complete, so not even SIGKILL leaves one behind.
  for (int sig : {SIGINT, SIGKILL})
    for (std::string phase : {"sorting run 2 of", "merging"}) {
      CAPTURE(sig);
      CAPTURE(phase);
      Limits during;
      during.signal = sig;
      during.signal_on = phase;
      r = w.run(args, during);
      CHECK_MESSAGE(r.signal == sig, r.err);
      CHECK(w.listing() == untouched);
    }
}

TEST_CASE("vksort sort out of core: bad input is one line, exit 2, nothing written") {
  Workspace w;
  write_file(w / "odd.bin", std::vector<std::byte>(400003));
  write_file(w / "in.bin", std::vector<std::byte>(400000));
  const std::vector<std::string> base = {"sort", w / "odd.bin", w / "out.bin", "--memory", "64k"};
  check_one_line(w.run(base), "holds 400003 bytes, not a multiple of 4");
  CHECK(w.run(base).code == 2);
  Outcome r = w.run({"sort", w / "in.bin", w / "out.bin", "--memory", "64k", "--tmp-dir", w / "nowhere"});
  CHECK(r.code == 2);
  check_one_line(r, "--tmp-dir");
  r = w.run({"sort", w / "in.bin", w / "out.bin", "--tmp-dir", w / "nowhere"});  // small enough for memory
  CHECK(r.code == 2);
  check_one_line(r, "--tmp-dir");
  r = w.run({"sort", w / "in.bin", w / "out.bin", "--memory", "lots"});
  CHECK(r.code == 2);
  check_one_line(r, "--memory 'lots' is not a number of bytes");
  r = w.run({"sort", w / "in.bin", w / "out.bin", "--memory", "64k", "--values", w / "in.bin", "--values-out",
             w / "vout.bin", "--value-bytes", "12"});
  CHECK(r.code == 2);
  check_one_line(r, "one 12-byte record per key");
  CHECK(w.listing() == std::vector<std::string>{"in.bin", "odd.bin", "tmp"});
}

// A name longer than the file system takes (ENAMETOOLONG) passed the up-front destination checks and
// failed at the rename after the whole sort or benchmark, exit 1: now refused first, exit 2.
TEST_CASE("vksort sort and bench: an output name longer than the file system takes is refused before any work") {
  Workspace w;
  write_file(w / "in.bin", std::vector<std::byte>(400000));
  const long name_max = pathconf((w / "tmp").c_str(), _PC_NAME_MAX);
  REQUIRE(name_max > 0);
  const std::string too_long = w / (std::string(size_t(name_max) - 3, 'y') + ".bin");
  for (const auto& args : std::vector<std::vector<std::string>>{{"sort", w / "in.bin", too_long},
                                                                {"sort", w / "in.bin", too_long, "--memory", "64k"},
                                                                {"sort", w / "in.bin", w / "out.bin", "--values", w / "in.bin", "--values-out", too_long, "--memory", "64k"},
                                                                {"bench", "--n", "1000", "--repeat", "1", "--json", too_long}}) {
    const Outcome r = w.run(args);
    CHECK_MESSAGE(r.code == 2, args[0] << " " << args.back());
    check_one_line(r, "File name too long");
    CHECK_MESSAGE(r.out.empty(), r.out);  // no benchmark ran
  }
  CHECK(w.listing() == std::vector<std::string>{"in.bin", "tmp"});
}

TEST_CASE("vksort sort out of core: options the library refuses are usage errors (exit 2), as in memory") {
  Workspace w;
  write_file(w / "in.bin", std::vector<std::byte>(400000));
  // They exited 1 out of core: the size decided the path before the options were checked.
  const std::vector<std::vector<std::string>> refused = {{"--algo", "brick", "--begin-bit", "4", "--end-bit", "8"},
                                                         {"--begin-bit", "8", "--end-bit", "4"},
                                                         {"--end-bit", "40"},
                                                         {"--workgroup-size", "3"},
                                                         {"--algo", "sample", "--begin-bit", "1"}};
  for (const auto& options : refused)
    for (bool out_of_core : {false, true}) {
      std::vector<std::string> args = {"sort", w / "in.bin", w / "out.bin"};
      args.insert(args.end(), options.begin(), options.end());
      if (out_of_core) args.insert(args.end(), {"--memory", "64k"});
      CAPTURE(args.back());
      const Outcome r = w.run(args);
      CHECK(r.code == 2);
      check_one_line(r, "sorting 100000 u32 keys");
    }
  CHECK(w.listing() == std::vector<std::string>{"in.bin", "tmp"});
}

// A device budget that holds only a few keys with the sort's scratch (sample sort's is large) made
// runs of one key each (100000 runs, a minute of merging): fewer than 64 keys a run are refused.
TEST_CASE("vksort sort out of core: a device budget below runs of 64 keys is refused") {
  Workspace w;
  write_file(w / "in.bin", std::vector<std::byte>(kN * 4));
  const Outcome r = w.run({"sort", w / "in.bin", w / "out.bin", "--algo", "sample", "--device-memory", "64k"});
  CHECK(r.code == 2);
  check_one_line(r, "cannot hold a run of 64 u32 keys with its scratch");
  CHECK(w.listing() == std::vector<std::string>{"in.bin", "tmp"});
}

// Element-wise brick sort takes at most 65536 keys: a host budget that allowed larger runs made it
// refuse the first run, exit 1, after the input was opened. Runs are now cut to its limit. (Sorted
// input with neighbours swapped: the brick rounds stop after a few, so three runs take seconds.)
TEST_CASE("vksort sort out of core: element-wise brick sort gets runs it takes") {
  Workspace w;
  const uint64_t n = 2 * 65536 + 3;
  std::vector<uint32_t> keys(n);
  for (uint64_t i = 0; i < n; ++i) keys[i] = uint32_t(i * 7);
  for (uint64_t i = 1; i + 1 < n; i += 1000) std::swap(keys[i], keys[i + 1]);
  const std::vector<std::byte> bytes(std::as_bytes(std::span(keys)).begin(), std::as_bytes(std::span(keys)).end());
  write_file(w / "in.bin", bytes);
  // A budget of 65537 keys per run (two copies of each key), below the input's size.
  const Outcome r = w.run({"sort", w / "in.bin", w / "out.bin", "--algo", "brick", "--variant", "pairs", "--memory",
                           std::to_string(2 * 4 * 65537), "-v"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK_MESSAGE(r.out.find("3 runs of up to 65536 keys") != std::string::npos, r.out);
  expect_sorted(Key::u32, Order::ascending, bytes, w / "out.bin", "");
}

TEST_CASE("vksort sort: a stream output keeps the run data in $TMPDIR and -v's line out of the data") {
  Workspace w;
  const auto keys = workloads::generate_keys(Key::u32, workloads::default_spec(Distribution::uniform), kN, 3);
  write_file(w / "in.bin", keys);
  const std::vector<std::string> to_null = {"sort", w / "in.bin", "/dev/null", "--memory", "64k"};
  {
    // The output's folder, /dev, is no place for run data (unwritable, or memory): $TMPDIR is.
    const ScopedEnv nowhere("TMPDIR", w / "nowhere");
    const Outcome r = w.run(to_null);
    CHECK(r.code == 2);
    check_one_line(r, "$TMPDIR");
  }
  {
    const ScopedEnv tmp("TMPDIR", w / "tmp");
    const Outcome r = w.run(to_null);
    CHECK_MESSAGE(r.code == 0, r.err);
  }
  {
    // An empty $TMPDIR is unset, as POSIX has it (it was taken for a folder named "": "No such file or
    // directory"): the next place std::filesystem::temp_directory_path looks ($TMP) then /tmp.
    const ScopedEnv empty("TMPDIR", ""), tmp("TMP", w / "tmp");
    const Outcome r = w.run(to_null);
    CHECK_MESSAGE(r.code == 0, r.err);
  }
  // The child's stdout is a file here, which /dev/stdout names: -v's line goes to stderr, in memory
  // and out of core, and the data alone to stdout.
  for (bool out_of_core : {false, true}) {
    CAPTURE(out_of_core);
    std::vector<std::string> args = {"sort", w / "in.bin", "/dev/stdout", "-v"};
    if (out_of_core) args.insert(args.end(), {"--memory", "64k"});
    const Outcome r = w.run(args);
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(r.err.starts_with("sorted " + std::to_string(kN) + " u32 keys"));
    REQUIRE(r.out.size() == keys.size());
    write_file(w / "streamed.bin", std::as_bytes(std::span(r.out.data(), r.out.size())));
    expect_sorted(Key::u32, Order::ascending, keys, w / "streamed.bin", {});
    fs::remove(w / "streamed.bin");
    if (!out_of_core) continue;
    // The end-to-end time includes the output's commit, which the write time counts too.
    // (No std::regex: GCC 12's -Wmaybe-uninitialized fires inside <regex> in the sanitizer build.)
    const size_t in_at = r.err.find(" in "), write_at = r.err.find(" write ");
    REQUIRE_MESSAGE((in_at != std::string::npos && write_at != std::string::npos && in_at < write_at), r.err);
    CHECK_MESSAGE(std::stod(r.err.substr(in_at + 4)) >= std::stod(r.err.substr(write_at + 7)), r.err);
  }
  CHECK(w.listing() == std::vector<std::string>{"in.bin", "tmp"});
}

// /dev/stdout redirected to a file is that file: the run data and a pipe's spool file go beside it. They
// went to /dev, the folder of the name given: refused to users ("cannot create a temporary file in
// '/dev'", exit 2), and memory (devtmpfs) for root.
TEST_CASE("vksort sort out of core: /dev/stdout that is a file keeps the temporary data beside that file, not in /dev") {
  Workspace w;
  const auto keys = workloads::generate_keys(Key::u32, workloads::default_spec(Distribution::uniform), kN, 8);
  write_file(w / "in.bin", keys);
  // The user nobody works in the workspace.
  const fs::path work = fs::path(w / "in.bin").parent_path();
  for (const fs::path& d : {work.parent_path(), work, work / "tmp"}) fs::permissions(d, fs::perms::all);
  fs::permissions(w / "in.bin", fs::perms::all);
  Limits as_user;
  as_user.nobody = true;
  for (bool piped : {false, true}) {
    CAPTURE(piped);
    std::optional<FifoFeeder> feed;
    if (piped) {
      feed.emplace(w / "k.fifo", keys);
      fs::permissions(w / "k.fifo", fs::perms::all);
    }
    const Outcome r = w.run({"sort", piped ? w / "k.fifo" : w / "in.bin", "/dev/stdout", "--memory", "64k", "-v"}, as_user);
    if (feed) feed->finish();
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK_MESSAGE(r.err.find("out of core") != std::string::npos, r.err);
    REQUIRE(r.out.size() == keys.size());
    write_file(w / "streamed.bin", std::as_bytes(std::span(r.out.data(), r.out.size())));
    expect_sorted(Key::u32, Order::ascending, keys, w / "streamed.bin", {});
    fs::remove(w / "streamed.bin");
    fs::remove(w / "k.fifo");
  }
  CHECK(w.listing() == std::vector<std::string>{"in.bin", "tmp"});
}

TEST_CASE("vksort sort out of core: a tiny --device-memory is reported as given, not as 0 bytes") {
  Workspace w;
  write_file(w / "in.bin", std::vector<std::byte>(4000));
  const Outcome r = w.run({"sort", w / "in.bin", w / "out.bin", "--device-memory", "1"});
  CHECK(r.code == 2);
  check_one_line(r, "90% of its 1-byte heap");
  check_one_line(r, "cannot hold a run of 64 u32 keys");
  CHECK(w.listing() == std::vector<std::string>{"in.bin", "tmp"});
}
