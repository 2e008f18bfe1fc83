// SPDX-License-Identifier: MIT
// The particle app as a measuring tool (issue 19): the pressure it writes equals the virial computed
// here from a frame it wrote; the initial momentum is zero and the temperature exact; the fcc start;
// a restart continues bit for bit. Sizes are small (a few hundred particles, tens of steps): seconds.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "initial_state.hpp"
#include "observables.hpp"
#include "structure.hpp"
#include "test_particles_support.hpp"

using namespace particles;
using particles::test::Run;
using particles::test::TempDir;
using particles::test::run;
using particles::test::slurp;
namespace fs = std::filesystem;

namespace {

// Rows of a CSV file with a header line, by column name ("#" lines skipped).
std::vector<std::map<std::string, double>> read_csv(const fs::path& path) {
  std::istringstream in(slurp(path));
  std::vector<std::string> names;
  std::vector<std::map<std::string, double>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream cells(line);
    std::vector<std::string> v;
    for (std::string c; std::getline(cells, c, ',');) v.push_back(c);
    if (names.empty()) {
      names = v;
      continue;
    }
    REQUIRE(v.size() == names.size());
    std::map<std::string, double>& row = rows.emplace_back();
    for (size_t k = 0; k < v.size(); ++k) row[names[k]] = std::stod(v[k]);
  }
  return rows;
}

// The frames of an extended XYZ file the app wrote (its column order), by step.
struct Frame {
  std::vector<double> pos, vel;  // 3 per particle
  std::vector<std::string> species;
};
std::map<uint64_t, Frame> read_frames(const fs::path& path) {
  std::map<uint64_t, Frame> frames;
  std::istringstream in(slurp(path));
  for (std::string count; std::getline(in, count);) {
    std::string header;
    std::getline(in, header);
    const size_t at = header.find(" step=");
    REQUIRE(at != std::string::npos);
    Frame& f = frames[std::stoull(header.substr(at + 6))];
    for (int i = 0; i < std::stoi(count); ++i) {
      std::string line, sp;
      std::getline(in, line);
      std::istringstream fields(line);
      double x[6];
      fields >> sp >> x[0] >> x[1] >> x[2] >> x[3] >> x[4] >> x[5];
      f.species.push_back(sp);
      f.pos.insert(f.pos.end(), x, x + 3);
      f.vel.insert(f.vel.end(), x + 3, x + 6);
    }
  }
  return frames;
}

}  // namespace

