// SPDX-License-Identifier: MIT
#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace vksort::io {

namespace {

std::string in_quotes(const std::filesystem::path& p) {
  // Built by appending: GCC 12 raises a false -Wrestrict on "'" + std::string(...).
  std::string q = "'";
  q += p.string();
  q += '\'';
  return q;
}
std::string errno_text(int err) { return std::strerror(err); }

// Temporary paths that a signal handler may unlink. A handler may only touch plain memory and
// async-signal-safe calls, so each live AtomicFile (and remove_on_signals path) owns a fixed slot;
// `used` is set after the path is written and cleared before it is reused.
struct CleanupSlot {
  std::atomic<bool> used{false};
  char path[PATH_MAX + 1] = {};
};
std::array<CleanupSlot, 8> g_slots;

}  // namespace

int remove_on_signals(const std::string& path) {
  if (path.size() > PATH_MAX) return -1;
  for (size_t i = 0; i < g_slots.size(); ++i) {
    CleanupSlot& s = g_slots[i];
    if (s.used.load()) continue;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    s.used.store(true);
    return int(i);
  }
  return -1;  // more live files than slots: only the destructor cleans this one up
}

void forget_on_signals(int slot) {
  if (slot >= 0) g_slots[size_t(slot)].used.store(false);
}

