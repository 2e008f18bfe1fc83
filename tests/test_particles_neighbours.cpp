// SPDX-License-Identifier: MIT
// The particle app's neighbour search (cell ids + vksort bucket lists + 27-cell walk in the force
// kernel) against a brute-force CPU search over all pairs, and its refusal of unusable boxes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gpu_bindings.hpp"
#include "test_particles_support.hpp"

using namespace particles;
using particles::test::context;

namespace {

// n particles at random, plus particles pressed against every face of the box (within 0.02 of x = 0,
// x = lx, y = 0, y = ly, z = 0, z = lz, and exactly on the faces), where periodic images and walls matter.
State boundary_heavy_state(const Model& m, uint32_t n, uint32_t seed) {
  State s = random_state(m, n, [](const Model&, float, float, float, uint32_t i) { return int(i % 2); });
  const float l[3] = {m.lx, m.ly, m.lz};
  for (uint32_t i = 0; i < n / 2; ++i) {
    const int axis = int(i % 3);
    const double u = unit_random(seed, 99, i);
    float x = (i / 3) % 2 == 0 ? float(u * 0.02) : l[axis] - float(u * 0.02);
    if (i % 17 == 0) x = (i / 3) % 2 == 0 ? 0.0f : l[axis];  // exactly on the face
    s.pos[4 * i + axis] = x;
  }
  return s;
}

// Compares the GPU's neighbour lists with all pairs closer than r_c. Pairs within a relative 1e-5 of
// r_c may go either way (the GPU may fuse the multiply-adds of the distance); all others must match.
// With `steps`, the simulation first runs that many steps (reordering particles in memory on the way)
// and the lists are checked against the positions it reached.
void check_against_brute_force(const Model& m, State s, uint32_t capacity = 96, uint32_t steps = 0) {
  particles::test::NoValidationMessages quiet;
  Simulation sim(context(), m, s);
  if (steps) {
    sim.advance(steps);
    s.pos = sim.snapshot().pos;
  }
  const std::vector<std::vector<uint32_t>> gpu = sim.neighbour_lists(capacity);
  const uint32_t n = s.size();
  const float rc2 = m.rc * m.rc, band = 1e-5f * rc2;
  uint64_t pairs = 0, near_boundary = 0;
  for (uint32_t i = 0; i < n; ++i) {
    REQUIRE(std::adjacent_find(gpu[i].begin(), gpu[i].end()) == gpu[i].end());  // no pair twice
    for (uint32_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const float r2 = particles::test::distance2(m, s, i, j);
      const bool found = std::binary_search(gpu[i].begin(), gpu[i].end(), j);
      if (r2 < rc2 - band) {
        if (!found) FAIL_CHECK("pair (" << i << ", " << j << ") at r^2 = " << r2 << " missed");
        ++pairs;
        const float* a = &s.pos[4 * i];
        const float* b = &s.pos[4 * j];
        if (std::abs(a[0] - b[0]) > m.rc || std::abs(a[1] - b[1]) > m.rc || std::abs(a[2] - b[2]) > m.rc)
          ++near_boundary;  // a pair that only exists through a periodic image
      } else if (r2 >= rc2 + band) {
        if (found) FAIL_CHECK("pair (" << i << ", " << j << ") at r^2 = " << r2 << " is not within r_c");
      }
      if (found) CHECK(std::binary_search(gpu[j].begin(), gpu[j].end(), i));  // symmetric
    }
  }
  CHECK(pairs > n);                // the test saw real neighbourhoods ...
  if (m.lx < 40) CHECK(near_boundary > 0);  // ... and pairs across periodic faces
}

}  // namespace

TEST_CASE("neighbours: bucket-list search equals brute force, periodic x y, walls in z") {
  Model m;
  m.lx = 7.5f, m.ly = 6.3f, m.lz = 5.2f;  // cells of edge > r_c, different along each axis
  m.layout = Layout::lists;
  for (Cells cells : {Cells::scatter, Cells::sort}) {
    CAPTURE(int(cells));
    m.cells = cells;
    check_against_brute_force(m, boundary_heavy_state(m, 700, 5));
  }
}

