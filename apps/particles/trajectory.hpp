// SPDX-License-Identifier: MIT
// trajectory.hpp — files that grow while a run goes: GSD (HOOMD-blue's format, our own writer of its
// documented file layer and HOOMD schema), multi-frame extended XYZ, and time series. They are written
// in place as the run goes (vksort's GrowingFile), each valid after every frame or row: a run that dies,
// even by SIGKILL, leaves the frames written so far, readable; memory stays bounded by one frame.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model.hpp"
#include "simulation.hpp"
#include "species.hpp"

namespace vksort::io {
class GrowingFile;
}

namespace particles {

// A file that grows while the run goes (a trajectory, a time series): until the first publish() (its
// writer's first frame or row) a temporary file that leaves `path` as it was if the run fails; from
// then on `path` itself, every append in it at once. close() publishes and flushes it to the disk.
// A write that fails (disk full, file too large) after the first publish() cuts the file back to what
// the last publish() left, so that a half-written frame or row does not spoil the whole ones before it
// (readers refuse a file that ends in one), then throws Error.
class GrowingFile {
 public:
  // Throws Error when `path` cannot take a file (no such folder, a folder in the way).
  explicit GrowingFile(const std::string& path);
  ~GrowingFile();
  void append(const void* data, size_t bytes);
  void append(const std::string& text) { append(text.data(), text.size()); }
  void overwrite(uint64_t offset, const void* data, size_t bytes);  // within what was appended
  // Writes `text` over the last old_tail.size() bytes, which hold `old_tail` (text at least as long:
  // the file never shrinks). A failure puts `old_tail` back (a JSON list's closing bracket).
  void replace_tail(const std::string& old_tail, const std::string& text);
  void publish();
  void close();
  uint64_t size() const { return size_; }

 private:
  // Runs `write` (a write through file_); on its failure cuts the file back (see above) and throws Error.
  template <class Write>
  void guarded(const Write& write);
  void roll_back(std::string& message) const;

  std::string path_;
  std::unique_ptr<vksort::io::GrowingFile> file_;
  uint64_t size_ = 0;
  bool published_ = false;  // the destination is this file
  uint64_t published_size_ = 0;  // what the last publish() left: whole frames or rows
  // Published bytes that replace_tail() overwrote since the last publish(): put back by roll_back().
  uint64_t tail_at_ = 0;
  std::string old_tail_;
};

class Trajectory {
 public:
  virtual ~Trajectory() = default;
  // Appends a frame; the file is complete and readable with it when this returns.
  virtual void frame(const Snapshot& s) = 0;
  // Flushes the file to the disk.
  virtual void close() = 0;
};

// particles/N, position (HOOMD's box is centred: x - L/2), velocity, image, typeid, types, mass and
// configuration/step, box for every frame. With walls in z HOOMD still reads the box as periodic.
std::unique_ptr<Trajectory> gsd_trajectory(const std::string& path, const Model& m, const SpeciesNames& species);
std::unique_ptr<Trajectory> xyz_trajectory(const std::string& path, const Model& m, const SpeciesNames& species);

// The last frame of a GSD file with the HOOMD schema: positions (shifted by L/2 from HOOMD's centred box;
// not clamped), box (into `box`; it must be rectangular), species (each particle's typeid names one of
// particles/types, which must be a symbol of `species`, as in read_xyz; a file without particles/types:
// typeid 0 or 1 is the species; missing typeid: 0), velocities (missing: `vel` left empty), images.
// Chunks a frame lacks come from frame 0, as HOOMD's readers do. particles/mass, where the file has it,
// into `mass` (one per particle; left empty without the chunk): masses are the scenario's, per
// species, so the caller checks them against its model (check_gsd_masses). Throws Error on anything else.
State read_gsd(const std::string& path, const SpeciesNames& species, float box[3], std::vector<float>* mass = nullptr);
// Every particle's mass from a GSD file (read_gsd) equals its species' mass in `m` (this simulator has
// no per-particle masses: a file that holds others would run with the wrong ones). Throws Error naming
// the first particle that differs.
void check_gsd_masses(const Model& m, const SpeciesNames& species, const State& s, const std::vector<float>& mass);

}  // namespace particles