namespace {

// C linkage, as a signal handler's; static, because extern "C" alone gives a function external linkage
// even in an unnamed namespace: the static libraries would define this unprefixed global symbol, and an
// application defining one of the same name would fail to link (scripts/check-exports.sh).
extern "C" {
static void remove_temporaries_and_die(int sig) {
  for (auto& s : g_slots)
    if (s.used.load()) unlink(s.path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}
}

std::filesystem::path folder_of(const std::filesystem::path& p) {
  return p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
}

// ".NAME.vksort-SUFFIX": hidden and named after the destination, so a leftover explains itself; long
// names are cut so that the suffix still fits in NAME_MAX. Built by append (GCC 12's -Wrestrict).
std::string hidden_name(const std::filesystem::path& destination, const std::string& suffix) {
  std::string name = ".";
  name.append(destination.filename().string().substr(0, 200)).append(".vksort-").append(suffix);
  return name;
}

// An existing destination that is no regular file or folder (a terminal, a pipe, /dev/null,
// /dev/stdout): written straight through, there being nothing to replace.
bool is_stream(const std::filesystem::path& destination) {
  struct stat st {};
  return stat(destination.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

void sync_folder(const std::filesystem::path& folder) {
  const int fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  fsync(fd);  // durability of the rename only; the new contents are already complete either way
  close(fd);
}

// write(2) or, at an offset, pwrite(2) until all is written; `what` names the file in errors.
void write_all(int fd, std::span<const std::byte> data, const std::string& what) {
  const auto* p = reinterpret_cast<const char*>(data.data());
  size_t left = data.size();
  while (left > 0) {
    const ssize_t w = ::write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw FileError(FileError::Kind::io, "writing " + what + ": " + errno_text(errno));
    }
    p += w;
    left -= size_t(w);
  }
}
void write_all_at(int fd, uint64_t offset, std::span<const std::byte> data, const std::string& what) {
  const auto* p = reinterpret_cast<const char*>(data.data());
  size_t left = data.size();
  while (left > 0) {
    const ssize_t w = ::pwrite(fd, p, left, off_t(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      throw FileError(FileError::Kind::io, "writing " + what + ": " + errno_text(errno));
    }
    p += w;
    offset += uint64_t(w);
    left -= size_t(w);
  }
}

}  // namespace

// Permissions a new output gets: those of the file it replaces, else what open(2) would give under
// the umask. mkstemp creates 0600, which would silently hide outputs from the user's group.
mode_t output_mode(const std::filesystem::path& destination) {
  struct stat st {};
  if (stat(destination.c_str(), &st) == 0) return st.st_mode & 07777;
  const mode_t mask = umask(0);  // umask can only be read by setting it
  umask(mask);
  return 0666 & ~mask;
}

bool tmpfile_unsupported(int err) { return err == EOPNOTSUPP || err == EISDIR || err == EINVAL || err == ENOENT; }

int unnamed_file(const std::filesystem::path& folder, const std::string& prefix) {
  int fd = open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0 || !tmpfile_unsupported(errno)) return fd;
  std::string templ = (folder / (prefix + "XXXXXX")).string();
  fd = mkstemp(templ.data());
  if (fd >= 0) {
    unlink(templ.c_str());  // the data stay reachable through fd only
    fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  return fd;
}

namespace {

// Creates a file in `folder` to become `target`, with `mode`: without a name (O_TMPFILE) where the file
// system offers it, else hidden and named after the target (its path in *named). Returns the
// descriptor, or -1 with errno set.
int create_in(const std::filesystem::path& folder, const std::filesystem::path& target, mode_t mode, std::string* named) {
  int fd = open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
  if (fd >= 0 || !tmpfile_unsupported(errno)) return fd;
  std::string templ = (folder / hidden_name(target, "XXXXXX")).string();
  fd = mkstemp(templ.data());
  if (fd >= 0) *named = templ, fcntl(fd, F_SETFD, FD_CLOEXEC);
  return fd;
}

// A name longer than the file system takes (a final component past its NAME_MAX, a path past PATH_MAX)
// passes every other check, the trial file included (unnamed, or a hidden name cut to fit), and failed
// only at commit's rename, after all the work (ENAMETOOLONG). So the file system is asked: its longest
// name (pathconf), and lstat(2) of the target and of the longest hidden name the temporary gets (see
// link_and_close), which fails with ENAMETOOLONG, not ENOENT, where a name or the path is too long.
void refuse_long_names(const std::filesystem::path& destination, const std::string& role, const std::filesystem::path& target) {
  const std::filesystem::path folder = folder_of(target);
  // The temporary's hidden name at its longest: this process's id and the largest counter (see link_and_close).
  const std::string hidden = hidden_name(target, std::to_string(getpid()) + "-" + std::to_string(UINT_MAX));
  const long name_max = pathconf(folder.c_str(), _PC_NAME_MAX);  // -1: no limit, or unknown
  for (const std::string& name : {target.filename().string(), hidden})
    if (name_max > 0 && name.size() > size_t(name_max))
      throw FileError(FileError::Kind::destination, role + " " + in_quotes(destination) + ": " + errno_text(ENAMETOOLONG) + " (a name of " +
                                                        std::to_string(name.size()) + " bytes; the file system takes up to " +
                                                        std::to_string(name_max) + ")");
  for (const std::filesystem::path& p : {target, folder / hidden}) {
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0 && errno == ENAMETOOLONG)
      throw FileError(FileError::Kind::destination, role + " " + in_quotes(destination) + ": " + errno_text(ENAMETOOLONG) + " (" +
                                                        (p == target ? "a path" : "its temporary file would have a path") + " of " +
                                                        std::to_string(p.string().size()) + " bytes)");
  }
}

// check_destination without its trial file: the paths only. Returns the file the destination names
// (link_target), or an empty path for a stream (written in place, no temporary).
std::filesystem::path check_destination_paths(const std::filesystem::path& destination, const std::string& role) {
  namespace fs = std::filesystem;
  if (destination.empty())  // would pass every check below, and fail at the rename after all the work
    throw FileError(FileError::Kind::destination, role + ": the file name is empty");
  const fs::path folder = folder_of(destination);
  std::error_code ec;
  if (!fs::exists(folder, ec))  // ec: not "no such folder" but another error (a path too long, no permission)
    throw FileError(FileError::Kind::destination, role + " " + in_quotes(destination) + ": folder " + in_quotes(folder) +
                                                      (ec ? ": " + ec.message() : " does not exist"));
  if (!fs::is_directory(folder, ec))
    throw FileError(FileError::Kind::destination, role + " " + in_quotes(destination) + ": " + in_quotes(folder) + " is not a folder");
  if (fs::is_directory(destination, ec))
    throw FileError(FileError::Kind::destination, role + " " + in_quotes(destination) + " is a folder, not a file");
  if (is_stream(destination)) {
    if (access(destination.c_str(), W_OK) != 0)
      throw FileError(FileError::Kind::destination, role + " " + in_quotes(destination) + " is not writable: " + errno_text(errno));
    return {};
  }
  // Where the temporary file goes: beside the file a link names.
  fs::path target;
  try {
    target = link_target(destination);
  } catch (const FileError& e) {
    throw FileError(FileError::Kind::destination, role + " " + e.what());
  }
  const fs::path target_folder = folder_of(target);
  if (access(target_folder.c_str(), W_OK | X_OK) != 0)
    throw FileError(FileError::Kind::destination, role + " " + in_quotes(destination) + ": folder " + in_quotes(target_folder) +
                                                      " is not writable: " + errno_text(errno));
  refuse_long_names(destination, role, target);
  return target;
}

[[noreturn]] void throw_cannot_create(const std::filesystem::path& destination, const std::string& role,
                                      const std::filesystem::path& folder, int err) {
  throw FileError(FileError::Kind::destination,
                  role + " " + in_quotes(destination) + ": cannot create a file in " + in_quotes(folder) + ": " + errno_text(err));
}

}  // namespace

void check_destination(const std::filesystem::path& destination, const std::string& role) {
  const std::filesystem::path target = check_destination_paths(destination, role);
  if (target.empty()) return;  // a stream
  // access(2) answers for the permissions only: root passes it in any folder, also where the file system
  // makes no files (/proc, /sys), which the writer would learn only at the end. So create one, as the
  // writer will: unnamed, or named and removed at once.
  const std::filesystem::path folder = folder_of(target);
  std::string named;
  const int fd = create_in(folder, target, 0600, &named);
  if (fd < 0) throw_cannot_create(destination, role, folder, errno);
  close(fd);
  if (!named.empty()) unlink(named.c_str());
}

bool same_destination(const std::filesystem::path& a, const std::filesystem::path& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // The files the outputs would replace: a link is followed even where it dangles (weakly_canonical
  // alone stops at a link to a file not yet written, and "v.bin -> o.bin" then passed as another file
  // than "o.bin", and the second output replaced the first).
  fs::path ca, cb;
  try {
    ca = fs::weakly_canonical(fs::absolute(link_target(a), ec), ec);
    if (ec) return false;
    cb = fs::weakly_canonical(fs::absolute(link_target(b), ec), ec);
    if (ec) return false;
  } catch (const FileError&) {
    return false;  // a loop of links: refused when the output is opened or checked
  }
  // Hard links and the like: two existing paths to one inode.
  return ca == cb || fs::equivalent(ca, cb, ec);
}

std::filesystem::path link_target(const std::filesystem::path& destination) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = destination;
  // As many links as the kernel follows in a path (MAXSYMLINKS on Linux); past that, a loop (ELOOP),
  // whose last link renaming would turn into a plain file.
  constexpr int kMostLinks = 40;
  for (int hops = 0; fs::is_symlink(p, ec); ++hops) {
    if (hops == kMostLinks)
      throw FileError(FileError::Kind::destination, in_quotes(destination) + ": " + errno_text(ELOOP));
    const fs::path next = fs::read_symlink(p, ec);
    if (ec) break;
    p = next.is_absolute() ? next : folder_of(p) / next;
  }
  // Not lexically_normal(): it drops "link/.." as a pair, where the kernel goes to the folder above the
  // one the link names ("link/../o.bin" was written beside the link, not where the kernel puts it).
  return p;
}

AtomicFile::AtomicFile(std::filesystem::path destination, std::string role)
    : destination_(std::move(destination)), role_(std::move(role)) {
  target_ = check_destination_paths(destination_, role_);
  if (target_.empty()) {  // a stream
    fd_ = open(destination_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0)
      throw FileError(FileError::Kind::destination, role_ + " " + in_quotes(destination_) + ": cannot open it: " + errno_text(errno));
    stream_ = true;
    return;
  }
  const std::filesystem::path folder = folder_of(target_);

  // Preferably a file without a name (O_TMPFILE): nothing is left behind whatever ends the process,
  // SIGKILL included, until finish() links it. Filesystems without O_TMPFILE get a hidden temporary
  // named after the destination (so a leftover explains itself), removed by the destructor or the
  // signal handlers.
  const mode_t mode = output_mode(target_);
  std::string named;
  fd_ = create_in(folder, target_, mode, &named);
  if (fd_ < 0) throw_cannot_create(destination_, role_, folder, errno);
  if (!named.empty()) temp_path_ = named, slot_ = remove_on_signals(temp_path_);
  fchmod(fd_, mode);  // open(2) applied the umask (mkstemp: 0600); a replaced file's permissions are kept as they were
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) close(fd_);
  if (!committed_ && !temp_path_.empty()) unlink(temp_path_.c_str());
  forget_on_signals(slot_);
}

