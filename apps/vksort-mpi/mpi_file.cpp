// SPDX-License-Identifier: MIT
#include "mpi_file.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <string_view>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vksort/external.hpp>
#include <vksort/types.hpp>

#include "io/atomic_file.hpp"
#include "io/format_bytes.hpp"
#include "steps.hpp"

namespace vksort::mpi_cli {

namespace fs = std::filesystem;

namespace {

// MPI-IO counts are int: move at most 1 GiB per call.
constexpr uint64_t io_chunk = uint64_t(1) << 30;

// Rank 0's temporary output has a name from the start (every rank, on any node, opens it by name
// before anything is written), so it is not an io::AtomicFile (nameless until finished); the CLI's
// signal handler removes it all the same (io::remove_on_signals), while this slot holds it.
int g_temp_slot = -1;

// Blocks the cleanup signals while alive, so that none lands between the creation of the temporary
// and its registration for the handler (it is delivered, and cleans up, once they are unblocked).
struct CleanupSignalsBlocked {
  sigset_t old;
  CleanupSignalsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : io::cleanup_signals()) sigaddset(&set, sig);
    pthread_sigmask(SIG_BLOCK, &set, &old);
  }
  ~CleanupSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old, nullptr); }
};

// Creates rank 0's temporary output beside `target` (same file system: the rename is atomic), hidden
// and named after it as the CLI's temporaries are (".out.bin.vksort-mpi-XXXXXX"), so that one left by
// a crash (SIGKILL) neither clutters a listing nor hides what it is. Registered for the handler.
std::string create_temp(const std::string& destination) {
  const fs::path target = io::link_target(destination);
  // Long names cut so that the suffix still fits in NAME_MAX; built by append (GCC 12's false -Wrestrict).
  std::string name = ".";
  name.append(target.filename().string().substr(0, 200)).append(".vksort-mpi-XXXXXX");
  std::string pattern = (target.parent_path() / name).string();
  io::install_cleanup_on_signals();
  const CleanupSignalsBlocked blocked;
  const int fd = mkstemp(pattern.data());
  if (fd < 0)
    throw Failure(exit_usage, "output " + in_quotes(destination) + ": cannot create a file beside it: " +
                                  std::strerror(errno));
  // mkstemp's 0600 while the ranks write it (every rank opens it for writing: the mode of a read-only
  // destination, 0444, made that fail, reported as a folder the ranks do not share); the output's own
  // mode is given just before the rename.
  close(fd);
  g_temp_slot = io::remove_on_signals(pattern);
  return pattern;
}

