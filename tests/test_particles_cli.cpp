// SPDX-License-Identifier: MIT
// The `particles` binary: bad input gives a message and a non-zero exit; a good run prints its table,
// writes PNG frames, extended XYZ (particle-id order) and VTK, and repeats itself exactly for a seed;
// a Rayleigh-Taylor run prints its mixing layer and tiles its frames into a montage.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include <sys/wait.h>

#include "model.hpp"
#include "test_particles_support.hpp"

namespace fs = std::filesystem;

using particles::test::Run;
using particles::test::TempDir;
using particles::test::run;
using particles::test::slurp;

TEST_CASE("cli: bad arguments give one message and exit code 2") {
  TempDir dir;
  struct Case {
    const char* args;
    const char* says;
  } cases[] = {
      {"--scenario rayleigh-taylor --n 100 --box 2.5,10,10 --steps 1", "needs at least 3"},
      {"--scenario phase-separation --n 100 --box 10,2,10 --steps 1", "needs at least 3"},
      {"--scenario phase-separation --n 100 --box 10,10 --steps 1", "box"},
      {"--scenario marbles --n 100", "scenario"},
      {"--n 100", "scenario"},
      {"--scenario phase-separation --n 0", "--n"},
      {"--scenario phase-separation --n 100 --cells bogus", "cells"},
      {"--scenario phase-separation --n 100 --dt -1", "dt"},
      {"--scenario equilibrium --n 100 --species Xx,Ar", "element symbol"},
      {"--scenario equilibrium --n 100 --species Ar,Ar", "different"},
      {"--restart /nonexistent/run.ckpt --steps 1", "cannot read checkpoint"},
      {"--restart /nonexistent/run.ckpt --dt 0.01", "--dt is fixed by the checkpoint"},
      {"--scenario equilibrium --init /nonexistent/start.xyz", "cannot read"},
      {"--scenario equilibrium --init /nonexistent/start.xyz --lattice fcc", "--lattice"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --rdf g.csv --rdf-rmax 4", "r_max"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --gsd /nonexistent/t.gsd", "t.gsd"},
      {"--scenario rayleigh-taylor --n 100 --box 5,3,4 --montage m.png", "--montage needs --frames"},
      {"--scenario phase-separation --n 100 --layout rows", "layout"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    const Run r = run(dir, c.args);
    CHECK(r.code == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(r.out.empty());
  }
  // Files that are not what they claim: a checkpoint that is not one, a damaged one, an XYZ file cut short.
  const fs::path junk = dir.path() / "junk.ckpt", cut = dir.path() / "cut.ckpt", xyz = dir.path() / "short.xyz";
  std::ofstream(junk) << "not a checkpoint";
  const Run saved = run(dir, "--scenario equilibrium --n 300 --box 6,6,6 --steps 2 --checkpoint " + cut.string());
  REQUIRE_MESSAGE(saved.code == 0, saved.err);
  fs::resize_file(cut, fs::file_size(cut) - 100);
  std::ofstream(xyz) << "3\nLattice=\"6 0 0 0 6 0 0 0 6\" Properties=species:S:1:pos:R:3\nNe 1 1 1\nNe 2 2 2\n";
  const struct {
    std::string args;
    const char* says;
  } files[] = {{"--restart " + junk.string(), "not a particles checkpoint"},
               {"--restart " + cut.string(), "damaged or truncated"},
               {"--scenario equilibrium --init " + xyz.string(), "ends after 2 of 3"}};
  for (const auto& c : files) {
    CAPTURE(c.args);
    const Run r = run(dir, c.args);
    CHECK(r.code == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
}

TEST_CASE("cli: --help shows the defaults") {
  TempDir dir;
  const Run r = run(dir, "--help");
  CHECK(r.code == 0);
  for (const char* shown : {"16384", "1000", "0.04", "vv", "counter", "scatter", "32", "12", "Ne,Ar", "random"})
    CHECK_MESSAGE(r.out.find(std::string("=") + shown) != std::string::npos, "--help lacks =" << shown << ": " << r.out);
  CHECK(r.out.find("=-1") == std::string::npos);  // --gravity's placeholder is not shown as a default
}

TEST_CASE("cli: a run prints its table and writes frames, XYZ and VTK; the same seed repeats it exactly") {
  TempDir dir;
  const fs::path frames = dir.path() / "frames";
  const std::string common = "--scenario phase-separation --n 300 --box 5,5,4 --steps 20 --every 10 --seed 9 ";
  const Run r = run(dir, common + "--validation --frames " + frames.string() + " --frame-every 10 --xyz " +
                             (dir.path() / "a.xyz").string() + " --vtk " + (dir.path() / "a.vtk").string());
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.err.find("validation") == std::string::npos);
  // Table rows for steps 0, 10 and 20 (comment lines start with '#').
  int rows = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#') ++rows;
  CHECK(rows == 3);
  for (const char* name : {"frame_00000000.png", "frame_00000010.png", "frame_00000020.png"}) {
    const std::string png = slurp(frames / name);
    REQUIRE_MESSAGE(png.size() > 8, name);
    CHECK(png.substr(1, 3) == "PNG");
  }
  // Extended XYZ: count, the lattice and pbc line, then particle i on line i + 2 with its species.
  const std::string xyz = slurp(dir.path() / "a.xyz");
  std::istringstream in(xyz);
  std::string count, header;
  std::getline(in, count);
  std::getline(in, header);
  CHECK(count == "300");
  CHECK(header.find("Lattice=\"5 0 0 0 5 0 0 0 4\"") != std::string::npos);
  CHECK(header.find("pbc=\"T T F\"") != std::string::npos);
  CHECK(header.find("Properties=species:S:1:pos:R:3:velo:R:3:masses:R:1:momenta:R:3") != std::string::npos);
  const float box[3] = {5, 5, 4};
  particles::Model m = particles::scenario_model(particles::Scenario::phase_separation, 300, box);
  m.seed = 9;
  const particles::State initial = particles::scenario_state(particles::Scenario::phase_separation, m, 300);
  int particles_read = 0;
  for (std::string line; std::getline(in, line); ++particles_read) {
    REQUIRE(particles_read < 300);
    std::istringstream fields(line);
    std::string species;
    float x, y, z;
    fields >> species >> x >> y >> z;
    CHECK(species == (initial.pos[4 * particles_read + 3] != 0.0f ? "Ar" : "Ne"));  // id order, default --species
    CHECK((x >= 0 && x <= 5 && y >= 0 && y <= 5 && z >= 0 && z <= 4));
  }
  CHECK(particles_read == 300);
  const std::string vtk = slurp(dir.path() / "a.vtk");
  CHECK(vtk.rfind("# vtk DataFile Version 3.0", 0) == 0);
  CHECK(vtk.find("POINTS 300 float") != std::string::npos);
  // The same seed again (no temporary files are left behind by the atomic writes).
  const Run again = run(dir, common + "--xyz " + (dir.path() / "b.xyz").string());
  REQUIRE(again.code == 0);
  CHECK(slurp(dir.path() / "b.xyz") == xyz);
  for (const auto& entry : fs::directory_iterator(dir.path()))
    CHECK(entry.path().filename().string().find(".tmp-") == std::string::npos);
}

TEST_CASE("cli: rayleigh-taylor prints the mixing layer and --montage tiles the frames") {
  TempDir dir;
  const fs::path frames = dir.path() / "rt", montage = dir.path() / "montage.png";
  const Run r = run(dir, "--scenario rayleigh-taylor --n 540 --box 10,3,6 --steps 40 --every 20 --frames " +
                             frames.string() + " --frame-every 10 --montage " + montage.string() +
                             " --montage-columns 2");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("   mixing") != std::string::npos);  // the header names the column
  // PNG width and height: big-endian words at bytes 16 and 20 (the IHDR chunk).
  auto size_of = [](const std::string& png) {
    REQUIRE(png.size() > 24);
    auto word = [&](size_t at) {
      return uint32_t(uint8_t(png[at])) << 24 | uint32_t(uint8_t(png[at + 1])) << 16 |
             uint32_t(uint8_t(png[at + 2])) << 8 | uint32_t(uint8_t(png[at + 3]));
    };
    return std::pair{word(16), word(20)};
  };
  const auto [fw, fh] = size_of(slurp(frames / "frame_00000000.png"));
  const auto [mw, mh] = size_of(slurp(montage));
  CHECK(mw == 2 * fw);  // 5 frames (steps 0, 10, 20, 30, 40) in 2 columns: 3 rows
  CHECK(mh == 3 * fh);
}