void AtomicFile::write(std::span<const std::byte> data) { write_all(fd_, data, role_ + " " + in_quotes(destination_)); }

void AtomicFile::write_at(uint64_t offset, std::span<const std::byte> data) {
  write_all_at(fd_, offset, data, role_ + " " + in_quotes(destination_));
}

void AtomicFile::sync() {
  if (stream_ || fd_ < 0) return;
  if (fsync(fd_) != 0)
    throw FileError(FileError::Kind::io, "writing " + role_ + " " + in_quotes(destination_) + " to disk: " + errno_text(errno));
}

void AtomicFile::finish() {
  sync();
  link_and_close();
}

void AtomicFile::link_and_close() {
  const std::string what = "writing " + role_ + " " + in_quotes(destination_);
  if (fd_ < 0) return;
  if (stream_) {
    const int fd = fd_;
    fd_ = -1;
    if (close(fd) != 0) throw FileError(FileError::Kind::io, what + ": " + errno_text(errno));
    return;
  }
  if (temp_path_.empty()) {
    // The unnamed file gets a hidden name now (linkat cannot replace a file), and commit() renames
    // that over the destination, atomically on one filesystem.
    static std::atomic<unsigned> counter{0};
    const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
    for (int attempt = 0;; ++attempt) {
      const std::string name =
          (folder_of(target_) / hidden_name(target_, std::to_string(getpid()) + "-" + std::to_string(counter++))).string();
      if (linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        temp_path_ = name;
        slot_ = remove_on_signals(temp_path_);
        break;
      }
      if (errno != EEXIST || attempt > 100)
        throw FileError(FileError::Kind::io, what + ": cannot link the finished file: " + errno_text(errno));
    }
  }
  const int fd = fd_;
  fd_ = -1;
  // close can report a delayed write error (NFS); the data would then not be complete.
  if (close(fd) != 0) throw FileError(FileError::Kind::io, what + ": " + errno_text(errno));
}

