// SPDX-License-Identifier: MIT
#include "checkpoint.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <type_traits>

#include "atomic_file.hpp"

namespace particles {

namespace {
constexpr char kMagic[16] = "vksort-dpd-ckpt";
constexpr uint32_t kVersion = 1;

uint64_t fnv1a(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

class Writer {
 public:
  template <class T>
  void put(const T& x) {
    static_assert(std::is_trivially_copyable_v<T>);
    out.append(reinterpret_cast<const char*>(&x), sizeof x);
  }
  void put(const std::string& s) {
    put(uint32_t(s.size()));
    out += s;
  }
  template <class T>
  void put(const std::vector<T>& v) {
    put(uint64_t(v.size()));
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  std::string out;
};

class Reader {
 public:
  Reader(std::string_view data, std::string path) : data_(data), path_(std::move(path)) {}
  template <class T>
  void get(T& x) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::memcpy(&x, take(sizeof x), sizeof x);
  }
  // A bool's bytes other than 0 and 1 are no bool (reading one through memcpy is undefined).
  void get(bool& b) {
    uint8_t byte;
    get(byte);
    if (byte > 1) throw Error(path_ + ": a true/false field (periodic_z) holds " + std::to_string(byte));
    b = byte == 1;
  }
  void get(std::string& s) {
    uint32_t size;
    get(size);
    s.assign(take(size), size);
  }
  template <class T>
  void get(std::vector<T>& v) {
    uint64_t size;
    get(size);
    if (size > data_.size() / sizeof(T)) throw damaged();
    v.resize(size);
    std::memcpy(v.data(), take(size * sizeof(T)), size * sizeof(T));
  }
  bool done() const { return at_ == data_.size(); }
  Error damaged() const { return Error(path_ + ": damaged or truncated checkpoint"); }

 private:
  const char* take(size_t bytes) {
    if (bytes > data_.size() - at_) throw damaged();
    const char* p = data_.data() + at_;
    at_ += bytes;
    return p;
  }
  std::string_view data_;
  std::string path_;
  size_t at_ = 0;
};

// The model field by field (never the struct's bytes: padding and layout are not a file format).
// Not the layout, cell divisions, cell build, list iterations and parts or reordering: they change no
// bit of the trajectory (fixed-point force sums), so a restart takes them from its own options.
template <class IO, class M>
void model_fields(IO&& io, M& m) {
  io(m.lx), io(m.ly), io(m.lz), io(m.periodic_z), io(m.rc), io(m.kbt), io(m.dt), io(m.gravity);
  for (auto& x : m.mass) io(x);
  for (auto& row : m.a)
    for (auto& x : row) io(x);
  for (auto& row : m.gamma)
    for (auto& x : row) io(x);
  io(m.integrator), io(m.noise), io(m.seed);
}
}  // namespace

void write_checkpoint(const std::string& path, const std::string& scenario, const Model& m,
                      const SpeciesNames& species, const Snapshot& s) {
  Writer w;
  w.out.append(kMagic, sizeof kMagic);
  w.put(kVersion);
  w.put(scenario);
  model_fields([&](const auto& x) { w.put(x); }, m);
  w.put(species.name[0]);
  w.put(species.name[1]);
  w.put(uint64_t(s.step));
  w.put(s.pos);
  w.put(s.vel);
  w.put(s.vtilde);
  w.put(s.image);
  w.put(fnv1a(w.out));
  write_atomically(path, [&](std::ostream& out) { out << w.out; });
}

Checkpoint read_checkpoint(const std::string& path) {
  std::ifstream in = open_input(path, "checkpoint");
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() < sizeof kMagic + 8 || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0)
    throw Error(path + " is not a particles checkpoint");
  uint64_t sum;
  std::memcpy(&sum, data.data() + data.size() - 8, 8);
  if (sum != fnv1a(std::string_view(data).substr(0, data.size() - 8)))
    throw Error(path + ": damaged or truncated checkpoint (checksum mismatch)");
  Reader r(std::string_view(data).substr(sizeof kMagic, data.size() - sizeof kMagic - 8), path);
  uint32_t version;
  r.get(version);
  if (version != kVersion) throw Error(path + ": checkpoint version " + std::to_string(version) + " (this build reads 1)");
  Checkpoint c;
  r.get(c.scenario);
  model_fields([&](auto& x) { r.get(x); }, c.model);
  r.get(c.species.name[0]);
  r.get(c.species.name[1]);
  r.get(c.state.step);
  r.get(c.state.pos);
  r.get(c.state.vel);
  r.get(c.state.vtilde);
  r.get(c.state.image);
  const size_t n4 = c.state.pos.size();
  if (!r.done() || n4 == 0 || n4 % 4 || c.state.vel.size() != n4 || c.state.vtilde.size() != n4 ||
      c.state.image.size() != n4)
    throw r.damaged();
  // The checksum only says the bytes are the ones written: a file made by hand (or by another build)
  // may hold values no run can use. Every field is checked here, so they fail as bad input, not later.
  try {
    parse_scenario(c.scenario);
    check_species(c.species, "species");
    check_model(c.model);
    check_state(c.model, c.state);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  return c;
}

}  // namespace particles
