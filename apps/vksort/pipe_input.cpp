// SPDX-License-Identifier: MIT
#include "pipe_input.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include "cli_error.hpp"
#include "io/atomic_file.hpp"

namespace vksort::cli {

namespace {

void write_all(int fd, const std::byte* src, size_t bytes, const std::string& what) {
  while (bytes > 0) {
    const ssize_t w = write(fd, src, bytes);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw RuntimeFailure(what + ": " + std::strerror(errno));
    }
    src += w;
    bytes -= size_t(w);
  }
}

// Waits until the pipe `fd` has data or its end (EOF, also for a FIFO whose writer has yet to come).
void wait_readable(int fd, const std::string& name) {
  pollfd p{fd, POLLIN, 0};
  while (poll(&p, 1, -1) < 0)
    if (errno != EINTR) throw RuntimeFailure("waiting for " + name + ": " + std::strerror(errno));
}

// Reads what the non-blocking pipe `fd` holds into buf: the bytes read, 0 at the end, nullopt when it
// holds nothing yet. Throws RuntimeFailure naming `name`.
std::optional<size_t> read_available(int fd, std::byte* buf, size_t bytes, const std::string& name) {
  for (;;) {
    const ssize_t r = ::read(fd, buf, bytes);
    if (r >= 0) return size_t(r);
    if (errno == EAGAIN || errno == EWOULDBLOCK) return std::nullopt;
    if (errno != EINTR) throw RuntimeFailure("reading " + name + ": " + std::strerror(errno));
  }
}

}  // namespace

PipeInput::~PipeInput() {
  if (fd_ >= 0) close(fd_);
}

PipeInput::PipeInput(PipeInput&& other) noexcept
    : name_(std::move(other.name_)),
      header_(std::move(other.header_)),
      bytes_(std::move(other.bytes_)),
      size_(other.size_),
      fd_(std::exchange(other.fd_, -1)) {}

