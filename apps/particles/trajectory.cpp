// SPDX-License-Identifier: MIT
// The GSD layout (gsd.readthedocs.io, "File layer" 2.0, and the HOOMD schema): a 256-byte header
// (magic, index and namelist locations and sizes, versions, application and schema names), data
// chunks, a namelist (2.0: the names packed, each ending in a zero byte, zero-padded to whole 64-byte
// entries; 1.0: one name per 64-byte entry) and an index of 32-byte entries (frame, N, location, M,
// name id, type, flags) sorted by frame, then by id; entries past the last have location 0 (readers stop
// at the first). So the file is valid at every frame: the header, namelist and an index with room for
// entries come first, then each frame's chunks are appended and only after them its index entries
// written into the room; a run killed in between leaves the earlier frames. A full index is copied to
// the end with twice the room and the header pointed at it (one 256-byte write).
#include "trajectory.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "atomic_file.hpp"
#include "io/atomic_file.hpp"
#include "output_text.hpp"

namespace particles {

GrowingFile::GrowingFile(const std::string& path) : path_(path) {
  try {
    file_ = std::make_unique<vksort::io::GrowingFile>(path, "output");
  } catch (const vksort::io::FileError& e) {
    throw Error(e.what());
  }
}

GrowingFile::~GrowingFile() = default;

template <class Write>
void GrowingFile::guarded(const Write& write) {
  try {
    write();
  } catch (const vksort::io::FileError& e) {
    std::string message = e.what();
    roll_back(message);
    throw Error(message);
  }
}

// Before the first publish() the destination is not this file (its temporary goes with it), and a pipe
// or device cannot be cut: nothing to do. The cut and the put-back only shrink the file or write within
// it, so the limit that failed the write (disk full, file size) does not fail them.
void GrowingFile::roll_back(std::string& message) const {
  struct stat st {};
  if (!published_ || ::stat(path_.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  int err = 0;
  if (::truncate(path_.c_str(), off_t(published_size_)) != 0) err = errno;
  if (!err && !old_tail_.empty()) {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    const ssize_t wrote = fd < 0 ? -1 : ::pwrite(fd, old_tail_.data(), old_tail_.size(), off_t(tail_at_));
    if (wrote != ssize_t(old_tail_.size())) err = wrote < 0 ? errno : EIO;
    if (fd >= 0) ::close(fd);
  }
  message += err ? "; cutting off the part written failed too (" + std::string(std::strerror(err)) +
                       "): the file ends in a half-written frame or row"
                 : "; the file is cut back to the frames or rows written whole before";
}

void GrowingFile::append(const void* data, size_t bytes) {
  guarded([&] { file_->write(std::span(static_cast<const std::byte*>(data), bytes)); });
  size_ += bytes;
}

void GrowingFile::overwrite(uint64_t offset, const void* data, size_t bytes) {
  guarded([&] { file_->write_at(offset, std::span(static_cast<const std::byte*>(data), bytes)); });
}

void GrowingFile::replace_tail(const std::string& old_tail, const std::string& text) {
  if (old_tail.size() > size_ || text.size() < old_tail.size())
    throw Error("internal: replace_tail beyond the file or shrinking it");
  const uint64_t at = size_ - old_tail.size();
  if (published_ && old_tail_.empty() && at < published_size_) {  // what roll_back() puts back
    tail_at_ = at;
    old_tail_ = old_tail.substr(0, size_t(published_size_ - at));
  }
  overwrite(at, text.data(), text.size());
  size_ += text.size() - old_tail.size();
}

void GrowingFile::publish() {
  guarded([&] { file_->publish(); });
  published_ = true;
  published_size_ = size_;
  old_tail_.clear();
}

void GrowingFile::close() {
  try {
    file_->close();
  } catch (const vksort::io::FileError& e) {
    throw Error(e.what());
  }
}

namespace {

constexpr uint64_t kGsdMagic = 0x65DF65DF65DF65DFull;
enum GsdType : uint8_t { u8 = 1, u32 = 3, u64 = 4, i8 = 5, i32 = 7, f32 = 9 };

struct GsdHeader {
  uint64_t magic, index_location, index_allocated, namelist_location, namelist_allocated;
  uint32_t schema_version, gsd_version;
  char application[64], schema[64], reserved[80];
};
static_assert(sizeof(GsdHeader) == 256);
struct GsdIndexEntry {
  uint64_t frame, n;
  int64_t location;
  uint32_t m;
  uint16_t id;
  uint8_t type, flags;
};
static_assert(sizeof(GsdIndexEntry) == 32);

// Names in ascending byte order; their position is the id the index uses.
const char* const kGsdNames[] = {"configuration/box", "configuration/step", "particles/N",
                                 "particles/image",   "particles/mass",     "particles/position",
                                 "particles/typeid",  "particles/types",    "particles/velocity"};
uint16_t gsd_id(const char* name) {
  for (uint16_t k = 0; k < std::size(kGsdNames); ++k)
    if (std::strcmp(kGsdNames[k], name) == 0) return k;
  throw Error(std::string("internal: no GSD name ") + name);
}

class GsdTrajectory final : public Trajectory {
 public:
  GsdTrajectory(const std::string& path, const Model& m, const SpeciesNames& species)
      : file_(path), m_(m), species_(species) {
    header_.magic = kGsdMagic;
    header_.schema_version = (1u << 16) | 4u;  // HOOMD schema 1.4
    header_.gsd_version = (2u << 16) | 0u;     // file layer 2.0
    std::strncpy(header_.application, "vksort particles", sizeof header_.application - 1);
    std::strncpy(header_.schema, "hoomd", sizeof header_.schema - 1);
    std::string names;
    for (const char* name : kGsdNames) names.append(name, std::strlen(name) + 1);
    names.resize((names.size() + 63) / 64 * 64, '\0');
    header_.namelist_location = sizeof header_;
    header_.namelist_allocated = names.size() / 64;
    file_.append(&header_, sizeof header_);
    file_.append(names.data(), names.size());
    move_index(16 * std::size(kGsdNames));  // 16 frames before the first move
  }

  void frame(const Snapshot& s) override {
    const uint32_t n = s.size();
    const float l[3] = {m_.lx, m_.ly, m_.lz};
    const float box[6] = {m_.lx, m_.ly, m_.lz, 0, 0, 0};
    chunk("configuration/box", f32, 6, 1, box);
    const uint64_t step = s.step;
    chunk("configuration/step", u64, 1, 1, &step);
    chunk("particles/N", u32, 1, 1, &n);
    std::vector<int32_t> image(3 * size_t(n));
    std::vector<float> mass(n), position(3 * size_t(n)), velocity(3 * size_t(n));
    std::vector<uint32_t> typeid_(n);
    for (uint32_t i = 0; i < n; ++i) {
      const int sp = s.pos[4 * i + 3] != 0.0f ? 1 : 0;
      typeid_[i] = uint32_t(sp);
      mass[i] = m_.mass[sp];
      for (int k = 0; k < 3; ++k) {
        position[3 * i + k] = s.pos[4 * i + k] - l[k] / 2;
        velocity[3 * i + k] = s.vel[4 * i + k];
        image[3 * i + k] = s.image.empty() ? 0 : s.image[4 * i + k];
      }
    }
    chunk("particles/image", i32, n, 3, image.data());
    chunk("particles/mass", f32, n, 1, mass.data());
    chunk("particles/position", f32, n, 3, position.data());
    chunk("particles/typeid", u32, n, 1, typeid_.data());
    const size_t width = std::max(species_.name[0].size(), species_.name[1].size()) + 1;
    std::vector<char> types(2 * width, 0);
    for (int k = 0; k < 2; ++k) std::memcpy(&types[k * width], species_.name[k].data(), species_.name[k].size());
    chunk("particles/types", i8, 2, uint32_t(width), types.data());
    chunk("particles/velocity", f32, n, 3, velocity.data());
    // The chunks are in the file; now the entries that make them a frame. Readers take the entries up
    // to the first empty one (location 0), and a reader may see a write half done: so the frame's
    // other entries go first, then its first entry still empty, and last that entry's location alone,
    // 8 aligned bytes (index_location is a multiple of 8), which no reader sees torn.
    if (index_.size() > header_.index_allocated) {
      move_index(2 * index_.size());
    } else {
      const size_t first = index_.size() - std::size(kGsdNames);
      const uint64_t at = header_.index_location + first * sizeof(GsdIndexEntry);
      file_.overwrite(at + sizeof(GsdIndexEntry), &index_[first + 1],
                      (std::size(kGsdNames) - 1) * sizeof(GsdIndexEntry));
      GsdIndexEntry head = index_[first];
      head.location = 0;
      file_.overwrite(at, &head, sizeof head);
      file_.overwrite(at + offsetof(GsdIndexEntry, location), &index_[first].location, sizeof head.location);
    }
    ++frames_;
    file_.publish();
  }

  void close() override { file_.close(); }

 private:
  // Entries within a frame go in id order: chunk() is called in kGsdNames order.
  void chunk(const char* name, uint8_t type, uint64_t n, uint32_t m, const void* data) {
    const size_t item = type == u64 ? 8 : (type == u8 || type == i8) ? 1 : 4;
    index_.push_back({frames_, n, int64_t(file_.size()), m, gsd_id(name), type, 0});
    file_.append(data, size_t(n) * m * item);
  }

  // Writes the index (the entries so far, then empty room up to `entries`) at the end of the file and
  // points the header at it.
  void move_index(uint64_t entries) {
    std::vector<GsdIndexEntry> room(entries, GsdIndexEntry{});
    std::copy(index_.begin(), index_.end(), room.begin());
    // Entries start 8-aligned (see frame()): pad after the last chunk.
    if (const uint64_t odd = file_.size() % 8) {
      const char zeros[8] = {};
      file_.append(zeros, size_t(8 - odd));
    }
    header_.index_location = file_.size();
    header_.index_allocated = entries;
    file_.append(room.data(), room.size() * sizeof(GsdIndexEntry));
    file_.overwrite(0, &header_, sizeof header_);
  }

  GrowingFile file_;
  Model m_;
  SpeciesNames species_;
  GsdHeader header_{};
  std::vector<GsdIndexEntry> index_;  // every frame's entries (32 bytes per chunk: small)
  uint64_t frames_ = 0;
};

class XyzTrajectory final : public Trajectory {
 public:
  XyzTrajectory(const std::string& path, const Model& m, const SpeciesNames& species)
      : file_(path), m_(m), species_(species) {}
  void frame(const Snapshot& s) override {
    file_.append(xyz_frame(m_, species_, s));
    file_.publish();
  }
  void close() override { file_.close(); }

 private:
  GrowingFile file_;
  Model m_;
  SpeciesNames species_;
};

}  // namespace

std::unique_ptr<Trajectory> gsd_trajectory(const std::string& path, const Model& m, const SpeciesNames& species) {
  return std::make_unique<GsdTrajectory>(path, m, species);
}

std::unique_ptr<Trajectory> xyz_trajectory(const std::string& path, const Model& m, const SpeciesNames& species) {
  return std::make_unique<XyzTrajectory>(path, m, species);
}

State read_gsd(const std::string& path, const SpeciesNames& species, float box[3], std::vector<float>* mass) {
  std::ifstream in = open_input(path, "particle file");
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto bad = [&](const std::string& what) { return Error(path + ": " + what); };
  GsdHeader h;
  if (data.size() < sizeof h) throw bad("too short for a GSD file");
  std::memcpy(&h, data.data(), sizeof h);
  if (h.magic != kGsdMagic) throw bad("not a GSD file");
  if ((h.gsd_version >> 16) != 2 && (h.gsd_version >> 16) != 1) throw bad("unsupported GSD version");
  auto inside = [&](uint64_t offset, uint64_t bytes) { return offset <= data.size() && bytes <= data.size() - offset; };
  if (!inside(h.namelist_location, h.namelist_allocated * 64) || !inside(h.index_location, h.index_allocated * 32))
    throw bad("namelist or index beyond the end of the file (truncated?)");
  std::vector<std::string> names;
  const bool packed = h.gsd_version >= (2u << 16);
  for (uint64_t at = 0; at < h.namelist_allocated * 64;) {
    const char* p = data.data() + h.namelist_location + at;
    const std::string name(p, strnlen(p, h.namelist_allocated * 64 - at));
    if (name.empty()) break;
    names.push_back(name);
    at += packed ? name.size() + 1 : 64;
  }
  std::vector<GsdIndexEntry> index;
  for (uint64_t k = 0; k < h.index_allocated; ++k) {
    GsdIndexEntry e;
    std::memcpy(&e, data.data() + h.index_location + 32 * k, sizeof e);
    if (e.location == 0) break;
    index.push_back(e);
  }
  if (index.empty()) throw bad("no frames");
  const uint64_t last = index.back().frame;
  // A chunk of the last frame, else of frame 0; nullptr when neither has it. m == 0: any width.
  auto find = [&](const char* name, uint8_t type, uint32_t m) -> const GsdIndexEntry* {
    const auto id = std::find(names.begin(), names.end(), name);
    if (id == names.end()) return nullptr;
    const GsdIndexEntry* found = nullptr;
    for (const GsdIndexEntry& e : index)
      if (e.id == uint16_t(id - names.begin()) && (e.frame == last || (e.frame == 0 && !found))) found = &e;
    if (!found) return nullptr;
    const bool bytes = type == i8 && found->type == u8;  // names as uint8: the same bytes
    if ((found->type != type && !bytes) || (m && found->m != m) || found->m == 0)
      throw bad(std::string(name) + " has an unsupported type or width (expected what HOOMD writes)");
    const uint64_t item = type == u64 ? 8 : type == i8 ? 1 : 4;
    if (found->n > data.size() / item / found->m || !inside(uint64_t(found->location), found->n * found->m * item))
      throw bad(std::string(name) + " is truncated");
    return found;
  };
  auto at = [&](const GsdIndexEntry* e) { return data.data() + e->location; };
  const GsdIndexEntry* count = find("particles/N", u32, 1);
  const GsdIndexEntry* box_chunk = find("configuration/box", f32, 1);
  const GsdIndexEntry* position = find("particles/position", f32, 3);
  if (!count || !box_chunk || !position) throw bad("needs particles/N, configuration/box and particles/position");
  uint32_t n;
  std::memcpy(&n, at(count), 4);
  float b[6];
  if (box_chunk->n != 6) throw bad("configuration/box must hold 6 numbers");
  std::memcpy(b, at(box_chunk), sizeof b);
  if (b[3] != 0 || b[4] != 0 || b[5] != 0) throw bad("only rectangular boxes are supported (tilt factors non-zero)");
  try {
    check_file_box(b);
  } catch (const Error& e) {
    throw bad(e.what());
  }
  if (n == 0 || position->n != n) throw bad("particles/position does not hold particles/N rows");
  const GsdIndexEntry* velocity = find("particles/velocity", f32, 3);
  const GsdIndexEntry* typeid_ = find("particles/typeid", u32, 1);
  const GsdIndexEntry* image = find("particles/image", i32, 3);
  const GsdIndexEntry* mass_chunk = find("particles/mass", f32, 1);
  for (const GsdIndexEntry* e : {velocity, typeid_, image, mass_chunk})
    if (e && e->n != n) throw bad("a per-particle chunk does not hold particles/N rows");
  // typeid -> species, by the names in particles/types (NUL-padded rows), checked where a particle uses
  // one (as read_xyz checks each particle's symbol). HOOMD's schema defaults particles/types to ['A']
  // (one type, every typeid 0), which names no element; a file without the chunk is read as it always
  // was here instead: typeid 0 the first --species, 1 the second.
  std::vector<std::string> type_names;
  if (const GsdIndexEntry* types = find("particles/types", i8, 0))
    for (uint64_t k = 0; k < types->n; ++k) {
      const char* row = at(types) + k * types->m;
      type_names.emplace_back(row, strnlen(row, types->m));
    }
  State s;
  s.pos.resize(4 * size_t(n));
  std::vector<float> p(3 * size_t(n)), v;
  std::memcpy(p.data(), at(position), p.size() * 4);
  std::vector<uint32_t> t(n, 0);
  if (typeid_) std::memcpy(t.data(), at(typeid_), t.size() * 4);
  if (velocity) {
    v.resize(3 * size_t(n));
    std::memcpy(v.data(), at(velocity), v.size() * 4);
    s.vel.assign(4 * size_t(n), 0.0f);
  }
  std::vector<int32_t> im;
  if (image) {
    im.resize(3 * size_t(n));
    std::memcpy(im.data(), at(image), im.size() * 4);
    s.image.assign(4 * size_t(n), 0);
  }
  auto particle = [](uint32_t i) { return "particle " + std::to_string(i); };
  for (uint32_t i = 0; i < n; ++i) {
    int sp = int(t[i]);
    if (type_names.empty()) {
      if (t[i] > 1)
        throw bad(particle(i) + " has typeid " + std::to_string(t[i]) + " (0 or 1 only: the file has no particles/types)");
    } else {
      if (t[i] >= type_names.size())
        throw bad(particle(i) + " has typeid " + std::to_string(t[i]) + " but particles/types lists " +
                  std::to_string(type_names.size()) + " type(s)");
      sp = species_index(species, type_names[t[i]]);
      if (sp < 0) throw bad(particle(i) + ": " + not_a_species(species, type_names[t[i]]));
    }
    s.pos[4 * i + 3] = float(sp);
    for (int k = 0; k < 3; ++k) {
      // Back from the centred box, not clamped: the shift's rounding is monotone, so [-L/2, L/2] maps into
      // [0, L] exactly, and a position outside the box is refused by check_state as an XYZ file's is.
      s.pos[4 * i + k] = p[3 * i + k] + b[k] / 2;
      if (!v.empty()) s.vel[4 * i + k] = v[3 * i + k];
      if (!im.empty()) s.image[4 * i + k] = im[3 * i + k];
    }
  }
  for (int k = 0; k < 3; ++k) box[k] = b[k];
  if (mass) {
    mass->clear();
    if (mass_chunk) {
      mass->resize(n);
      std::memcpy(mass->data(), at(mass_chunk), mass->size() * 4);
    }
  }
  return s;
}

void check_gsd_masses(const Model& m, const SpeciesNames& species, const State& s, const std::vector<float>& mass) {
  auto number = [](float x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", double(x));
    return std::string(text);
  };
  for (size_t i = 0; i < mass.size(); ++i) {
    const int sp = s.pos[4 * i + 3] != 0.0f ? 1 : 0;
    // A file this program wrote holds the model's masses bit for bit: compared exactly.
    if (mass[i] != m.mass[sp])
      throw Error("particle " + std::to_string(i) + " (" + species.name[sp] + ") has particles/mass " +
                  number(mass[i]) + ", but the scenario gives " + species.name[sp] + " mass " + number(m.mass[sp]) +
                  " (masses are per species, from --scenario)");
  }
}

}  // namespace particles
