// SPDX-License-Identifier: MIT
#include "output_text.hpp"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

#include "atomic_file.hpp"

namespace particles {

namespace {
// Shortest round-trip text for a float.
std::string num(float x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", double(x));
  return buf;
}
std::string num(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
}  // namespace

std::string xyz_frame(const Model& m, const SpeciesNames& species, const Snapshot& s) {
  std::ostringstream out;
  out << s.size() << '\n';
  out << "Lattice=\"" << num(m.lx) << " 0 0 0 " << num(m.ly) << " 0 0 0 " << num(m.lz)
      << "\" Properties=species:S:1:pos:R:3:velo:R:3:masses:R:1:momenta:R:3 pbc=\"T T "
      << (m.periodic_z ? 'T' : 'F') << "\" Time=" << num(float(double(s.step) * m.dt)) << " step=" << s.step << '\n';
  for (uint32_t i = 0; i < s.size(); ++i) {
    const int sp = s.pos[4 * i + 3] != 0.0f ? 1 : 0;
    out << species.name[sp];
    for (int k = 0; k < 3; ++k) out << ' ' << num(s.pos[4 * i + k]);
    for (int k = 0; k < 3; ++k) out << ' ' << num(s.vel[4 * i + k]);
    out << ' ' << num(m.mass[sp]);
    for (int k = 0; k < 3; ++k) out << ' ' << num(double(m.mass[sp]) * double(s.vel[4 * i + k]));  // exact
    out << '\n';
  }
  return out.str();
}

void write_xyz(const std::string& path, const Model& m, const SpeciesNames& species, const Snapshot& s) {
  write_atomically(path, [&](std::ostream& out) { out << xyz_frame(m, species, s); });
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

std::string frame_path(const std::string& path, uint64_t step) {
  const std::filesystem::path p(path);
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "_%08llu", static_cast<unsigned long long>(step));
  return (p.parent_path() / (p.stem().string() + suffix + p.extension().string())).string();
}

namespace {
// Text from the file as an error message quotes it: at most 60 characters, bytes that are not printable
// ASCII as \xNN. A binary file's first "line" went out whole (a megabyte on one line) and cut at its
// first zero byte.
std::string shown(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < 60; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return text.size() > 60 ? out + "..." : out;
}

// key=value and key="quoted value" pairs of an extended XYZ comment line.
std::map<std::string, std::string> header_fields(const std::string& line) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    const size_t eq = line.find('=', i);
    if (eq == std::string::npos) break;
    const std::string key = line.substr(i, eq - i);
    i = eq + 1;
    std::string value;
    if (i < line.size() && line[i] == '"') {
      const size_t end = line.find('"', i + 1);
      value = line.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
      i = end == std::string::npos ? line.size() : end + 1;
    } else {
      const size_t end = line.find(' ', i);
      value = line.substr(i, end == std::string::npos ? std::string::npos : end - i);
      i = end == std::string::npos ? line.size() : end;
    }
    out[key] = value;
  }
  return out;
}
}  // namespace