TEST_CASE("observables: the pressure tensor and pair energy the app writes equal the virial of a frame it wrote") {
  // Two species with unlike a (phase separation), walls in z, masses 1: 500 particles, 30 steps.
  TempDir dir;
  const fs::path csv = dir.path() / "obs.csv", xyz = dir.path() / "t.xyz";
  const Run r = run(dir, "--scenario phase-separation --n 500 --box 6,6,5 --steps 30 --every 10 --dump-every 10 "
                         "--observables " + csv.string() + " --xyz " + xyz.string() + " --vtk " +
                         (dir.path() / "f.vtk").string() + " --rdf " + (dir.path() / "g.csv").string() +
                         " --rdf-bins 50 --msd " + (dir.path() / "msd.csv").string());
  REQUIRE_MESSAGE(r.code == 0, r.err);
  // g(r) over the rows of the second half (steps 20 and 30), 50 bins up to 3; the MSD at every row,
  // zero at the first, and D printed.
  const auto g = read_csv(dir.path() / "g.csv");
  REQUIRE(g.size() == 50);
  CHECK(g.front().at("r") == doctest::Approx(0.03));
  CHECK(g.back().at("r") == doctest::Approx(2.97));
  const auto msd = read_csv(dir.path() / "msd.csv");
  REQUIRE(msd.size() == 4);
  CHECK(msd[0].at("msd") == 0.0);
  CHECK(msd[3].at("msd") > msd[1].at("msd"));
  CHECK(slurp(dir.path() / "msd.csv").rfind("# D = ", 0) == 0);
  CHECK(r.out.find("# diffusion coefficient D = ") != std::string::npos);
  for (const char* vtk : {"f_00000000.vtk", "f_00000010.vtk", "f_00000020.vtk", "f_00000030.vtk", "f.vtk"})
    CHECK_MESSAGE(slurp(dir.path() / vtk).find("POINTS 500 float") != std::string::npos, vtk);  // a VTK series
  const auto rows = read_csv(csv);
  const auto frames = read_frames(xyz);
  REQUIRE(rows.size() == 4);
  REQUIRE(frames.size() == 4);
  const float box[3] = {6, 6, 5};
  const Model m = scenario_model(Scenario::phase_separation, 500, box);
  const double l[3] = {m.lx, m.ly, m.lz}, volume = l[0] * l[1] * l[2];
  for (const auto& row : rows) {
    const uint64_t step = uint64_t(row.at("step"));
    CAPTURE(step);
    const Frame& f = frames.at(step);
    const size_t n = f.species.size();
    // Independently: every pair i < j within r_c by brute force, in double, minimum image in x and y.
    double w[6] = {}, energy = 0, kin[6] = {};
    const int a[6] = {0, 1, 2, 0, 0, 1}, b[6] = {0, 1, 2, 1, 2, 2};
    for (size_t i = 0; i < n; ++i) {
      for (int k = 0; k < 6; ++k) kin[k] += f.vel[3 * i + a[k]] * f.vel[3 * i + b[k]];  // masses are 1
      for (size_t j = i + 1; j < n; ++j) {
        double d[3], r2 = 0;
        for (int k = 0; k < 3; ++k) {
          d[k] = f.pos[3 * i + k] - f.pos[3 * j + k];
          if (k < 2) d[k] -= l[k] * std::nearbyint(d[k] / l[k]);
          r2 += d[k] * d[k];
        }
        if (r2 >= 1.0 || r2 == 0.0) continue;
        const double rr = std::sqrt(r2), wr = 1.0 - rr;
        const double aij = m.a[f.species[i] == "Ar"][f.species[j] == "Ar"];
        energy += aij * wr * wr / 2;
        for (int k = 0; k < 6; ++k) w[k] += aij * wr * d[a[k]] * d[b[k]] / rr;  // r_a F_b
      }
    }
    const char* names[6] = {"Pxx", "Pyy", "Pzz", "Pxy", "Pxz", "Pyz"};
    const double p = (kin[0] + kin[1] + kin[2] + w[0] + w[1] + w[2]) / (3 * volume);
    MESSAGE("P written " << row.at("P") << ", from the frame " << p);
    CHECK(std::abs(row.at("P") - p) < 1e-5 * p);
    for (int k = 0; k < 6; ++k) {
      CAPTURE(names[k]);
      CHECK(std::abs(row.at(names[k]) - (kin[k] + w[k]) / volume) < 1e-5 * p);
    }
    CHECK(std::abs(row.at("potential") - energy) < 1e-5 * energy);
    CHECK(std::abs(row.at("T") - (kin[0] + kin[1] + kin[2]) / (3.0 * n)) < 1e-6);
    // The full tensor adds the dissipative and random forces' virial: a different number, same trace rule.
    CHECK(std::abs(row.at("P_all") - (row.at("Pxx_all") + row.at("Pyy_all") + row.at("Pzz_all")) / 3) < 1e-6 * p);
  }
}

TEST_CASE("initial state: total momentum zero to float round-off, temperature exactly kBT") {
  particles::test::NoValidationMessages quiet;
  Model m;
  m.lx = m.ly = 8;
  m.lz = 6;
  m.mass[1] = 2.0f;  // unequal masses: the shift is by the centre-of-mass velocity
  m.kbt = 1.3f;
  m.seed = 5;
  auto check = [&](const State& s) {
    double p[3] = {0, 0, 0}, mv2 = 0, largest = 0;
    for (uint32_t i = 0; i < s.size(); ++i) {
      const double mass = m.mass[s.pos[4 * i + 3] != 0.0f];
      for (int k = 0; k < 3; ++k) {
        p[k] += mass * s.vel[4 * i + k];
        mv2 += mass * s.vel[4 * i + k] * s.vel[4 * i + k];
        largest = std::max(largest, std::abs(mass * s.vel[4 * i + k]));
      }
    }
    // Each velocity is rounded to float once after the shift: a random walk of N half-ulps.
    const double round_off = 4.0 * std::sqrt(double(s.size())) * largest * std::ldexp(1.0, -24);
    MESSAGE("momentum " << p[0] << " " << p[1] << " " << p[2] << " (round-off bound " << round_off << ")");
    for (double x : p) CHECK(std::abs(x) < round_off);
    CHECK(std::abs(mv2 / (3.0 * s.size()) - m.kbt) < 1e-6);
    // And as the app measures it at step 0 on the GPU.
    Model periodic = m;
    periodic.periodic_z = true;
    Simulation sim(particles::test::context(), periodic, s);
    const Observables o = measure(periodic, sim.snapshot());
    CHECK(std::abs(o.temperature - m.kbt) < 1e-6);
  };
  SUBCASE("random positions, two species") {
    check(random_state(m, 1500, [](const Model&, float, float, float, uint32_t i) { return int(i % 3 == 0); }));
  }
  SUBCASE("fcc lattice") {
    Model lattice = m;
    const State s = fcc_state(lattice, 3.0, [](const Model&, float, float, float, uint32_t) { return 0; });
    const double a = fcc_lattice_constant(3.0);
    CHECK(s.size() == 4u * 7 * 7 * 5);  // 8 / 1.1006 -> 7 cells, 6 / 1.1006 -> 5
    CHECK(lattice.lx == doctest::Approx(7 * a));
    CHECK(lattice.lz == doctest::Approx(5 * a));
    CHECK(s.size() / (double(lattice.lx) * lattice.ly * lattice.lz) == doctest::Approx(3.0));
    m = lattice;
    check(s);
  }
}