void AtomicFile::commit() {
  if (fd_ >= 0) finish();
  rename_into_place();
  if (!stream_) sync_folder(folder_of(target_));
}

void AtomicFile::rename_into_place() {
  if (committed_) return;
  if (!stream_ && std::rename(temp_path_.c_str(), target_.c_str()) != 0)
    throw FileError(FileError::Kind::io, "replacing " + role_ + " " + in_quotes(destination_) + ": " + errno_text(errno));
  committed_ = true;
  forget_on_signals(slot_);
  slot_ = -1;
}

void AtomicFile::commit_all(std::initializer_list<AtomicFile*> files) {
  for (AtomicFile* f : files) f->sync();
  for (AtomicFile* f : files) f->link_and_close();
  for (AtomicFile* f : files) f->rename_into_place();
  for (AtomicFile* f : files)
    if (!f->stream_) sync_folder(folder_of(f->target_));
}

std::span<const int> cleanup_signals() {
  // SIGUSR1 and SIGUSR2 too: Open MPI's mpirun forwards them to the ranks, and batch systems send them
  // as a warning before the kill (they end a process by default, and left vksort-mpi's temporary).
  static constexpr int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2};
  return signals;
}

void install_cleanup_on_signals() {
  // A write past the file size limit (RLIMIT_FSIZE) then fails with EFBIG, which the writers report as
  // any failed write (the file named, exit 1, a stream cut back to its last whole frame), instead of
  // SIGXFSZ killing the process in the middle of a file with no message.
  std::signal(SIGXFSZ, SIG_IGN);
  for (int sig : cleanup_signals()) {
    struct sigaction sa {};
    sa.sa_handler = remove_temporaries_and_die;
    sigemptyset(&sa.sa_mask);
    // Only where the default would kill: a shell that ignores SIGHUP (nohup) keeps doing so.
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sig, &sa, nullptr);
  }
}