State read_xyz(const std::string& path, const SpeciesNames& species, float box[3]) {
  std::ifstream in = open_input(path, "particle file");
  auto fail = [&](size_t line, const std::string& what) {
    return Error(path + ":" + std::to_string(line) + ": " + what);
  };
  // Frame by frame; the last complete one wins.
  State last;
  bool any = false;
  size_t line_no = 0;
  for (std::string count_line; std::getline(in, count_line);) {
    ++line_no;
    if (count_line.find_first_not_of(" \t\r") == std::string::npos) continue;
    uint64_t n = 0;
    // The whole line a count, as ASE reads it ("400abc" is no count); digits only, so no sign either.
    const size_t digits = count_line.find_first_not_of(" \t");
    bool count_ok = std::isdigit(static_cast<unsigned char>(count_line[digits])) != 0;
    try {
      size_t used = 0;
      if (count_ok) n = std::stoull(count_line, &used);
      count_ok = count_ok && count_line.find_first_not_of(" \t\r", used) == std::string::npos;
    } catch (const std::exception&) {
      count_ok = false;
    }
    if (!count_ok) throw fail(line_no, "expected a particle count, got '" + shown(count_line) + "'");
    if (n == 0 || n > (1ull << 28)) throw fail(line_no, "particle count " + std::to_string(n) + " out of range");
    std::string header;
    if (!std::getline(in, header)) throw fail(line_no, "no comment line after the count");
    ++line_no;
    const auto fields = header_fields(header);
    const auto lattice = fields.find("Lattice");
    if (lattice == fields.end()) throw fail(line_no, "no Lattice=\"...\" (the box) in the comment line");
    std::istringstream lv(lattice->second);
    float l[9];
    for (float& x : l)
      if (!(lv >> x)) throw fail(line_no, "Lattice needs 9 numbers");
    if (std::string more; lv >> more) throw fail(line_no, "Lattice needs 9 numbers, and has more");
    for (int k : {1, 2, 3, 5, 6, 7})
      if (l[k] != 0.0f) throw fail(line_no, "only rectangular boxes are supported (Lattice off-diagonal non-zero)");
    const float diagonal[3] = {l[0], l[4], l[8]};
    try {
      check_file_box(diagonal);
    } catch (const Error& e) {
      throw fail(line_no, std::string("Lattice: ") + e.what());
    }
    // Columns: name -> (first column, width).
    const auto props = fields.find("Properties");
    const std::string properties = props == fields.end() ? "species:S:1:pos:R:3" : props->second;
    std::map<std::string, std::pair<int, int>> columns;  // name -> (first column, width)
    std::map<std::string, std::string> types;             // name -> S, R, I or L
    int row_width = 0;                                    // columns a row has
    {
      std::istringstream pv(properties);
      std::vector<std::string> parts;
      for (std::string part; std::getline(pv, part, ':');) parts.push_back(part);
      if (parts.size() % 3 != 0) throw fail(line_no, "malformed Properties=" + shown(properties));
      for (size_t k = 0; k < parts.size(); k += 3) {
        const std::string& type = parts[k + 1];
        const std::string& width_text = parts[k + 2];
        const bool digits_only = !width_text.empty() && width_text.size() <= 3 &&
                                 width_text.find_first_not_of("0123456789") == std::string::npos;
        const int width = digits_only ? std::stoi(width_text) : 0;
        if (width < 1 || (type != "S" && type != "R" && type != "I" && type != "L") || columns.count(parts[k]))
          throw fail(line_no, "malformed Properties=" + shown(properties));
        columns[parts[k]] = {row_width, width};
        types[parts[k]] = type;
        row_width += width;
      }
    }
    // The numbers this reader takes are R (real) columns, as ASE writes them; pos:S:3 is no position.
    for (const char* name : {"pos", "velo", "vel", "velocities", "momenta", "masses"})
      if (columns.count(name) && types.at(name) != "R")
        throw fail(line_no, std::string(name) + " must be an R (real) column in Properties=" + shown(properties));
    if (!columns.count("pos") || columns["pos"].second != 3) throw fail(line_no, "no pos:R:3 column");
    std::string vel_name;
    for (const char* name : {"velo", "vel", "velocities"})
      if (columns.count(name) && columns[name].second == 3) vel_name = name;
    const bool momenta = vel_name.empty() && columns.count("momenta");
    // ASE writes momenta = m v with its element masses, and a masses column only where masses were set:
    // without it the velocities are unknown (the symbols here are labels, whose masses are the
    // scenario's, not the element's), and dropping them for thermal ones would be silent.
    if (momenta && !columns.count("masses"))
      throw fail(line_no, "momenta without masses: the velocities (momenta / masses) need the masses they were "
                          "written with (ASE writes them after atoms.set_masses(atoms.get_masses())), or give velo");
    if (momenta && (columns["momenta"].second != 3 || columns["masses"].second != 1))
      throw fail(line_no, "momenta must be R:3 and masses R:1");
    State s;
    s.pos.resize(4 * n);
    if (!vel_name.empty() || momenta) s.vel.resize(4 * n);
    for (uint64_t i = 0; i < n; ++i) {
      std::string row;
      if (!std::getline(in, row)) throw fail(line_no, "the file ends after " + std::to_string(i) + " of " + std::to_string(n) + " particles");
      ++line_no;
      std::istringstream rv(row);
      std::vector<std::string> cells;
      for (std::string c; rv >> c;) cells.push_back(c);
      if (cells.size() > size_t(row_width))
        throw fail(line_no, std::to_string(cells.size()) + " columns where Properties declares " + std::to_string(row_width));
      auto value = [&](const std::string& name, int k) {
        const size_t c = size_t(columns[name].first + k);
        if (c >= cells.size()) throw fail(line_no, "too few columns");
        try {
          size_t used = 0;
          const double v = std::stod(cells[c], &used);
          if (used == cells[c].size()) return v;  // the whole field: "1.5abc" is no number
        } catch (const std::exception&) {
        }
        throw fail(line_no, "'" + shown(cells[c]) + "' is not a number");
      };
      for (int k = 0; k < 3; ++k) s.pos[4 * i + k] = float(value("pos", k));
      int sp = 0;
      if (columns.count("species")) {
        const size_t c = size_t(columns["species"].first);
        if (c >= cells.size()) throw fail(line_no, "too few columns");
        sp = species_index(species, cells[c]);
        if (sp < 0) throw fail(line_no, not_a_species(species, shown(cells[c])));
      }
      s.pos[4 * i + 3] = float(sp);
      for (int k = 0; k < 3 && !s.vel.empty(); ++k)
        s.vel[4 * i + k] = momenta ? float(value("momenta", k) / value("masses", 0)) : float(value(vel_name, k));
    }
    for (int k = 0; k < 3; ++k) box[k] = l[4 * k];
    last = std::move(s);
    any = true;
  }
  if (!any) throw Error(path + ": no XYZ frame in it");
  return last;
}

}  // namespace particles