TEST_CASE("neighbours: cell-order search (slot ranges) equals brute force, cells of r_c / 1, 2, 3") {
  Model m;
  m.lx = 7.5f, m.ly = 6.3f, m.lz = 5.2f;
  for (uint32_t divisions : {1u, 2u, 3u}) {
    CAPTURE(divisions);
    m.cell_divisions = divisions;
    REQUIRE(grid_for(m).reach == divisions);
    check_against_brute_force(m, boundary_heavy_state(m, 700, 5));
    m.periodic_z = true;  // the wrapped ranges along z too
    check_against_brute_force(m, boundary_heavy_state(m, 700, 9));
    m.periodic_z = false;
  }
}

TEST_CASE("neighbours: still exact after steps with the particles reordered in memory") {
  Model m;
  m.lx = 7.5f, m.ly = 6.3f, m.lz = 5.2f;
  SUBCASE("bucket lists, reordered every 5 steps") {
    m.layout = Layout::lists;
    m.reorder_every = 5;
  }
  SUBCASE("cell order (reordered every step)") {}
  SUBCASE("Verlet list (reordered at its rebuilds; the search on cells of r_c + skin)") {
    m.neighbours = Neighbours::list;
    m.skin = 0.3f;
  }
  check_against_brute_force(m, boundary_heavy_state(m, 700, 8), 96, 12);
}

TEST_CASE("neighbours: exactly 3 cells per axis, fully periodic") {
  Model m;
  m.periodic_z = true;
  SUBCASE("edge exactly r_c") { m.lx = m.ly = m.lz = 3.0f; }
  SUBCASE("edge above r_c") { m.lx = 3.9f, m.ly = 3.5f, m.lz = 3.0f; }
  SUBCASE("walls, one cell high") {
    m.periodic_z = false;
    m.lx = m.ly = 3.0f;
    m.lz = 1.5f;
  }
  for (const auto& [layout, divisions] : {std::pair{Layout::lists, 1u}, {Layout::cell_order, 1u}, {Layout::cell_order, 2u}}) {
    CAPTURE(divisions);
    m.layout = layout;
    m.cell_divisions = divisions;
    REQUIRE(grid_for(m).nx == (layout == Layout::lists ? 3u : uint32_t(m.lx / (m.rc / float(divisions)))));
    check_against_brute_force(m, boundary_heavy_state(m, uint32_t(3 * m.lx * m.ly * m.lz), 6));
  }
}

// Particles exactly on the periodic faces (0, L and the float just below L, just above 0), on every
// cell border of the grid in use (k * cell edge, and the floats either side), in boxes just above 3
// cells per axis and not cubic: each must land in a cell whose walk finds all its partners.
TEST_CASE("neighbours: particles on faces and cell borders of awkward boxes equal brute force") {
  const struct {
    float lx, ly, lz;
    bool periodic_z;
  } boxes[] = {{3.01f, 4.7f, 1.2f, false}, {3.0f, 3.0001f, 3.3f, true}, {5.3f, 3.2f, 7.9f, false}, {3.91f, 4.0f, 1.31f, false}};
  const struct {
    Layout layout;
    uint32_t divisions;
    Neighbours neighbours;
  } searches[] = {{Layout::lists, 1u, Neighbours::cells}, {Layout::cell_order, 1u, Neighbours::cells},
                  {Layout::cell_order, 3u, Neighbours::cells}, {Layout::cell_order, 4u, Neighbours::cells},
                  {Layout::cell_order, 4u, Neighbours::list}};
  for (const auto& b : boxes) {
    for (const auto& [layout, divisions, neighbours] : searches) {
      Model m;
      m.lx = b.lx, m.ly = b.ly, m.lz = b.lz, m.periodic_z = b.periodic_z;
      m.layout = layout;
      m.cell_divisions = divisions;
      m.neighbours = neighbours;  // the Verlet list's build: cells of r_c + skin
      if (neighbours == Neighbours::list && (m.lx < 3.9f || m.ly < 3.9f || (m.periodic_z && m.lz < 3.9f))) continue;
      CAPTURE(b.lx);
      CAPTURE(b.ly);
      CAPTURE(b.lz);
      CAPTURE(divisions);
      CAPTURE(int(layout));
      CAPTURE(int(neighbours));
      const Grid g = grid_for(m);
      const float l[3] = {m.lx, m.ly, m.lz};
      const uint32_t cells[3] = {g.nx, g.ny, g.nz};
      State s = random_state(m, uint32_t(3 * m.lx * m.ly * m.lz), [](const Model&, float, float, float, uint32_t i) {
        return int(i % 2);
      });
      // The special coordinates along each axis: faces, the floats beside them, every cell border.
      std::vector<float> special[3];
      for (int a = 0; a < 3; ++a) {
        special[a] = {0.0f, std::nextafter(0.0f, 1.0f), l[a], std::nextafter(l[a], 0.0f), l[a] - 1e-6f * l[a]};
        const float edge = l[a] / float(cells[a]);
        for (uint32_t k = 1; k < cells[a]; ++k) {
          const float x = float(k) * edge;
          for (float y : {x, std::nextafter(x, 0.0f), std::nextafter(x, l[a])}) special[a].push_back(y);
        }
      }
      // Most particles get a special coordinate along one or two axes, so pairs of them sit on borders together.
      for (uint32_t i = 0; i < s.size(); ++i)
        for (int a = 0; a < 3; ++a)
          if ((i + a) % 3 != 0) {
            const std::vector<float>& sp = special[a];
            s.pos[4 * i + a] = sp[uint32_t(unit_random(31, a, i) * sp.size()) % sp.size()];
          }
      check_against_brute_force(m, s);
    }
  }
}