std::filesystem::path temp_folder(std::error_code& ec) {
  namespace fs = std::filesystem;
  ec.clear();
  fs::path folder = "/tmp";
  for (const char* name : {"TMPDIR", "TMP", "TEMP", "TEMPDIR"})  // temp_directory_path's order
    if (const char* value = std::getenv(name); value && *value) {
      folder = value;
      break;
    }
  const fs::file_status st = fs::status(folder, ec);
  if (ec) return {};
  if (!fs::is_directory(st)) {
    ec = std::make_error_code(std::errc::not_a_directory);
    return {};
  }
  return folder;
}

void write_file(const std::filesystem::path& destination, const std::string& role, std::string_view contents) {
  AtomicFile file(destination, role);
  file.write(contents);
  file.commit();
}

GrowingFile::GrowingFile(std::filesystem::path destination, std::string role)
    : destination_(std::move(destination)), role_(std::move(role)),
      pending_(std::make_unique<AtomicFile>(destination_, role_)) {}

GrowingFile::~GrowingFile() {
  if (fd_ >= 0) ::close(fd_);
}

void GrowingFile::write(std::span<const std::byte> data) {
  if (pending_)
    pending_->write(data);
  else
    write_all(fd_, data, role_ + " " + in_quotes(destination_));
}

void GrowingFile::write_at(uint64_t offset, std::span<const std::byte> data) {
  if (pending_)
    pending_->write_at(offset, data);
  else
    write_all_at(fd_, offset, data, role_ + " " + in_quotes(destination_));
}

void GrowingFile::publish() {
  if (!pending_ || pending_->stream()) return;  // a stream is written straight through already
  pending_->commit();
  pending_.reset();
  // The file just renamed into place, reopened to go on appending (commit closed the temporary's).
  fd_ = open(destination_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0 || lseek(fd_, 0, SEEK_END) < 0)
    throw FileError(FileError::Kind::io, "reopening " + role_ + " " + in_quotes(destination_) + ": " + errno_text(errno));
}

void GrowingFile::close() {
  if (pending_ && pending_->stream()) {
    pending_->commit();
    pending_.reset();
    return;
  }
  publish();
  if (fd_ < 0) return;
  const std::string what = "writing " + role_ + " " + in_quotes(destination_);
  const int fd = fd_;
  fd_ = -1;
  if (fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    throw FileError(FileError::Kind::io, what + " to disk: " + errno_text(err));
  }
  if (::close(fd) != 0) throw FileError(FileError::Kind::io, what + ": " + errno_text(errno));
}

}  // namespace vksort::io
