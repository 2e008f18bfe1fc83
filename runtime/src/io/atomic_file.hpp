// SPDX-License-Identifier: MIT
// atomic_file.hpp — replacing a file so that it holds either its old contents or the complete new
// ones, never a part: after a failure, a crash or Ctrl-C the destination is as it was.
//
// The data goes to a temporary file in the destination's folder (same filesystem, so rename(2) is
// atomic), is fsynced, and only commit() renames it over the destination. The temporary file has no
// name (O_TMPFILE) until finish(), so not even SIGKILL leaves it behind; where the filesystem lacks
// O_TMPFILE it is a hidden named file. A named temporary is removed by the destructor, or by the signal
// handler that install_cleanup_on_signals() sets.
//
// The one implementation for the library (the auto profile cache), the CLI's outputs and the particle
// app's files. It is compiled into each of them (CMake object library vksort_io), never exported from
// a shared libvksort: it is no part of the public API.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace vksort::io {

// What went wrong, and whose fault it is: `destination` means the path cannot take a file (no such
// folder, not a folder, not writable, a folder in the way): fix the input. `io` means writing failed
// (disk full, I/O error). Callers map the two to their own errors (the CLI: exit 2 and exit 1).
class FileError : public std::runtime_error {
 public:
  enum class Kind { destination, io };
  FileError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// Permissions a new output gets: those of the file it replaces, else what open(2) would give under
// the umask (mkstemp's 0600 would silently hide outputs from the user's group).
mode_t output_mode(const std::filesystem::path& destination);

// True for the errno with which open(folder, O_TMPFILE) says the filesystem has no unnamed files
// (EOPNOTSUPP; older kernels may say EISDIR, EINVAL or ENOENT): callers then fall back to a named file.
bool tmpfile_unsupported(int err);

// A file in `folder`, open for reading and writing, that no name reaches, so nothing outlives the
// process whatever ends it: O_TMPFILE, else a file named `<prefix>XXXXXX` created and unlinked at once.
// Returns the descriptor (close-on-exec), or -1 with errno set. The out-of-core sort's run data and the
// CLI's spooled pipes.
int unnamed_file(const std::filesystem::path& folder, const std::string& prefix);

// The checks an AtomicFile makes of its destination before it creates anything: the folder exists, is
// a folder and (that of the file a link names) is writable, the destination is no folder, and neither its
// name nor its path (nor its temporary's) is longer than the file system takes (ENAMETOOLONG); an
// existing pipe or device (a stream, see AtomicFile) need only be writable. Then a trial file is created
// in the folder as AtomicFile would create its temporary, and removed (access(2) passes root in folders
// that take no files, such as /proc). For callers that write a file only at the end of a long run, so
// that a bad path is refused at the start. Throws FileError (destination) naming `role` and the file.
void check_destination(const std::filesystem::path& destination, const std::string& role);

// The file a destination names once its symbolic links are followed (dangling ones too): what an
// output replaces, so that the links stay (renaming over a link would turn it into a plain file).
// Throws FileError (destination) for a loop of links (ELOOP).
std::filesystem::path link_target(const std::filesystem::path& destination);

// True when two destinations name one file: the files their links lead to (dangling links too), made
// absolute, the existing part of each resolved (symbolic links, "." and ".."), so "o.bin", "./o.bin"
// and a link to o.bin match before any exists. Callers refuse such a pair: the second output written
// would silently replace the first.
bool same_destination(const std::filesystem::path& a, const std::filesystem::path& b);

// A destination that is a symbolic link keeps it: the file the link names is replaced. An existing
// destination that is no regular file (a terminal, a pipe, /dev/null, /dev/stdout) is a stream: written
// straight through (nothing there to replace, so nothing is atomic), commit() only closes it.
class AtomicFile {
 public:
  // Creates the temporary file next to `destination` (opens a stream). Throws FileError (destination),
  // naming `role` ("output") and the file, when the folder does not exist, is not writable, or the
  // destination is a folder.
  AtomicFile(std::filesystem::path destination, std::string role);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::filesystem::path& destination() const { return destination_; }
  bool stream() const { return stream_; }  // written straight through (see above)