// Faults on demand for tests/mpi/cli_test.sh, once the temporary output exists:
//   VKSORT_MPI_TEST_FAULT=die:R  rank R exits at once without a word (a crashed rank: mpirun then ends
//                                the others with SIGTERM, and rank 0's handler removes the temporary);
//   VKSORT_MPI_TEST_FAULT=pause  every rank says "paused: rank R pid P" on stderr and sleeps 60 s (so a
//                                test can interrupt a run mid-write, or signal one rank);
//   VKSORT_MPI_TEST_FAULT=fsize:B  files may grow to B bytes only (RLIMIT_FSIZE, SIGXFSZ ignored): the
//                                kernel's own "File too large" where a disk would say it is full. Set
//                                here, not by the shell, because MPI_Init needs its shared-memory files.
//   VKSORT_MPI_TEST_FAULT=nomem:R  rank R runs out of host memory copying its keys for the sort
//                                (test_fault_nomem), as a rank on a node with less memory would.
void test_fault_point(int rank) {
  const char* fault = std::getenv("VKSORT_MPI_TEST_FAULT");
  if (!fault) return;
  const std::string f = fault;
  if (f == "pause") {
    const std::string line = "paused: rank " + std::to_string(rank) + " pid " + std::to_string(getpid()) + "\n";
    [[maybe_unused]] const ssize_t said = ::write(2, line.data(), line.size());
    sleep(60);
  }
  if (f.starts_with("fsize:")) {
    const rlimit limit{rlim_t(std::atoll(f.c_str() + 6)), rlim_t(std::atoll(f.c_str() + 6))};
    std::signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  if (f.starts_with("die:") && std::atoi(f.c_str() + 4) == rank) _exit(3);
}

void check(int rc, const std::string& what) {
  if (rc != MPI_SUCCESS) throw Failure(exit_runtime, what + ": " + mpi_error_text(rc));
}

// A fingerprint of a file's contents, so that ranks which see files of one name and one size can tell
// whether they hold the same bytes: 16 blocks of 4 KiB spread evenly over the file (the whole of a
// file up to 64 KiB), hashed with FNV-1a. Reading all of it on every rank would cost p reads of the
// input; these samples cost 64 KiB a rank and catch a file that differs in any sampled block (another
// copy, another run's data), not one that differs only between them.
std::string sampled_fingerprint(const std::string& path, uint64_t size) {
  constexpr uint64_t block = 4096, blocks = 16;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Failure(exit_usage, "input " + in_quotes(path) + ": cannot open it: " + std::strerror(errno));
  uint64_t hash = 14695981039346656037ull;
  std::vector<unsigned char> bytes(block);
  for (uint64_t i = 0; i < blocks; ++i) {
    const uint64_t offset = size <= block * blocks ? i * block : (size - block) * i / (blocks - 1);
    if (offset >= size) break;
    const size_t want = size_t(std::min(block, size - offset));
    const ssize_t got = ::pread(fd, bytes.data(), want, off_t(offset));
    if (got != ssize_t(want)) {
      const std::string why = got < 0 ? std::strerror(errno) : "it ended early (did it change?)";
      ::close(fd);
      throw Failure(exit_runtime, "input " + in_quotes(path) + ": reading: " + why);
    }
    for (size_t j = 0; j < want; ++j) hash = (hash ^ bytes[j]) * 1099511628211ull;
  }
  ::close(fd);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

// [first, first + count) of n keys for `rank` of p: the first n % p ranks take one more.
void slice_of(uint64_t n, int rank, int p, uint64_t* first, uint64_t* count) {
  const uint64_t base = n / uint64_t(p), extra = n % uint64_t(p), r = uint64_t(rank);
  *first = r * base + std::min(r, extra);
  *count = base + (r < extra ? 1 : 0);
}

}  // namespace

void test_fault_nomem(int rank) {
  const char* fault = std::getenv("VKSORT_MPI_TEST_FAULT");
  if (fault && std::string_view(fault).starts_with("nomem:") && std::atoi(fault + 6) == rank) throw std::bad_alloc();
}

void check_host_memory(MPI_Comm comm, uint64_t key_bytes_here, const std::string& what) {
  // The sum over the ranks on this rank's node (collective).
  const uint64_t mine = key_bytes_here * 4;
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  uint64_t need = 0;
  MPI_Allreduce(&mine, &need, 1, MPI_UINT64_T, MPI_SUM, node);
  MPI_Comm_free(&node);
  step(comm, [&] {
    const uint64_t available = external::available_host_memory();
    if (available != 0 && need > available)
      throw Failure(exit_usage, what + ": the ranks on this node need about " + io::format_bytes(need) +
                                    " of host memory (4 times their keys), more than its " +
                                    io::format_bytes(available) + " available (MemAvailable)");
  });
}

void check_destination(MPI_Comm comm, const std::string& destination) {
  // On every rank: with per-rank working folders (mpirun --wdir) or nodes that do not share the folder,
  // one rank may lack it; the collective open of the output would then wait forever on the others.
  step(comm, [&] {
    try {
      // The folder exists and is writable, the name is not empty and no folder.
      io::check_destination(destination, "output");
    } catch (const io::FileError& e) {
      throw Failure(exit_usage, e.what());
    }
    // Every rank writes its part at its offset (MPI-IO), which a pipe or a device cannot take; and a
    // temporary file renamed over /dev/stdout would replace the link itself.
    std::error_code ec;
    if (fs::exists(destination, ec) && !fs::is_regular_file(destination, ec))
      throw Failure(exit_usage, "output " + in_quotes(destination) +
                                    " is no regular file (a pipe or a device): the distributed sort writes a file by offsets");
  });
}

std::vector<std::byte> read_slice(MPI_Comm comm, const std::string& path, uint32_t key_bytes, uint64_t* total) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  // MPI_File_open is collective, and where it fails on some ranks only (a file one rank cannot see)
  // the others never return from it: so every rank first checks the file, and all agree, before the
  // open. The size too: ranks seeing different files would cut them into slices that do not fit.
  uint64_t size = 0;
  step(comm, [&] {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || ::access(path.c_str(), R_OK) != 0)
      throw Failure(exit_usage, "input " + in_quotes(path) + ": cannot open it: " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw Failure(exit_usage, "input " + in_quotes(path) + " is a folder");
    if (!S_ISREG(st.st_mode))
      throw Failure(exit_usage, "input " + in_quotes(path) +
                                    " is not a regular file (a pipe or device); every rank reads its part at an offset");
    size = uint64_t(st.st_size);
  });
  require_same(comm, {{"the size of input " + in_quotes(path) + " (do all ranks see the same file?)",
                       std::to_string(size) + " bytes"}});
  // Of one size, but other contents (a copy per node that another run rewrote): the slices would come
  // from different data, and the output would be sorted but not the input's.
  std::string fingerprint;
  step(comm, [&] { fingerprint = sampled_fingerprint(path, size); });
  require_same(comm, {{"the contents of input " + in_quotes(path) + " (sampled; do all ranks see the same file?)",
                       "fingerprint " + fingerprint}});
  MPI_File file = MPI_FILE_NULL;
  const int rc = MPI_File_open(comm, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &file);
  step(comm, [&] {
    if (rc != MPI_SUCCESS)
      throw Failure(exit_usage, "input " + in_quotes(path) + ": cannot open it: " + mpi_error_text(rc));
  });
  std::vector<std::byte> bytes;
  // Every rank leaves the step alike (agreed), so the collective close below runs on all of them.
  try {
  uint64_t first = 0, count = 0;
  step(comm, [&] {
    if (size % key_bytes != 0)
      throw Failure(exit_usage, "input " + in_quotes(path) + " holds " + std::to_string(size) +
                                    " bytes, not a multiple of " + std::to_string(key_bytes) +
                                    " (the size of one key)");
    *total = uint64_t(size) / key_bytes;
    slice_of(*total, rank, p, &first, &count);
    // Refused before the slice is read: each rank sorts its slice with vksort (at most 2^31 - 1 keys),
    // and a larger one was read, copied and only then refused, or failed reading as "std::bad_alloc".
    // Rank 0's slice is the largest, so every rank refuses alike.
    uint64_t largest = 0, ignored = 0;
    slice_of(*total, 0, p, &ignored, &largest);
    if (largest > max_sort_keys)
      throw Failure(exit_usage, "input " + in_quotes(path) + " holds " + std::to_string(*total) + " keys, " +
                                    std::to_string(largest) + " on a rank of " + std::to_string(p) +
                                    ": vksort sorts at most 2^31 - 1 keys on one rank (run more ranks)");
  });
  // As bench's keys: a slice the node cannot hold (with the sort's copies) got its ranks ended by the
  // OOM killer without a word.
  check_host_memory(comm, count * key_bytes, "input " + in_quotes(path));
  step(comm, [&] {
    bytes.resize(count * key_bytes);
    for (uint64_t done = 0; done < bytes.size();) {
      const int want = int(std::min<uint64_t>(io_chunk, bytes.size() - done));
      MPI_Status status;
      check(MPI_File_read_at(file, MPI_Offset(first * key_bytes + done), bytes.data() + done, want, MPI_BYTE, &status),
            "input " + in_quotes(path) + ": reading");
      int got = 0;
      MPI_Get_count(&status, MPI_BYTE, &got);
      if (got <= 0) throw Failure(exit_runtime, "input " + in_quotes(path) + ": ended early (did it change?)");
      done += uint64_t(got);
    }
  });
  } catch (...) {
    MPI_File_close(&file);
    throw;
  }
  MPI_File_close(&file);
  return bytes;
}