TEST_CASE("restart: N steps, a checkpoint, N more continue bit for bit like 2N steps in one run, observables too") {
  TempDir dir;
  const char* const variants[] = {
      "--scenario equilibrium --box 5,5,5 --lattice fcc",  // 500 particles
      // (--reorder-every acts on the bucket lists' layout only; the restart runs the default layout)
      "--scenario rayleigh-taylor --n 400 --box 5,5,6 --integrator leapfrog --noise paper --layout lists --reorder-every 7",
  };
  for (const std::string variant : variants) {
    CAPTURE(variant);
    const fs::path whole = dir.path() / "whole.ckpt", half = dir.path() / "half.ckpt", rest = dir.path() / "rest.ckpt";
    const std::string common = variant + " --seed 3 --every 10 --batch 8 ";
    const fs::path whole_rows = dir.path() / "whole.csv", rest_rows = dir.path() / "rest.csv", lists_rows = dir.path() / "lists.csv";
    const Run a = run(dir, common + "--steps 60 --checkpoint " + whole.string() + " --observables " + whole_rows.string());
    REQUIRE_MESSAGE(a.code == 0, a.err);
    const Run b = run(dir, common + "--steps 30 --checkpoint-every 10 --checkpoint " + half.string());
    REQUIRE_MESSAGE(b.code == 0, b.err);
    // Another batch size and no reordering on restart: neither may matter.
    const Run c = run(dir, "--restart " + half.string() + " --steps 30 --every 10 --batch 5 --checkpoint " + rest.string() +
                               " --observables " + rest_rows.string());
    REQUIRE_MESSAGE(c.code == 0, c.err);
    CHECK(c.out.find("steps 30 to 60") != std::string::npos);
    const std::string x = slurp(whole), y = slurp(rest);
    REQUIRE(x.size() > 1000);
    CHECK(x == y);  // positions, velocities, dissipative velocities, images, step, model: every byte
    CHECK(x != slurp(half));
    // The observables too, to the last digit written (the pair sums behind the virial, the pressure
    // tensor and the energy are fixed point, as the forces: in float, in the order the neighbour walk
    // found the pairs, they differed in the 9th digit after a restart and between layouts).
    auto rows_from = [](const std::string& csv, const std::string& first_step) {
      const size_t at = csv.find("\n" + first_step + ",");
      return at == std::string::npos ? std::string() : csv.substr(at + 1);
    };
    const std::string late = rows_from(slurp(whole_rows), "40");
    REQUIRE(!late.empty());
    CHECK(late == rows_from(slurp(rest_rows), "40"));
    // And the other layout from the start (the bucket lists' walk finds pairs in another order).
    std::string other = common;
    const std::string lists = "--layout lists --reorder-every 7";
    if (const size_t at = other.find(lists); at != std::string::npos) other.replace(at, lists.size(), "--layout cell-order");
    else other += "--layout lists ";
    const Run d = run(dir, other + "--steps 60 --observables " + lists_rows.string());
    REQUIRE_MESSAGE(d.code == 0, d.err);
    CHECK(slurp(lists_rows) == slurp(whole_rows));
  }
}