PipeInput& PipeInput::operator=(PipeInput&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    name_ = std::move(other.name_);
    header_ = std::move(other.header_);
    bytes_ = std::move(other.bytes_);
    size_ = other.size_;
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

bool PipeInput::is_pipe(const std::string& path) {
  struct stat st {};
  return !path.empty() && stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

// Non-blocking, so that opening a FIFO does not wait for its writer (one program writing keys and
// values into two FIFOs may open them in either order) and both inputs can be read as their data come
// (read_all). Reads wait by poll(), which reports a FIFO's end only once a writer came and went.
PipeSource::PipeSource(const std::string& path, const std::string& role) : name_(role + " " + in_quotes(path)) {
  fd_ = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) throw UsageError("cannot open " + name_ + ": " + std::strerror(errno));
}

PipeSource::~PipeSource() {
  if (fd_ >= 0) close(fd_);
}

PipeSource::PipeSource(PipeSource&& other) noexcept : name_(std::move(other.name_)), fd_(std::exchange(other.fd_, -1)) {}

size_t PipeSource::read_some(std::byte* buf, size_t bytes) {
  for (;;) {
    wait_readable(fd_, name_);
    if (const std::optional<size_t> r = read_available(fd_, buf, bytes, name_)) return *r;
  }
}

PipeInput PipeInput::read(const std::string& path, const std::string& role, uint64_t budget,
                          const std::function<std::filesystem::path()>& spool_folder) {
  PipeSource source(path, role);
  return read(source, budget, spool_folder);
}

PipeInput PipeInput::read(PipeSource& source, uint64_t budget, const std::function<std::filesystem::path()>& spool_folder) {
  PipeSource* sources[] = {&source};
  return std::move(read_all(sources, budget, spool_folder)[0]);
}

std::pair<PipeInput, PipeInput> PipeInput::read_both(PipeSource& first, PipeSource& second, uint64_t budget,
                                                     const std::function<std::filesystem::path()>& spool_folder,
                                                     const HeaderBytes& first_header, const HeaderBytes& second_header,
                                                     const std::function<void(const std::vector<std::byte>&,
                                                                              const std::vector<std::byte>&)>& on_headers) {
  PipeSource* sources[] = {&first, &second};
  const HeaderBytes headers[] = {first_header, second_header};
  const auto announce = [&](std::span<const PipeInput> in) {
    if (on_headers) on_headers(in[0].header(), in[1].header());
  };
  std::vector<PipeInput> both = read_all(sources, budget, spool_folder, headers, announce);
  return {std::move(both[0]), std::move(both[1])};
}

std::vector<PipeInput> PipeInput::read_all(std::span<PipeSource* const> sources, uint64_t budget,
                                           const std::function<std::filesystem::path()>& spool_folder,
                                           std::span<const HeaderBytes> headers,
                                           const std::function<void(std::span<const PipeInput>)>& on_headers) {
  std::vector<PipeInput> inputs(sources.size());
  std::vector<bool> ended(sources.size(), false);
  // Whose header is still to come (headers[i] given); the data of the others are read meanwhile.
  std::vector<bool> in_header(sources.size(), false);
  for (size_t i = 0; i < sources.size(); ++i) {
    inputs[i].name_ = sources[i]->name();
    in_header[i] = i < headers.size() && headers[i];
  }
  bool announced = false;
  const auto announce_once_in = [&] {
    if (announced || std::find(in_header.begin(), in_header.end(), true) != in_header.end()) return;
    announced = true;
    if (on_headers) on_headers(inputs);
  };
  announce_once_in();
  uint64_t held = 0;  // bytes of all inputs held in memory
  std::optional<std::filesystem::path> folder;
  std::vector<std::byte> buf(size_t(1) << 20);
  std::vector<pollfd> polled;
  std::vector<size_t> which;
  for (;;) {
    polled.clear(), which.clear();
    for (size_t i = 0; i < sources.size(); ++i)
      if (!ended[i]) polled.push_back({sources[i]->fd(), POLLIN, 0}), which.push_back(i);
    if (polled.empty()) return inputs;
    if (poll(polled.data(), nfds_t(polled.size()), -1) < 0) {
      if (errno == EINTR) continue;
      throw RuntimeFailure("waiting for " + inputs[which[0]].name_ + ": " + std::strerror(errno));
    }
    for (size_t k = 0; k < polled.size(); ++k) {
      if (polled[k].revents == 0) continue;
      PipeInput& in = inputs[which[k]];
      if (in_header[which[k]]) {
        // The header's bytes alone, as many as it still asks for: its data follow as a raw pipe's.
        const uint64_t want = headers[which[k]](in.header_) - in.header_.size();
        const size_t had = in.header_.size();
        in.header_.resize(had + size_t(std::min<uint64_t>(want, buf.size())));
        const std::optional<size_t> r = read_available(polled[k].fd, in.header_.data() + had, in.header_.size() - had, in.name_);
        in.header_.resize(had + r.value_or(0));
        if (r && *r == 0) ended[which[k]] = true;  // truncated: the caller's parse refuses it
        if (ended[which[k]] || headers[which[k]](in.header_) <= in.header_.size()) in_header[which[k]] = false;
        announce_once_in();
        continue;
      }
      const std::optional<size_t> r = read_available(polled[k].fd, buf.data(), buf.size(), in.name_);
      if (!r) continue;  // woken with nothing to read after all
      if (*r == 0) {
        ended[which[k]] = true;
        continue;
      }
      if (in.fd_ >= 0) {
        write_all(in.fd_, buf.data(), *r, "writing " + in.name_ + " to a temporary file in " + in_quotes(folder->string()));
      } else {
        // Grown by doubling, but never past what the budget lets one input hold (budget + one read).
        if (in.bytes_.size() + *r > in.bytes_.capacity())
          in.bytes_.reserve(size_t(std::min<uint64_t>(std::max<uint64_t>(in.bytes_.size() + *r, 2 * uint64_t(in.bytes_.capacity())),
                                                      budget + buf.size())));
        in.bytes_.insert(in.bytes_.end(), buf.begin(), buf.begin() + std::ptrdiff_t(*r));
        held += *r;
      }
      in.size_ += *r;
      // Past the budget every input goes on in a spool file, with what it held: the sort goes out of
      // core (the bytes of both inputs are what --memory bounds).
      if (held > budget) {
        if (!folder) folder = spool_folder();
        for (PipeInput& each : inputs) each.spool(*folder);
        held = 0;
      }
    }
  }
}

void PipeInput::spool(const std::filesystem::path& folder) {
  if (fd_ >= 0) return;
  fd_ = io::unnamed_file(folder, ".vksort-pipe-");
  // Spooled because it outgrew --memory, or because the other input or the device sent the sort out of core.
  if (fd_ < 0)
    throw UsageError(name_ + " is a pipe to be sorted out of core, and no temporary file to hold it can be created in " +
                     in_quotes(folder.string()) + ": " + std::strerror(errno) + " (give a writable folder with --tmp-dir)");
  write_all(fd_, bytes_.data(), bytes_.size(),
            "writing " + name_ + " to a temporary file in " + in_quotes(folder.string()));
  std::vector<std::byte>().swap(bytes_);
}

std::string PipeInput::path() const { return "/proc/self/fd/" + std::to_string(fd_); }

}  // namespace vksort::cli
