// SPDX-License-Identifier: MIT
#include "output_text.hpp"

#include <cstdio>
#include <ostream>

#include "atomic_file.hpp"

namespace particles {

namespace {
// Shortest round-trip text for a float.
std::string num(float x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", double(x));
  return buf;
}
}  // namespace

void write_xyz(const std::string& path, const Model& m, const Snapshot& s) {
  write_atomically(path, [&](std::ostream& out) {
    out << s.size() << '\n';
    out << "Lattice=\"" << num(m.lx) << " 0 0 0 " << num(m.ly) << " 0 0 0 " << num(m.lz)
        << "\" Properties=species:S:1:pos:R:3:velo:R:3 pbc=\"T T " << (m.periodic_z ? 'T' : 'F')
        << "\" Time=" << num(float(double(s.step) * m.dt)) << " step=" << s.step << '\n';
    for (uint32_t i = 0; i < s.size(); ++i) {
      out << (s.pos[4 * i + 3] != 0.0f ? 'H' : 'L');
      for (int k = 0; k < 3; ++k) out << ' ' << num(s.pos[4 * i + k]);
      for (int k = 0; k < 3; ++k) out << ' ' << num(s.vel[4 * i + k]);
      out << '\n';
    }
  });
}

void write_vtk(const std::string& path, const Model& m, const Snapshot& s) {
  write_atomically(path, [&](std::ostream& out) {
    const uint32_t n = s.size();
    out << "# vtk DataFile Version 3.0\nDPD particles, box " << num(m.lx) << ' ' << num(m.ly) << ' ' << num(m.lz)
        << ", step " << s.step << "\nASCII\nDATASET POLYDATA\nPOINTS " << n << " float\n";
    for (uint32_t i = 0; i < n; ++i)
      out << num(s.pos[4 * i]) << ' ' << num(s.pos[4 * i + 1]) << ' ' << num(s.pos[4 * i + 2]) << '\n';
    out << "VERTICES " << n << ' ' << 2ull * n << '\n';
    for (uint32_t i = 0; i < n; ++i) out << "1 " << i << '\n';
    out << "POINT_DATA " << n << "\nSCALARS species int 1\nLOOKUP_TABLE default\n";
    for (uint32_t i = 0; i < n; ++i) out << (s.pos[4 * i + 3] != 0.0f ? 1 : 0) << '\n';
    out << "VECTORS velocity float\n";
    for (uint32_t i = 0; i < n; ++i)
      out << num(s.vel[4 * i]) << ' ' << num(s.vel[4 * i + 1]) << ' ' << num(s.vel[4 * i + 2]) << '\n';
  });
}

}  // namespace particles