  // Appends to the temporary file. Throws FileError (io: disk full, I/O error).
  void write(std::span<const std::byte> data);
  void write(std::string_view text) { write(std::as_bytes(std::span(text.data(), text.size()))); }
  // Overwrites bytes already written at `offset` (a header completed at the end, as GSD's is); the
  // next write() still appends. Throws FileError (io).
  void write_at(uint64_t offset, std::span<const std::byte> data);
  // Flushes the data to the disk, gives the temporary file its hidden name and closes it; what is
  // left (commit's rename) cannot fail half-way.
  // Throws FileError (io).
  void finish();
  // Renames the finished temporary file over the destination and syncs the folder. Throws FileError (io).
  void commit();
  // Commits several files (an output and its companion, e.g. sorted keys and values) as close together
  // as can be: all are flushed to the disk (the slow part: seconds for large files) before any gets
  // its hidden name, then all are linked and renamed, then their folders synced. A SIGKILL thus finds
  // a named temporary only within a few system calls, not during another file's flush. Throws
  // FileError (io); files not yet renamed are then removed by their destructors as usual.
  static void commit_all(std::initializer_list<AtomicFile*> files);

 private:
  std::filesystem::path destination_;
  std::filesystem::path target_;  // the file replaced: destination_ with its symbolic links followed
  std::string role_;
  std::string temp_path_;
  bool stream_ = false;
  int fd_ = -1;
  int slot_ = -1;  // where the signal handler finds temp_path_
  bool committed_ = false;

  void sync();             // the flush alone
  void link_and_close();   // finish() after the flush
  void rename_into_place();  // commit() before the folder's sync
};

// A file written in place as it grows (a trajectory, a time series), for outputs whose writer keeps
// them valid after every append (a GSD frame and then its index entries, a whole XYZ frame, a whole CSV
// row). Until the writer first calls publish() (after its first frame or row), it is an AtomicFile: a run
// that fails before then (bad input, no device) leaves the old destination as it was. From publish() on,
// what is written is in the destination at once, so a run that dies, even by SIGKILL, leaves the part
// written so far, readable.
class GrowingFile {
 public:
  // The same destination checks as AtomicFile's. Throws FileError (destination).
  GrowingFile(std::filesystem::path destination, std::string role);
  ~GrowingFile();
  GrowingFile(const GrowingFile&) = delete;
  GrowingFile& operator=(const GrowingFile&) = delete;

  // Appends, or overwrites bytes at `offset` (the next write() still appends). Throws FileError (io).
  void write(std::span<const std::byte> data);
  void write_at(uint64_t offset, std::span<const std::byte> data);
  // The first call puts the file written so far in place of the destination; later calls do nothing.
  // Throws FileError (io).
  void publish();
  // Publishes, flushes the file to the disk and closes it. Throws FileError (io).
  void close();

 private:
  std::filesystem::path destination_;
  std::string role_;
  std::unique_ptr<AtomicFile> pending_;  // until publish()
  int fd_ = -1;                          // after it
};

// The signals that end a process by default and that a user or a launcher sends to stop a run:
// SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT (after which the process still dumps core as it would),
// SIGUSR1 and SIGUSR2 (mpirun forwards them; batch systems send them before a kill).
std::span<const int> cleanup_signals();

// Makes the cleanup_signals() remove the temporary files of live AtomicFiles (and the paths given to
// remove_on_signals) before the process dies of the signal as it otherwise would. A signal the process
// ignores (nohup's SIGHUP) stays ignored. Also ignores SIGXFSZ, so that a write past the file size limit
// fails (EFBIG) and is reported like a full disk instead of killing the process mid-file.
void install_cleanup_on_signals();

// For a temporary file that must have its name from the start (vksort-mpi's ranks open rank 0's by
// name), which AtomicFile's is not: the handler above removes `path` until forget_on_signals(slot).
// Returns the slot, -1 when all are taken (then only the caller's own clean-up removes the file).
// Register it with the cleanup_signals() blocked, so that none lands between creation and registration.
int remove_on_signals(const std::string& path);
void forget_on_signals(int slot);

// The folder for temporary files: the first of $TMPDIR, $TMP, $TEMP and $TEMPDIR that is set and not
// empty, else /tmp. std::filesystem::temp_directory_path's rule, but for an empty variable: it takes
// TMPDIR= for a folder named "" and fails (ENOENT), where POSIX and common practice (mktemp, tmpfile)
// read an empty TMPDIR as unset. Sets `ec` and returns an empty path when that is no folder.
std::filesystem::path temp_folder(std::error_code& ec);

// Writes the whole of `contents` to `destination` atomically (one AtomicFile, committed).
void write_file(const std::filesystem::path& destination, const std::string& role, std::string_view contents);

}  // namespace vksort::io