// A Verlet list whose skin / 2 fast particles nearly cross in one step (0.19 of 0.2 along x, in
// opposite directions: pairs closing by almost the whole skin between builds). neighbour_lists() and
// every batch's last step rebuild the list, so this compares the whole trajectory instead: the steps
// that reuse the list must find the same pairs as the cell walk, bit for bit.
TEST_CASE("neighbours: Verlet list with fast particles gives the cell walk's bits") {
  particles::test::NoValidationMessages quiet;
  Model m;
  m.lx = 5.0f, m.ly = 4.5f, m.lz = 3.9f;
  m.dt = 0.01f;
  m.skin = 0.4f;
  State s = random_state(m, 240, [](const Model&, float, float, float, uint32_t i) { return int(i % 2); });
  for (uint32_t i = 0; i < s.size(); i += 5) s.vel[4 * i] = i % 2 ? 19.0f : -19.0f;
  Snapshot cells, list;
  uint64_t builds = 0;
  for (Neighbours nb : {Neighbours::cells, Neighbours::list}) {
    m.neighbours = nb;
    Simulation sim(context(), m, s);
    sim.advance(60, 60);  // one batch: the GPU alone decides when to rebuild
    (nb == Neighbours::cells ? cells : list) = sim.snapshot();
    if (nb == Neighbours::list) builds = sim.times().list_builds;
  }
  MESSAGE("list rebuilt on " << builds << " of 60 steps");
  CHECK(builds < 60);  // some steps reused the list
  CHECK(std::memcmp(cells.pos.data(), list.pos.data(), cells.pos.size() * 4) == 0);
  CHECK(std::memcmp(cells.force.data(), list.force.data(), cells.force.size() * 4) == 0);
}

TEST_CASE("neighbours: dense clusters overflow the scatter iterations into vksort's fallback") {
  // All particles in a few cells: lists of up to 200 elements, far beyond max_iterations. One cluster
  // sits in a cell, the other straddles the periodic corner of the box.
  Model m;
  m.lx = m.ly = m.lz = 4.0f;
  m.periodic_z = true;
  State s = random_state(m, 400, [](const Model&, float, float, float, uint32_t) { return 0; });
  for (uint32_t i = 0; i < s.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      const float u = 0.9f * float(unit_random(7, k, i));
      s.pos[4 * i + k] = i % 2 ? 1.05f + u : std::fmod(3.55f + u, 4.0f);
    }
  check_against_brute_force(m, s, 256);
}

TEST_CASE("Verlet list: a cluster with more partners than the list holds stops with a message") {
  particles::test::NoValidationMessages quiet;
  Model m;
  m.lx = m.ly = m.lz = 4.0f;  // 3 cells of r_c + skin per axis
  m.periodic_z = true;
  m.neighbours = Neighbours::list;
  State s = random_state(m, 400, [](const Model&, float, float, float, uint32_t) { return 0; });
  for (uint32_t i = 0; i < s.size(); ++i)  // all 400 within a cube of 0.9: ~200 partners each
    for (int k = 0; k < 3; ++k) s.pos[4 * i + k] = 1.05f + 0.9f * float(unit_random(7, k, i));
  try {
    Simulation sim(context(), m, s);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("more than its capacity") != std::string::npos);
    CHECK(std::string(e.what()).find("--skin") != std::string::npos);
  }
}