void write_atomic(MPI_Comm comm, const std::string& destination, std::span<const std::byte> mine) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Rank 0 makes the temporary file beside the destination (same file system: rename is atomic) and
  // tells the others its name.
  std::string temp;
  step(comm, [&] {
    // Beside the file a symbolic link names, which is what gets replaced (the link stays).
    if (rank == 0) temp = create_temp(destination);
  });
  broadcast(comm, temp, 0);

  auto remove_temp = [&] {
    if (rank == 0) {
      std::remove(temp.c_str());  // before the handler forgets it: a signal in between still finds it
      io::forget_on_signals(g_temp_slot);
      g_temp_slot = -1;
    }
  };
  MPI_File file = MPI_FILE_NULL;
  try {
    uint64_t size = mine.size(), offset = 0;
    MPI_Exscan(&size, &offset, 1, MPI_UINT64_T, MPI_SUM, comm);
    if (rank == 0) offset = 0;  // MPI_Exscan leaves rank 0's undefined
    // Ranks whose output folder is another one of the same name (per-rank working folders, nodes that
    // do not share it) do not see rank 0's file: refused here, as the collective open would hang.
    step(comm, [&] {
      if (::access(temp.c_str(), W_OK) != 0)
        throw Failure(exit_usage, "output " + in_quotes(destination) + ": rank 0's temporary file " +
                                      in_quotes(temp) + " is not visible here (do all ranks see the same folder?)");
    });
    const int rc = MPI_File_open(comm, temp.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &file);
    step(comm, [&] {
      if (rc != MPI_SUCCESS) throw Failure(exit_runtime, "output " + in_quotes(destination) + ": " + mpi_error_text(rc));
    });
    test_fault_point(rank);
    step(comm, [&] {
      for (uint64_t done = 0; done < mine.size();) {
        const int n = int(std::min<uint64_t>(io_chunk, mine.size() - done));
        MPI_Status status;
        check(MPI_File_write_at(file, MPI_Offset(offset + done), mine.data() + done, n, MPI_BYTE, &status),
              "output " + in_quotes(destination) + ": writing");
        // Open MPI's ompio reports a failed write(2) (a full disk, EFBIG) only in the count written,
        // with MPI_SUCCESS: a short count is the error, never a file to rename into place.
        int written = 0;
        MPI_Get_count(&status, MPI_BYTE, &written);
        // done counts this rank's bytes; offset + done is only where they go in the file.
        if (written <= 0)
          throw Failure(exit_runtime, "output " + in_quotes(destination) + ": writing: " + std::to_string(done) +
                                          " of this rank's " + std::to_string(mine.size()) +
                                          " bytes written (at file offset " + std::to_string(offset) +
                                          "), the next " + std::to_string(n) + " were refused (is the disk full?)");
        done += uint64_t(written);
      }
    });
    // Collective: flushes every rank's part to the file before anyone renames it.
    const int synced = MPI_File_sync(file);
    const int closed = MPI_File_close(&file);
    step(comm, [&] {
      check(synced, "output " + in_quotes(destination) + ": flushing");
      check(closed, "output " + in_quotes(destination) + ": closing");
    });
    step(comm, [&] {
      if (rank != 0) return;
      // As any vksort output: the mode of the file it replaces, else the umask's.
      if (::chmod(temp.c_str(), io::output_mode(destination)) != 0)
        throw Failure(exit_runtime, "output " + in_quotes(destination) + ": setting the finished file's mode: " +
                                        std::strerror(errno));
      std::error_code ec;
      fs::rename(temp, io::link_target(destination), ec);
      if (ec) throw Failure(exit_runtime, "output " + in_quotes(destination) + ": renaming the finished file: " + ec.message());
      io::forget_on_signals(g_temp_slot);
      g_temp_slot = -1;
    });
  } catch (...) {
    // Failures are agreed, so every rank that opened the file closes it here together.
    if (file != MPI_FILE_NULL) MPI_File_close(&file);
    remove_temp();
    throw;
  }
}

}  // namespace vksort::mpi_cli