TEST_CASE("boxes with fewer than 3 cells along a periodic axis are refused") {
  particles::test::NoValidationMessages quiet;
  Model m;
  m.lx = 10, m.ly = 10, m.lz = 10;
  SUBCASE("x") { m.lx = 2.99f; }
  SUBCASE("y") { m.ly = 2.0f; }
  SUBCASE("periodic z") {
    m.periodic_z = true;
    m.lz = 2.5f;
  }
  std::string shown;  // how the message shows a length short of 3 edges by float rounding only
  SUBCASE("y = 4.2 with cells of r_c + skin = 1.4 (in float 4.2 < 3 x 1.4)") {
    m.ly = 4.2f;
    m.neighbours = Neighbours::list;
    m.skin = 0.4f;
    shown = "box y = 4.19999981 holds 2 cell(s)";
  }
  const State s = random_state(m, 100, [](const Model&, float, float, float, uint32_t) { return 0; });
  try {
    Simulation sim(context(), m, s);
    FAIL("a box with 2 cells along a periodic axis was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("needs at least 3") != std::string::npos);
    if (!shown.empty()) CHECK_MESSAGE(std::string(e.what()).find(shown) != std::string::npos, e.what());
  }
}

// A skin below the rounding margin of the list's check is refused by grid_for, which the app runs on
// its options before anything else (exit 2, bad input), not first when the run's parameters are made.
TEST_CASE("Verlet list: a skin too small for the box's rounding is refused by grid_for") {
  Model m;
  m.lx = m.ly = m.lz = 5.0f;
  m.neighbours = Neighbours::list;
  m.skin = 1e-7f;
  try {
    grid_for(m);
    FAIL("a skin of 1e-7 was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("too small for the box's rounding") != std::string::npos);
  }
  m.skin = 1e-4f;  // above 8e-6 x 5
  CHECK(list_move_limit(m) > 0.0f);
}

TEST_CASE("particles outside the box are refused, naming one") {
  particles::test::NoValidationMessages quiet;
  Model m;
  m.lx = 5, m.ly = 5, m.lz = 5;
  State s = random_state(m, 100, [](const Model&, float, float, float, uint32_t) { return 0; });
  SUBCASE("beyond a periodic face") { s.pos[4 * 42 + 0] = 5.01f; }
  SUBCASE("below the floor") { s.pos[4 * 42 + 2] = -0.001f; }
  SUBCASE("not a number") { s.pos[4 * 42 + 1] = std::nanf(""); }
  try {
    Simulation sim(context(), m, s);
    FAIL("a particle outside the box was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("particle 42 is outside the box") != std::string::npos);
  }
}

// The kernels' descriptor set (gpu::Bindings) within the device's limits: an array one binding cannot
// hold, or more bindings than a shader may use, is refused before anything is created, naming the limit.
TEST_CASE("device limits: an array past maxStorageBufferRange, or too many bindings, is refused by name") {
  VkPhysicalDeviceLimits limits{};
  limits.maxPerStageDescriptorStorageBuffers = 4;  // Vulkan's minimum
  limits.maxDescriptorSetStorageBuffers = 24;
  limits.maxStorageBufferRange = 1u << 27;
  std::vector<gpu::Bindings::Buffer> buffers(4, {VK_NULL_HANDLE, 1u << 27, "positions"});
  gpu::Bindings::check_limits(buffers, limits);  // at the limits: accepted
  SUBCASE("an array larger than one binding") {
    buffers[2] = {VK_NULL_HANDLE, (1u << 27) + 1, "fixed-point force sums"};
    try {
      gpu::Bindings::check_limits(buffers, limits);
      FAIL("an array past maxStorageBufferRange was accepted");
    } catch (const Error& e) {
      const std::string what = e.what();
      CHECK(what.find("fixed-point force sums") != std::string::npos);
      CHECK(what.find("maxStorageBufferRange 134217728") != std::string::npos);
    }
  }
  SUBCASE("more bindings than a shader may use") {
    buffers.push_back({VK_NULL_HANDLE, 16, "ids"});
    try {
      gpu::Bindings::check_limits(buffers, limits);
      FAIL("more storage buffers than the device binds were accepted");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("bind 5 storage buffers; this device allows 4") != std::string::npos);
    }
  }
}

namespace {
// Destroys the shared context when the test run ends, before main returns: instance and device then go
// while the Vulkan loader and driver are certainly still in place (a static destructor would run later).
struct ContextReleaser : doctest::IReporter {
  explicit ContextReleaser(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override { particles::test::g_context.reset(); }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
DOCTEST_REGISTER_LISTENER("particles_context_releaser", 1, ContextReleaser);
}  // namespace
