// SPDX-License-Identifier: MIT
// The `particles` binary: bad input gives a message and a non-zero exit; a good run prints its table,
// writes PNG frames, extended XYZ (particle-id order) and VTK, and repeats itself exactly for a seed;
// a Rayleigh-Taylor run prints its mixing layer, tiles its frames into a montage and animates them
// into a looping GIF. Input files (--init GSD and XYZ, --restart checkpoints) are checked at load:
// what no run can use exits 2 before any work, and no output may replace them.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>

#include "checkpoint.hpp"
#include "model.hpp"
#include "output_png.hpp"
#include "simulation.hpp"
#include "support/scoped_env.hpp"
#include "test_particles_support.hpp"

namespace fs = std::filesystem;

using particles::test::Run;
using particles::test::TempDir;
using particles::test::run;
using particles::test::slurp;

namespace {
// PNG width and height: big-endian words at bytes 16 and 20 (the IHDR chunk).
std::pair<uint32_t, uint32_t> png_size(const std::string& png) {
  REQUIRE(png.size() > 24);
  auto word = [&](size_t at) {
    return uint32_t(uint8_t(png[at])) << 24 | uint32_t(uint8_t(png[at + 1])) << 16 |
           uint32_t(uint8_t(png[at + 2])) << 8 | uint32_t(uint8_t(png[at + 3]));
  };
  return {word(16), word(20)};
}

#ifdef PARTICLES_HAVE_GIF
// What the test reads from a GIF's block structure (GIF89a specification), walked block by block.
struct GifBlocks {
  uint32_t width = 0, height = 0;
  int images = 0;
  int images_of_screen_size = 0;
  int loop_extensions = 0;  // NETSCAPE2.0 with a loop count of 0: forever
  std::vector<int> delays;  // of the graphic control extensions, centiseconds
  bool trailer = false;     // ends with 0x3B and nothing after it
};

GifBlocks read_gif_blocks(const std::string& gif) {
  GifBlocks r;
  REQUIRE(gif.size() > 13);
  auto byte = [&](size_t at) {
    REQUIRE(at < gif.size());
    return uint8_t(gif[at]);
  };
  auto word = [&](size_t at) { return uint32_t(byte(at)) | uint32_t(byte(at + 1)) << 8; };
  REQUIRE(gif.substr(0, 6) == "GIF89a");
  r.width = word(6), r.height = word(8);
  size_t at = 13;
  if (byte(10) & 0x80) at += 3u << ((byte(10) & 7) + 1);  // the global colour table
  auto skip_sub_blocks = [&](size_t from) {
    while (byte(from) != 0) from += 1 + byte(from);
    return from + 1;
  };
  while (true) {
    const uint8_t kind = byte(at);
    if (kind == 0x3B) {
      r.trailer = at + 1 == gif.size();
      break;
    }
    if (kind == 0x21) {  // extension: label, sub-blocks
      const uint8_t label = byte(at + 1);
      if (label == 0xFF && byte(at + 2) == 11 && gif.substr(at + 3, 11) == "NETSCAPE2.0" && byte(at + 14) == 3 &&
          byte(at + 15) == 1 && word(at + 16) == 0)
        ++r.loop_extensions;
      if (label == 0xF9 && byte(at + 2) == 4) r.delays.push_back(int(word(at + 4)));
      at = skip_sub_blocks(at + 2);
    } else if (kind == 0x2C) {  // image: descriptor, local colour table, LZW code size, sub-blocks
      ++r.images;
      if (word(at + 1) == 0 && word(at + 3) == 0 && word(at + 5) == r.width && word(at + 7) == r.height)
        ++r.images_of_screen_size;
      size_t data = at + 10;
      if (byte(at + 9) & 0x80) data += 3u << ((byte(at + 9) & 7) + 1);
      at = skip_sub_blocks(data + 1);
    } else {
      FAIL("unknown GIF block 0x" << std::hex << int(kind) << " at byte " << std::dec << at);
    }
  }
  return r;
}
#endif

// One chunk of a GSD file: its name, GSD type id (3 uint32, 5 int8, 9 float), rows N, columns M, data.
struct GsdChunk {
  std::string name;
  uint8_t type;
  uint64_t n;
  uint32_t m;
  std::string data;
};

template <class T>
std::string bytes_of(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// A one-frame GSD file (file layer 2.0, HOOMD schema) written byte by byte, so a test can give it what
// the app's own writer never writes: a 256-byte header, the names packed (zero-padded to 64 bytes),
// the chunks, and an index of 32-byte entries (frame, N, location, M, name id, type, flags).
void write_gsd(const fs::path& path, const std::vector<GsdChunk>& chunks) {
  std::string names;
  for (const GsdChunk& c : chunks) names += c.name + '\0';
  names.resize((names.size() + 63) / 64 * 64, '\0');
  std::string file(256, '\0');
  file += names;
  std::string index;
  for (uint16_t id = 0; id < chunks.size(); ++id) {
    const GsdChunk& c = chunks[id];
    file.resize((file.size() + 7) / 8 * 8, '\0');
    char entry[32] = {};
    const uint64_t frame = 0, location = file.size();
    std::memcpy(entry, &frame, 8);
    std::memcpy(entry + 8, &c.n, 8);
    std::memcpy(entry + 16, &location, 8);
    std::memcpy(entry + 24, &c.m, 4);
    std::memcpy(entry + 28, &id, 2);
    entry[30] = char(c.type);
    index.append(entry, 32);
    file += c.data;
  }
  file.resize((file.size() + 7) / 8 * 8, '\0');
  const uint64_t header[5] = {0x65DF65DF65DF65DFull, file.size(), chunks.size(), 256, names.size() / 64};
  const uint32_t versions[2] = {(1u << 16) | 4u, 2u << 16};  // schema hoomd 1.4, file layer 2.0
  std::memcpy(file.data(), header, sizeof header);
  std::memcpy(file.data() + 40, versions, sizeof versions);
  std::memcpy(file.data() + 112, "hoomd", 5);
  file += index;
  std::ofstream(path, std::ios::binary) << file;
}

// Three particles in HOOMD's centred 7.75 x 7.75 x 3.87 box; `types` empty: no particles/types chunk.
void write_gsd3(const fs::path& path, const std::vector<std::string>& types, const std::vector<uint32_t>& typeid_,
                const std::vector<float>& position, const std::vector<float>& velocity = {},
                const std::vector<float>& mass = {}) {
  std::vector<GsdChunk> chunks = {{"configuration/box", 9, 6, 1, bytes_of(std::vector<float>{7.75f, 7.75f, 3.87f, 0, 0, 0})},
                                  {"particles/N", 3, 1, 1, bytes_of(std::vector<uint32_t>{3})},
                                  {"particles/position", 9, 3, 3, bytes_of(position)},
                                  {"particles/typeid", 3, 3, 1, bytes_of(typeid_)}};
  if (!types.empty()) {  // NUL-padded rows of the longest name + 1, as HOOMD's gsd.hoomd writes them (int8)
    size_t width = 0;
    for (const std::string& t : types) width = std::max(width, t.size() + 1);
    std::string rows;
    for (const std::string& t : types) rows += t + std::string(width - t.size(), '\0');
    chunks.push_back({"particles/types", 5, types.size(), uint32_t(width), rows});
  }
  if (!velocity.empty()) chunks.push_back({"particles/velocity", 9, 3, 3, bytes_of(velocity)});
  if (!mass.empty()) chunks.push_back({"particles/mass", 9, 3, 1, bytes_of(mass)});
  write_gsd(path, chunks);
}

// The species column of an extended XYZ file's last frame.
std::vector<std::string> xyz_species(const std::string& xyz) {
  std::istringstream in(xyz);
  std::string line;
  std::getline(in, line);
  const size_t n = std::stoul(line);
  std::getline(in, line);
  std::vector<std::string> species;
  for (size_t i = 0; i < n && std::getline(in, line); ++i) species.push_back(line.substr(0, line.find(' ')));
  return species;
}
}  // namespace

TEST_CASE("cli: bad arguments give one message and exit code 2") {
  TempDir dir;
  struct Case {
    const char* args;
    const char* says;
  } cases[] = {
      {"--scenario rayleigh-taylor --n 100 --box 2.5,10,10 --steps 1", "needs at least 3"},
      {"--scenario phase-separation --n 100 --box 10,2,10 --steps 1", "needs at least 3"},
      {"--scenario phase-separation --n 100 --box 10,10 --steps 1", "box"},
      // CLI11's delimiter dropped an empty item: these ran the box 6,6,6, exit 0.
      {"--scenario equilibrium --n 300 --box 6,,6,6 --steps 0", "--box: '6,,6,6' has an empty item"},
      {"--scenario equilibrium --n 300 --box 6,6,6, --steps 0", "--box: '6,6,6,' has an empty item"},
      {"--scenario equilibrium --n 300 --box=,6,6,6 --steps 0", "--box: ',6,6,6' has an empty item"},
      {"--scenario equilibrium --n 300 --box 6,6,6,6 --steps 0", "--box takes three lengths"},
      {"--scenario marbles --n 100", "scenario"},
      // An empty value after '=' is refused by name (CLI11 took the next argument: "--steps not in {...}").
      {"--scenario= --steps 1", "--scenario=: the option --scenario has an empty value"},
      {"--scenario equilibrium --n 100 --gsd= --steps 1", "--gsd=: the option --gsd has an empty value"},
      // An empty value given apart (a script's unset variable): no trajectory was written, or the
      // default device ran, with exit 0.
      {"--scenario equilibrium --n 300 --box 6,6,6 --steps 1 --gsd ''", "the option --gsd has an empty value"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --steps 1 --device ''", "the option --device has an empty value"},
      {"--n 100", "scenario"},
      {"--scenario phase-separation --n 0", "--n"},
      {"--scenario phase-separation --n 100 --cells bogus", "cells"},
      {"--scenario phase-separation --n 100 --dt -1", "dt"},
      {"--scenario equilibrium --n 100 --species Xx,Ar", "element symbol"},
      {"--scenario equilibrium --n 100 --species Ar,Ar", "different"},
      // getline dropped the empty name after a last comma: "Ne," ran as "Ne" alone.
      {"--scenario equilibrium --n 300 --box 6,6,6 --species Ne,", "--species: '' is not an element symbol"},
      {"--restart /nonexistent/run.ckpt --steps 1", "cannot read checkpoint"},
      {"--restart /nonexistent/run.ckpt --dt 0.01", "--dt is fixed by the checkpoint"},
      {"--scenario equilibrium --init /nonexistent/start.xyz", "cannot read"},
      {"--scenario equilibrium --init /nonexistent/start.xyz --lattice fcc", "--lattice"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --rdf g.csv --rdf-rmax 4", "r_max"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --gsd /nonexistent/t.gsd", "t.gsd"},
      {"--scenario rayleigh-taylor --n 100 --box 5,3,4 --montage m.png", "--montage needs --frames"},
      {"--scenario phase-separation --n 100 --layout rows", "layout"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --neighbours list --pairs both", "--neighbours list needs"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --neighbours list --layout lists", "--neighbours list needs"},
      // The edge is r_c + skin with the list (the message said "edge >= r_c = 1").
      {"--scenario equilibrium --n 300 --box 6,6,6 --neighbours list --skin 1.5",
       "holds 2 cell(s) of edge >= r_c + skin = 2.5 along a periodic axis; the 27-cell neighbour search needs at least 3 "
       "(length >= 3 (r_c + skin) = 7.5)"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --neighbours list --skin 0", "--skin"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --neighbours verlet", "--neighbours"},
      // A box of zero, negative or non-finite length was taken as "no --box" (the default box) and ran.
      {"--scenario equilibrium --n 300 --box 0,6,6", "--box: 0 is not positive"},
      {"--scenario equilibrium --n 300 --box -6,6,6", "--box: -6 is not positive"},
      {"--scenario equilibrium --n 300 --box nan,6,6", "--box: nan is not a finite number"},
      // NaN passed the floating-point checks and ran (NaN gravity, skin, r_max) or failed at run time.
      {"--scenario equilibrium --n 300 --gravity nan", "--gravity: nan is not a finite number"},
      {"--scenario equilibrium --n 300 --dt nan", "--dt: nan is not a finite number"},
      {"--scenario equilibrium --n 300 --neighbours list --skin nan", "--skin: nan"},
      {"--scenario equilibrium --n 300 --rdf g.csv --rdf-rmax nan", "--rdf-rmax: nan"},
      // A negative count was read as 2^64 - 1 into the unsigned option, and ran.
      {"--scenario equilibrium --n 300 --checkpoint-every -1", "--checkpoint-every: -1 is negative"},
      {"--scenario equilibrium --n 300 --dump-every -2", "--dump-every: -2 is negative"},
      {"--scenario equilibrium --n 300 --rdf-window -1", "--rdf-window: -1 is negative"},
      {"--scenario equilibrium --n 300 --frame-every -1", "--frame-every: -1 is negative"},
      {"--scenario equilibrium --n 300 --rdf r.csv --rdf-rmax 0", "--rdf-rmax: 0 is not positive"},
      {"--scenario equilibrium --n 0x100", "--n: 0x100 is not a decimal integer"},
      {"--scenario equilibrium --n 300 --seed 0x7", "--seed: 0x7 is not a decimal integer"},
      {"--scenario equilibrium --n 300 --every 0", "--every: 0 is not at least 1"},
      // An interval for an output not asked for was silently ignored.
      {"--scenario equilibrium --n 300 --box 6,6,6 --checkpoint-every 2", "--checkpoint-every needs --checkpoint"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --dump-every 2 --observables o.csv", "--dump-every needs --gsd, --xyz or --vtk"},
      // So were the settings of an output or a layout that the run does not use.
      {"--scenario equilibrium --n 300 --box 6,6,6 --frame-every 2", "--frame-every needs --frames"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --frames f --montage-columns 2", "--montage-columns needs --montage"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --frames f --animation-delay 5", "--animation-delay needs --animation"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --rdf-bins 50", "--rdf-bins needs --rdf"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --rdf-window 10", "--rdf-window needs --rdf"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --rdf-rmax 2", "--rdf-rmax needs --rdf"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --skin 0.2", "--skin needs --neighbours list"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --cells both", "--cells needs --layout lists"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --list-iterations 4", "--list-iterations needs --layout lists"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --list-parts 2", "--list-parts needs --layout lists"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --reorder-every 5", "--reorder-every needs --layout lists"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --layout lists --cell-divisions 2", "--cell-divisions needs --layout cell-order"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --layout lists --pairs both", "--pairs needs --layout cell-order"},
      {"--restart r.ckpt --steps 2 --skin 0.2", "--skin needs --neighbours list"},
      {"--restart r.ckpt --n 100 --box 20,20,20 --lattice fcc", "--n is fixed by the checkpoint"},
      // --lattice fcc fills a --box at density 3: --n was silently ignored (23328 particles, not 100).
      {"--scenario equilibrium --n 100 --box 20,20,20 --lattice fcc", "--n comes from the --box with --lattice fcc"},
      // A folder as the input opened, then failed at the first read ("basic_filebuf::underflow", exit 1).
      {"--restart . --steps 1", "checkpoint '.' is a folder, not a file"},
      {"--scenario equilibrium --init . --steps 1", "particle file '.' is a folder, not a file"},
      // Files written at the end of the run are checked at its start (they failed after all the work,
      // exit 1), and two options may not name one file (the later writer replaced the earlier's).
      {"--scenario equilibrium --n 300 --box 6,6,6 --rdf /nonexistent/g.csv", "--rdf '/nonexistent/g.csv': folder"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --msd /nonexistent/m.csv", "--msd '/nonexistent/m.csv'"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --vtk /nonexistent/v.vtk", "--vtk '/nonexistent/v.vtk'"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --checkpoint /nonexistent/c.ckpt", "--checkpoint '/nonexistent/c.ckpt'"},
      {"--scenario rayleigh-taylor --n 100 --box 5,3,4 --frames f --montage /nonexistent/m.png", "--montage '/nonexistent/m.png'"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --gsd t.out --xyz t.out", "--gsd and --xyz name the same file"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --observables o.csv --rdf ./o.csv", "--observables and --rdf name the same file"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --gsd t.gsd --checkpoint t.gsd", "--gsd and --checkpoint name the same file"},
      // Files written per step were not checked against the other outputs (the later writer won).
      {"--scenario equilibrium --n 300 --box 6,6,6 --vtk v.vtk --dump-every 2 --xyz v_00000002.vtk",
       "--xyz 'v_00000002.vtk' has the name of a file that --vtk with --dump-every writes each step"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --frames f --montage f/frame_00000000.png",
       "--montage 'f/frame_00000000.png' has the name of a file that --frames writes each step"},
      {"--scenario equilibrium --n 300 --box 6,6,6 --frames f --vtk f/frame.png --dump-every 1",
       "--vtk with --dump-every and --frames would write the same files"},
      // Pictures larger than PNG takes (libpng's 1000000 pixels a side): the montage failed after all the
      // steps ("libpng failed", exit 1) and the --rdf due after it was not written; a frame, at step 0.
      {"--scenario phase-separation --box 3,3,200 --n 300 --steps 210 --frames f --frame-every 1 --montage m.png "
       "--montage-columns 1 --rdf g.csv",
       "--montage: 211 frames of 132 x 5002 pixels in 1 column(s) would be 132 x 1055422 pixels, more than PNG "
       "readers take"},
      {"--scenario equilibrium --box 3,45000,3 --n 300 --steps 1 --frames f",
       "--frames: this box's frames would be 132 x 1080202 pixels, more than PNG readers take"},
#ifdef PARTICLES_HAVE_GIF
      // Frames higher than GIF allows failed at the first frame, after the set-up (exit 1).
      {"--scenario equilibrium --box 4,3000,6 --n 300 --steps 1 --frames f --animation a.gif",
       "--animation: this box's frames would be 156 x 72274 pixels, more than GIF allows"},
      // Frames kept for the end past the host's memory (here 78 TiB: a billion frames of a 6^3 box) ended
      // the run at its last step (out of memory) and lost every file written at the end.
      {"--scenario equilibrium --n 300 --box 6,6,6 --steps 1000000000 --frames f --frame-every 1 --animation a.gif",
       "--animation keep all 1000000001 frames of 204 x 418 pixels in memory until the end: 77.6 TiB, more than "},
#endif
      // The montage's side limit bounds what it keeps (here 311 GiB, near the most: frames about 900 pixels
      // wide in 64 columns, 1000000 pixels high): a host with more available would run this.
      {"--scenario equilibrium --n 300 --box 40,40,40 --steps 30000 --frames f --frame-every 1 --montage m.png "
       "--montage-columns 64",
       "--montage keep all 30001 frames of 960 x 1930 pixels in memory until the end: 310.7 GiB, more than "},
  };
  for (const Case& c : cases) {
    const std::string args = c.args;
    CAPTURE(args);
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
  const fs::path fifo = dir.path() / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::ofstream(xyz) << "3\nLattice=\"6 0 0 0 6 0 0 0 6\" Properties=species:S:1:pos:R:3\nNe 1 1 1\nNe 2 2 2\n";
  const struct {
    std::string args;
    const char* says;
  } files[] = {{"--restart " + junk.string(), "not a particles checkpoint"},
               {"--restart " + cut.string(), "damaged or truncated"},
               {"--scenario equilibrium --init " + xyz.string(), "ends after 2 of 3"},
               {"--scenario equilibrium --n 300 --box 6,6,6 --frames " + junk.string(), "is a file, not a folder"},
               {"--scenario equilibrium --n 300 --box 6,6,6 --frames " + (junk / "sub").string(), "cannot become a folder"},
               // A GSD file goes back to complete its index: a pipe failed at the first frame ("Illegal seek", exit 1).
               {"--scenario equilibrium --n 300 --box 6,6,6 --gsd " + fifo.string(), "is a pipe, socket or device that cannot seek"},
               // Files written at the end, into a folder that takes none (root passes access(2) there): refused
               // at the start ("cannot create a file in '/proc'"; "folder '/proc' is not writable" as others),
               // not after the steps.
               {"--scenario equilibrium --n 300 --box 6,6,6 --steps 20000 --rdf /proc/g.csv", "--rdf '/proc/g.csv': "},
               {"--scenario equilibrium --n 300 --box 6,6,6 --steps 20000 --msd /proc/m.csv", "--msd '/proc/m.csv': "},
               {"--scenario equilibrium --n 300 --box 6,6,6 --steps 20000 --checkpoint /proc/c.ckpt", "--checkpoint '/proc/c.ckpt': "},
               {"--scenario equilibrium --n 300 --box 6,6,6 --steps 20000 --vtk /proc/v.vtk", "--vtk '/proc/v.vtk': "}};
  for (const auto& c : files) {
    CAPTURE(c.args);
    const Run r = run(dir, c.args);
    CHECK(r.code == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
}

// The app chose its device by its own rule, where "1" also matched any device whose name holds a 1
// (llvmpipe's "LLVM 15.0.6", NVIDIA's "H100"): now vksort::choose_device's, an index only.
TEST_CASE("cli: --device and VKSORT_DEVICE pick as vksort's devices: an all-digit selector is an index only") {
  TempDir dir;
  const std::vector<vksort::DeviceListing> devices = vksort::list_devices();
  REQUIRE(!devices.empty());
  std::string digit;
  for (const vksort::DeviceListing& d : devices)
    for (char c : d.info.name)
      if (digit.empty() && c >= '0' && c <= '9' && uint32_t(c - '0') >= devices.size()) digit = std::string(1, c);
  const std::string small = "--scenario equilibrium --n 300 --box 6,6,6 --steps 1 --every 1";
  if (digit.empty()) {
    MESSAGE("skipped: no device name holds a digit beyond the device count");
  } else {
    CAPTURE(digit);
    const Run flag = run(dir, small + " --device " + digit);
    CHECK(flag.code == 2);
    CHECK(flag.err.find("--device: no Vulkan device matches \"" + digit + "\"") != std::string::npos);
    const vksort::test::ScopedEnv device_env("VKSORT_DEVICE", digit);
    const Run env = run(dir, small);
    CHECK(env.code == 2);
    CHECK(env.err.find("VKSORT_DEVICE: no Vulkan device matches") != std::string::npos);
  }
  const Run by_index = run(dir, small + " --device " + std::to_string(vksort::choose_device().index));
  CHECK_MESSAGE(by_index.code == 0, by_index.err);
}

// The --frames folder was created before the device and the initial forces, and stayed behind, empty,
// when they failed (`--device 99 --frames new`: exit 2 and new/).
TEST_CASE("cli: a run that fails before its first frame leaves no --frames folder; one that was there stays") {
  TempDir dir;
  const fs::path made = dir.path() / "new", kept = dir.path() / "kept";
  const Run no_device = run(dir, "--scenario equilibrium --n 300 --box 6,6,6 --steps 1 --device 99 --frames " +
                                     (made / "sub").string());
  CHECK(no_device.code == 2);
  CHECK(no_device.err.find("--device") != std::string::npos);
  CHECK(!fs::exists(made));
  // 300 particles in a corner 0.2 across: the Verlet list overflows at the initial forces (exit 1),
  // after the folder is created.
  const fs::path cluster = dir.path() / "cluster.xyz";
  {
    std::ofstream xyz(cluster);
    xyz << "300\nLattice=\"6 0 0 0 6 0 0 0 6\" Properties=species:S:1:pos:R:3\n";
    for (uint32_t i = 0; i < 300; ++i)
      xyz << "Ne " << 3 + 0.2 * (i % 7) / 7 << ' ' << 3 + 0.2 * (i / 7 % 7) / 7 << ' ' << 3 + 0.2 * (i / 49) / 7 << '\n';
  }
  const std::string overflow = "--scenario equilibrium --init " + cluster.string() + " --neighbours list --steps 1 --frames ";
  const Run failed = run(dir, overflow + (made / "sub").string());
  CHECK(failed.code == 1);
  CHECK(failed.err.find("neighbour list partners") != std::string::npos);
  CHECK(!fs::exists(made));
  fs::create_directory(kept);
  const Run failed_kept = run(dir, overflow + kept.string());
  CHECK(failed_kept.code == 1);
  CHECK(fs::is_directory(kept));
}

// --n 200000000 was refused only after ~90 s of host-side set-up (its initial state), at the first buffer,
// with exit 1. The device's limits are checked before, naming the largest --n that fits.
TEST_CASE("cli: a run larger than the device holds is refused before its state is made, with the largest --n") {
  TempDir dir;
  const vksort::DeviceInfo info = vksort::choose_device().info;
  const float no_box[3] = {0, 0, 0};
  auto model = [&](uint32_t n) { return particles::scenario_model(particles::Scenario::equilibrium, n, no_box); };
  const uint32_t huge = 1u << 28;  // --n's largest
  if (particles::device_shortfall(model(huge), huge, info).empty()) {
    MESSAGE("skipped: this device holds --n " << huge);
  } else {
    const auto start = std::chrono::steady_clock::now();
    const Run r = run(dir, "--scenario equilibrium --n " + std::to_string(huge) + " --steps 1");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK_MESSAGE(seconds < 10, "took " << seconds << " s");
    CHECK(r.err.find("--n " + std::to_string(huge) + ": the ") != std::string::npos);
    const size_t at = r.err.find("at most --n ");
    REQUIRE_MESSAGE(at != std::string::npos, r.err);
    const uint32_t most = uint32_t(std::stoul(r.err.substr(at + 12)));
    CAPTURE(most);
    CHECK(particles::device_shortfall(model(most), most, info).empty());  // the boundary
    CHECK(!particles::device_shortfall(model(most + 1), most + 1, info).empty());
  }
  // Each limit, on a pretend device: a bound buffer, an allocation, all of them together.
  const particles::Model m = model(100000);
  vksort::DeviceInfo small;
  small.max_storage_buffer_range = 1u << 20;
  CHECK(particles::device_shortfall(m, 100000, small).find("the fixed-point force sums would take 2400000 bytes, "
                                                           "more than this device binds at once (maxStorageBufferRange") !=
        std::string::npos);
  small = {};
  small.max_allocation_size = 4u << 20;
  CHECK(particles::device_shortfall(m, 100000, small).find("the pressure tensor sums would take 6400000 bytes, more "
                                                           "than this device allocates at once (maxMemoryAllocationSize") !=
        std::string::npos);
  small = {};
  small.device_local_bytes = 16u << 20;
  CHECK(particles::device_shortfall(m, 100000, small).find("more than this device's memory") != std::string::npos);
  small.device_local_bytes = 64u << 20;
  CHECK(particles::device_shortfall(m, 100000, small).empty());
}

TEST_CASE("cli: a GSD trajectory may go to a device that seeks (/dev/null)") {
  TempDir dir;
  const Run r = run(dir, "--scenario equilibrium --n 300 --box 6,6,6 --steps 2 --every 1 --dump-every 1 --gsd /dev/null");
  CHECK_MESSAGE(r.code == 0, r.err);
  struct stat st {};
  CHECK((::stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode)));  // still the device
}

// The table on stdout is the run's output: a write to it that failed (`> /dev/full`) ended in exit 0, and
// with stdout closed (`>&-`) the table went into the file the run opened first, its descriptor 1.
TEST_CASE("cli: a full or closed stdout fails the run; the table never goes into an output file") {
  TempDir dir;
  const fs::path xyz = dir.path() / "t.xyz", err = dir.path() / "err.txt";
  const std::string run_args = std::string(PARTICLES_CLI) +
                               " --scenario equilibrium --n 300 --box 6,6,6 --steps 2 --every 1 --dump-every 1 --xyz " +
                               xyz.string();
  auto code = [](int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; };
  for (const std::string& cmd : {run_args, std::string(PARTICLES_CLI) + " --help"}) {
    CAPTURE(cmd);
    CHECK(code(std::system((cmd + " >/dev/full 2>" + err.string()).c_str())) == 1);
    CHECK(slurp(err).find("particles: writing standard output failed") != std::string::npos);
  }
  fs::remove(xyz);
  CHECK(code(std::system((run_args + " >&- 2>" + err.string()).c_str())) == 2);
  CHECK(slurp(err).find("particles: standard output is closed") != std::string::npos);
  CHECK(!fs::exists(xyz));
  // Closed stdin and stderr take no file's place either: the XYZ file holds frames only.
  CHECK(code(std::system((run_args + " <&- 2>&- >/dev/null").c_str())) == 0);
  const std::string frames = slurp(xyz);
  CHECK(frames.find("# equilibrium") == std::string::npos);
  CHECK(frames.find("Lattice=") != std::string::npos);
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
  // The montage goes into the frames folder, which the run creates (it was refused: "no such folder").
  const fs::path frames = dir.path() / "rt", montage = frames / "montage.png";
  const Run r = run(dir, "--scenario rayleigh-taylor --n 540 --box 10,3,6 --steps 40 --every 20 --frames " +
                             frames.string() + " --frame-every 10 --montage " + montage.string() +
                             " --montage-columns 2");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("   mixing") != std::string::npos);  // the header names the column
  const auto [fw, fh] = png_size(slurp(frames / "frame_00000000.png"));
  const auto [mw, mh] = png_size(slurp(montage));
  CHECK(mw == 2 * fw);  // 5 frames (steps 0, 10, 20, 30, 40) in 2 columns: 3 rows
  CHECK(mh == 3 * fh);
}

// The sizes the run checks its pictures by before the steps are the sizes drawn; what libpng refuses
// anyway is named ("libpng failed" said nothing, and libpng printed its reasons on stderr itself).
TEST_CASE("pictures: frame_size and montage_size are the drawn sizes; write_png names libpng's reason") {
  TempDir dir;
  particles::Model m;
  for (const auto& box : {std::array<float, 3>{3, 3, 200}, {100, 7, 3}, {1000, 3, 3}, {7.5f, 6, 4}}) {
    m.lx = box[0], m.ly = box[1], m.lz = box[2];
    const particles::Image frame = particles::render_views(m, {1, 1, 1, 0}, 0.0, 0);
    const particles::PictureSize size = particles::frame_size(m);
    CHECK(size.width == frame.width);
    CHECK(size.height == frame.height);
    const particles::Image tiled = particles::montage({frame, frame, frame, frame, frame}, 2);
    const particles::PictureSize tiled_size = particles::montage_size(size, 5, 2);
    CHECK(tiled_size.width == tiled.width);
    CHECK(tiled_size.height == tiled.height);
  }
  particles::Image tall;
  tall.width = 1, tall.height = uint32_t(particles::kPngMaxSide) + 1;
  tall.rgb.assign(size_t(tall.height) * 3, 0);
  const fs::path png = dir.path() / "tall.png";
  try {
    particles::write_png(png.string(), tall);
    FAIL("write_png wrote a picture higher than libpng writes");
  } catch (const particles::Error& e) {
    CHECK(std::string(e.what()) ==
          "writing " + png.string() + ": libpng: Invalid IHDR data (Image height exceeds user limit in IHDR)");
  }
  CHECK(!fs::exists(png));
}

TEST_CASE("cli: --animation writes the frames as a looping GIF; bad arguments exit 2 and leave no file") {
  TempDir dir;
  const fs::path frames = dir.path() / "rt", gif = dir.path() / "rt.gif";
  const std::string common = "--scenario rayleigh-taylor --n 540 --box 10,3,6 --steps 40 --every 20 ";
#ifndef PARTICLES_HAVE_GIF
  const Run r = run(dir, common + "--frames " + frames.string() + " --animation " + gif.string());
  CHECK(r.code == 2);
  CHECK(r.err.find("this build has no GIF support") != std::string::npos);
  CHECK(!fs::exists(gif));
#else
  const struct {
    std::string args;
    const char* says;
    fs::path absent;
  } bad[] = {
      {"--animation " + gif.string(), "--animation needs --frames", gif},
      {"--frames " + frames.string() + " --animation " + (dir.path() / "rt.png").string(), "FILE.gif",
       dir.path() / "rt.png"},
      {"--frames " + frames.string() + " --animation /nonexistent/rt.gif", "--animation '/nonexistent/rt.gif': folder",
       "/nonexistent/rt.gif"},
      {"--frames " + frames.string() + " --animation " + gif.string() + " --animation-delay 0", "animation-delay",
       gif},
  };
  for (const auto& c : bad) {
    CAPTURE(c.args);
    const Run r = run(dir, common + c.args);
    CHECK(r.code == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(r.out.empty());
    CHECK(!fs::exists(c.absent));
  }
  const Run r = run(dir, common + "--frames " + frames.string() + " --frame-every 10 --animation " + gif.string() +
                             " --animation-delay 7");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const GifBlocks blocks = read_gif_blocks(slurp(gif));
  const auto [fw, fh] = png_size(slurp(frames / "frame_00000000.png"));
  CHECK(blocks.width == fw);  // the same pictures as the PNG frames
  CHECK(blocks.height == fh);
  CHECK(blocks.images == 5);  // steps 0, 10, 20, 30, 40
  CHECK(blocks.images_of_screen_size == 5);
  CHECK(blocks.loop_extensions == 1);
  CHECK(blocks.delays == std::vector<int>(5, 7));
  CHECK(blocks.trailer);
  for (const auto& entry : fs::directory_iterator(dir.path()))
    CHECK(entry.path().filename().string().find(".tmp-") == std::string::npos);
#endif
}

TEST_CASE("cli: --init files are checked at load: positions, species, velocities; exit 2, nothing written") {
  TempDir dir;
  const fs::path out = dir.path() / "out.xyz";
  const std::vector<float> inside = {0, 0, 0, 1, 1, 1, -1, -1, -1};
  const fs::path far = dir.path() / "far.gsd", hexe = dir.path() / "hexe.gsd", one_type = dir.path() / "one.gsd",
                 nan_gsd = dir.path() / "nan.gsd", inf_xyz = dir.path() / "inf.xyz", no_types = dir.path() / "a.gsd",
                 swapped = dir.path() / "swapped.gsd", heavy = dir.path() / "heavy.gsd", flat_gsd = dir.path() / "flat.gsd";
  // A particle far outside the box was moved to its corner (every coordinate clamped), exit 0.
  write_gsd3(far, {"Ne", "Ar"}, {0, 1, 0}, {100, 100, 100, 1, 1, 1, 0, 0, 0});
  // particles/types was ignored: He and Xe loaded as Ne and Ar, typeid 1 of a one-type list accepted.
  write_gsd3(hexe, {"He", "Xe"}, {0, 1, 0}, inside);
  write_gsd3(one_type, {"Ne"}, {0, 1, 0}, inside);
  // Non-finite velocities passed the load and failed at step 1 ("time step too large", exit 1).
  write_gsd3(nan_gsd, {"Ne", "Ar"}, {0, 1, 0}, inside, {0, 0, 0, NAN, 0, 0, 0, 0, 0});
  std::ofstream(inf_xyz) << "2\nLattice=\"6 0 0 0 6 0 0 0 6\" Properties=species:S:1:pos:R:3:velo:R:3\n"
                            "Ne 1 1 1 0 0 0\nAr 2 2 2 0 inf 0\n";
  // Without particles/types (HOOMD's default ['A'] names no element) typeid 2 is still refused.
  write_gsd3(no_types, {}, {0, 1, 2}, inside);
  // particles/mass was ignored: masses are the scenario's, per species (1 for both in equilibrium).
  write_gsd3(heavy, {"Ne", "Ar"}, {0, 1, 0}, inside, {}, {1, 3, 1});
  // A GSD box of zero length is refused as before, in the words the XYZ reader now shares.
  write_gsd(flat_gsd, {{"configuration/box", 9, 6, 1, bytes_of(std::vector<float>{7.75f, 0, 3.87f, 0, 0, 0})},
                       {"particles/N", 3, 1, 1, bytes_of(std::vector<uint32_t>{3})},
                       {"particles/position", 9, 3, 3, bytes_of(inside)}});
  // An XYZ Lattice of zero length ran in the scenario's default box; a negative one failed with
  // "outside the box". A tilted one is refused (boxes are rectangular).
  auto xyz_with = [&](const char* name, const std::string& lattice, const std::string& columns, const std::string& rows) {
    const fs::path path = dir.path() / name;
    std::ofstream(path) << "2\nLattice=\"" << lattice << "\" Properties=species:S:1:pos:R:3" << columns << "\n" << rows;
    return path;
  };
  const std::string two = "Ne 1 1 1\nAr 2 2 2\n";
  const fs::path zero_xyz = xyz_with("zero.xyz", "0 0 0 0 6 0 0 0 6", "", two),
                 negative_xyz = xyz_with("negative.xyz", "-6 0 0 0 6 0 0 0 6", "", two),
                 diagonal_zero_xyz = xyz_with("flat.xyz", "6 0 0 0 6 0 0 0 0", "", two),
                 tilted_xyz = xyz_with("tilted.xyz", "6 0 0 1 6 0 0 0 6", "", two),
                 // ASE after set_velocities(): momenta (m v with its element masses) and no masses; the
                 // velocities were dropped for thermal ones, a NaN among them too.
                 momenta_xyz = xyz_with("momenta.xyz", "6 0 0 0 6 0 0 0 6", ":momenta:R:3",
                                        "Ne 1 1 1 20.1797 0 0\nAr 2 2 2 nan 0 0\n"),
                 nan_momenta_xyz = xyz_with("nanmomenta.xyz", "6 0 0 0 6 0 0 0 6", ":momenta:R:3:masses:R:1",
                                            "Ne 1 1 1 20.1797 0 0 20.1797\nAr 2 2 2 nan 0 0 39.948\n"),
                 // Read where ASE refuses them: a number with a tail (read as its head), a Lattice of
                 // ten numbers, positions declared as strings, more columns than declared.
                 tail_xyz = xyz_with("tail.xyz", "6 0 0 0 6 0 0 0 6", "", "Ne 1 1 1.5abc\nAr 2 2 2\n"),
                 ten_xyz = xyz_with("ten.xyz", "6 0 0 0 6 0 0 0 6 7", "", two),
                 extra_xyz = xyz_with("extra.xyz", "6 0 0 0 6 0 0 0 6", "", "Ne 1 1 1 9\nAr 2 2 2 9\n");
  // A count line with a tail ("2abc") was read as its number.
  const fs::path count_xyz = dir.path() / "count.xyz", string_pos_xyz = dir.path() / "spos.xyz",
                 twice_xyz = dir.path() / "twice.xyz";
  std::ofstream(count_xyz) << "2abc\nLattice=\"6 0 0 0 6 0 0 0 6\" Properties=species:S:1:pos:R:3\n" << two;
  std::ofstream(string_pos_xyz) << "2\nLattice=\"6 0 0 0 6 0 0 0 6\" Properties=species:S:1:pos:S:3\n" << two;
  std::ofstream(twice_xyz) << "2\nLattice=\"6 0 0 0 6 0 0 0 6\" Properties=species:S:1:pos:R:3:pos:R:3\n" << two;
  const struct {
    fs::path file;
    const char* says;
  } cases[] = {
      {far, "particle 0 is outside the box: x = 103.875 not in [0, 7.75]"},
      {hexe, "particle 0: species 'He' is neither Ne nor Ar (set --species)"},
      {one_type, "particle 1 has typeid 1 but particles/types lists 1 type(s)"},
      {nan_gsd, "particle 1 has a velocity that is not finite: x = nan"},
      {inf_xyz, "particle 1 has a velocity that is not finite: y = inf"},
      {no_types, "particle 2 has typeid 2 (0 or 1 only: the file has no particles/types)"},
      {heavy, "particle 1 (Ar) has particles/mass 3, but the scenario gives Ar mass 1 (masses are per species"},
      {flat_gsd, "the box lengths must be positive and finite (box 7.75 x 0 x 3.87)"},
      {zero_xyz, "zero.xyz:2: Lattice: the box lengths must be positive and finite (box 0 x 6 x 6)"},
      {negative_xyz, "Lattice: the box lengths must be positive and finite (box -6 x 6 x 6)"},
      {diagonal_zero_xyz, "Lattice: the box lengths must be positive and finite (box 6 x 6 x 0)"},
      {tilted_xyz, "only rectangular boxes are supported"},
      {momenta_xyz, "momenta.xyz:2: momenta without masses"},
      {nan_momenta_xyz, "particle 1 has a velocity that is not finite: x = nan"},
      {tail_xyz, "tail.xyz:3: '1.5abc' is not a number"},
      {ten_xyz, "ten.xyz:2: Lattice needs 9 numbers, and has more"},
      {string_pos_xyz, "spos.xyz:2: pos must be an R (real) column"},
      {extra_xyz, "extra.xyz:3: 5 columns where Properties declares 4"},
      {count_xyz, "count.xyz:1: expected a particle count, got '2abc'"},
      {twice_xyz, "twice.xyz:2: malformed Properties="},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    const Run r = run(dir, "--scenario equilibrium --steps 2 --init " + c.file.string() + " --xyz " + out.string());
    CHECK(r.code == 2);
    CHECK_MESSAGE(r.err.find(c.says) != std::string::npos, r.err);
    CHECK(r.err.find(c.file.filename().string()) != std::string::npos);  // the file is named
    CHECK(r.out.empty());
    CHECK(!fs::exists(out));
  }
  // A binary file's first "line" went into the message whole (a megabyte on one line), cut at its first
  // zero byte: now 60 characters at most, the bytes not printable as \xNN.
  const fs::path binary = dir.path() / "binary.xyz";
  std::ofstream(binary, std::ios::binary) << std::string("ab\0", 3) << std::string(100000, 'c') << "\n";
  const Run bin = run(dir, "--scenario equilibrium --steps 2 --init " + binary.string());
  CHECK(bin.code == 2);
  CHECK_MESSAGE(bin.err.find("binary.xyz:1: expected a particle count, got 'ab\\x00" + std::string(57, 'c') + "...'\n") !=
                    std::string::npos,
                bin.err);
  CHECK(bin.err.size() < 300);
  // The names map typeids to the run's species: typeid 0 is Ar here, not the first --species (Ne).
  write_gsd3(swapped, {"Ar", "Ne"}, {0, 1, 0}, inside);
  const Run r = run(dir, "--scenario phase-separation --steps 0 --init " + swapped.string() + " --xyz " + out.string());
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(xyz_species(slurp(out)) == std::vector<std::string>{"Ar", "Ne", "Ar"});
  // Without particles/types, typeid 0 and 1 are the --species, as before.
  write_gsd3(no_types, {}, {0, 1, 1}, inside);
  const Run plain = run(dir, "--scenario phase-separation --steps 0 --init " + no_types.string() + " --xyz " + out.string());
  REQUIRE_MESSAGE(plain.code == 0, plain.err);
  CHECK(xyz_species(slurp(out)) == std::vector<std::string>{"Ne", "Ar", "Ar"});
  // Momenta with masses give the velocities (ASE's get_velocities()).
  const fs::path momenta_masses = xyz_with("mm.xyz", "6 0 0 0 6 0 0 0 6", ":momenta:R:3:masses:R:1",
                                           "Ne 1 1 1 40.3594 0 0 20.1797\nAr 2 2 2 0 -79.896 0 39.948\n");
  const Run mm = run(dir, "--scenario equilibrium --steps 0 --init " + momenta_masses.string() + " --xyz " + out.string());
  REQUIRE_MESSAGE(mm.code == 0, mm.err);
  CHECK(slurp(out).find("\nNe 1 1 1 2 0 0 1 2 0 0\nAr 2 2 2 0 -2 0 1 0 -2 0\n") != std::string::npos);
  // Masses that are the scenario's are taken (rayleigh-taylor: the second species is twice as heavy).
  write_gsd3(heavy, {"Ne", "Ar"}, {0, 1, 0}, inside, {}, {1, 2, 1});
  const Run heavy_ok = run(dir, "--scenario rayleigh-taylor --steps 0 --init " + heavy.string() + " --xyz " + out.string());
  CHECK_MESSAGE(heavy_ok.code == 0, heavy_ok.err);
  const Run heavy_wrong = run(dir, "--scenario equilibrium --steps 0 --init " + heavy.string() + " --xyz " + out.string());
  CHECK(heavy_wrong.code == 2);
  CHECK_MESSAGE(heavy_wrong.err.find("particle 1 (Ar) has particles/mass 2, but the scenario gives Ar mass 1") !=
                    std::string::npos,
                heavy_wrong.err);
}

TEST_CASE("cli: --msd's msd column sums the axes D is fitted over: x and y with walls in z") {
  TempDir dir;
  const struct {
    const char* args;
    const char* says;
    bool z;  // msd_z in the sum
  } cases[] = {{"--scenario phase-separation --box 5,5,4", "msd = msd_x + msd_y, walls in z", false},
               {"--scenario equilibrium --box 5,5,5", "msd = msd_x + msd_y + msd_z", true}};
  for (const auto& c : cases) {
    const std::string args = c.args;
    CAPTURE(args);
    const fs::path msd = dir.path() / "msd.csv";
    const Run r = run(dir, args + " --n 300 --steps 20 --every 5 --msd " + msd.string());
    REQUIRE_MESSAGE(r.code == 0, r.err);
    std::istringstream in(slurp(msd));
    std::string comment, header, line;
    std::getline(in, comment);
    std::getline(in, header);
    CHECK(comment.rfind("# D = ", 0) == 0);
    CHECK_MESSAGE(comment.find(c.says) != std::string::npos, comment);
    CHECK(header == "step,time,msd_x,msd_y,msd_z,msd");
    int rows = 0;
    for (; std::getline(in, line); ++rows) {
      double v[6];
      REQUIRE(std::sscanf(line.c_str(), "%lf,%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) == 6);
      CHECK(v[5] == doctest::Approx(v[2] + v[3] + (c.z ? v[4] : 0.0)).epsilon(1e-8));
      if (rows > 0) CHECK(v[4] > 1e-4);  // z moves: the sums differ
    }
    CHECK(rows == 5);
  }
}

TEST_CASE("cli: no output may replace the --restart or --init file, but --checkpoint may continue --restart's") {
  TempDir dir;
  const fs::path ckpt = dir.path() / "r.ckpt", xyz = dir.path() / "start.xyz";
  const Run first = run(dir, "--scenario equilibrium --n 300 --box 6,6,6 --steps 2 --checkpoint " + ckpt.string() +
                                 " --xyz " + xyz.string());
  REQUIRE_MESSAGE(first.code == 0, first.err);
  const std::string saved = slurp(ckpt), start = slurp(xyz);
  const struct {
    std::string args;
    const char* says;
  } cases[] = {
      {"--restart " + ckpt.string() + " --steps 2 --gsd " + ckpt.string(), "--gsd '"},
      {"--restart " + ckpt.string() + " --steps 2 --xyz " + (dir.path() / "." / "r.ckpt").string(), "--xyz '"},
      {"--scenario equilibrium --init " + xyz.string() + " --steps 2 --xyz " + xyz.string(), "--xyz '"},
      {"--scenario equilibrium --init " + xyz.string() + " --steps 2 --checkpoint " + xyz.string(), "--checkpoint '"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args);
    const Run r = run(dir, c.args);
    CHECK(r.code == 2);
    CHECK_MESSAGE(r.err.find(c.says) != std::string::npos, r.err);
    CHECK(r.err.find("file the run reads") != std::string::npos);
    CHECK(r.out.empty());
    CHECK(slurp(ckpt) == saved);
    CHECK(slurp(xyz) == start);
  }
  // Resuming and checkpointing into the same file: the checkpoint moves on to step 4.
  const Run resumed = run(dir, "--restart " + ckpt.string() + " --steps 2 --checkpoint " + ckpt.string());
  REQUIRE_MESSAGE(resumed.code == 0, resumed.err);
  CHECK(particles::read_checkpoint(ckpt.string()).state.step == 4);
  // --frame-every 0 (the default) is the first and last frame of the run, also of a resumed one: step 4
  // and step 7, not also step 6, the multiple of --steps 3 that it used to stand for.
  const fs::path frames = dir.path() / "frames";
  const Run pictured = run(dir, "--restart " + ckpt.string() + " --steps 3 --frames " + frames.string());
  REQUIRE_MESSAGE(pictured.code == 0, pictured.err);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(frames)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"frame_00000004.png", "frame_00000007.png"});
}

TEST_CASE("cli: a run may not pass the noise's 32-bit step counter (it would repeat step 0's noise)") {
  TempDir dir;
  // From step 0, 2^32 steps would end at step 2^32; a count that wraps start + steps is refused too.
  for (const char* steps : {"4294967296", "18446744073709551615"}) {
    CAPTURE(steps);
    const Run r = run(dir, std::string("--scenario equilibrium --n 300 --box 6,6,6 --steps ") + steps);
    CHECK(r.code == 2);
    CHECK_MESSAGE(r.err.find("would run past step 4294967295") != std::string::npos, r.err);
    CHECK(r.out.empty());
  }
}

TEST_CASE("cli: every field of a checkpoint is checked at load (a valid checksum is not a valid run)") {
  TempDir dir;
  using namespace particles;
  const float box[3] = {6, 6, 6};
  const Model good = scenario_model(Scenario::equilibrium, 300, box);
  const State state = scenario_state(Scenario::equilibrium, good, 300);
  Snapshot s;
  s.pos = state.pos, s.vel = state.vel, s.vtilde = state.vel, s.image.assign(state.pos.size(), 0);
  const fs::path ckpt = dir.path() / "hand.ckpt";
  // Each case changes one field of a good checkpoint; the file is written with a valid checksum.
  const struct {
    const char* says;
    void (*change)(std::string& scenario, Model& m, SpeciesNames& species, Snapshot& s);
  } cases[] = {
      {"unknown scenario 'marbles'", [](std::string& sc, Model&, SpeciesNames&, Snapshot&) { sc = "marbles"; }},
      {"species: '' is not an element symbol", [](std::string&, Model&, SpeciesNames& sp, Snapshot&) { sp.name[0] = ""; }},
      {"species: 'Xx' is not an element symbol", [](std::string&, Model&, SpeciesNames& sp, Snapshot&) { sp.name[1] = "Xx"; }},
      {"species: the two species need different symbols",
       [](std::string&, Model&, SpeciesNames& sp, Snapshot&) { sp.name[1] = sp.name[0]; }},
      {"integrator 7", [](std::string&, Model& m, SpeciesNames&, Snapshot&) { m.integrator = Integrator(7); }},
      {"noise 5", [](std::string&, Model& m, SpeciesNames&, Snapshot&) { m.noise = Noise(5); }},
      {"dt = nan is not finite and positive", [](std::string&, Model& m, SpeciesNames&, Snapshot&) { m.dt = NAN; }},
      {"mass[1] = 0 is not finite and positive", [](std::string&, Model& m, SpeciesNames&, Snapshot&) { m.mass[1] = 0; }},
      {"mass[0] = -1 is not finite and positive", [](std::string&, Model& m, SpeciesNames&, Snapshot&) { m.mass[0] = -1; }},
      {"box x = inf is not finite and positive", [](std::string&, Model& m, SpeciesNames&, Snapshot&) { m.lx = INFINITY; }},
      {"kBT = nan", [](std::string&, Model& m, SpeciesNames&, Snapshot&) { m.kbt = NAN; }},
      {"gamma[0][1] = -1", [](std::string&, Model& m, SpeciesNames&, Snapshot&) { m.gamma[0][1] = m.gamma[1][0] = -1; }},
      {"particle 7 has a velocity that is not finite", [](std::string&, Model&, SpeciesNames&, Snapshot& sn) { sn.vel[29] = NAN; }},
      {"particle 2 has a dissipative velocity that is not finite",
       [](std::string&, Model&, SpeciesNames&, Snapshot& sn) { sn.vtilde[8] = INFINITY; }},
      {"particle 0 is outside the box", [](std::string&, Model&, SpeciesNames&, Snapshot& sn) { sn.pos[0] = -1; }},
  };
  for (const auto& c : cases) {
    CAPTURE(c.says);
    std::string scenario = "equilibrium";
    Model m = good;
    SpeciesNames species;
    Snapshot changed = s;
    c.change(scenario, m, species, changed);
    write_checkpoint(ckpt.string(), scenario, m, species, changed);
    const Run r = run(dir, "--restart " + ckpt.string() + " --steps 2");
    CHECK(r.code == 2);
    CHECK_MESSAGE(r.err.find(c.says) != std::string::npos, r.err);
    CHECK(r.err.find("hand.ckpt") != std::string::npos);
    CHECK(r.out.empty());
  }
  write_checkpoint(ckpt.string(), "equilibrium", good, SpeciesNames{}, s);  // the unchanged one runs
  const Run r = run(dir, "--restart " + ckpt.string() + " --steps 2");
  CHECK_MESSAGE(r.code == 0, r.err);

  // periodic_z is a byte that no C++ bool can hold other than 0 or 1, so this case patches the file:
  // after the 16-byte magic, the version (4), the scenario's length (4) and name, and the box (3 floats),
  // then the checksum (FNV-1a 64 of all bytes before it, the file's last 8) made again.
  std::string bytes;
  {
    std::ifstream in(ckpt, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const size_t periodic_z_at = 16 + 4 + 4 + std::string("equilibrium").size() + 3 * sizeof(float);
  REQUIRE(bytes.size() > periodic_z_at + 8);
  REQUIRE(bytes[periodic_z_at] == char(good.periodic_z ? 1 : 0));
  bytes[periodic_z_at] = 2;
  uint64_t sum = 0xcbf29ce484222325ull;
  for (size_t i = 0; i + 8 < bytes.size(); ++i) sum = (sum ^ uint8_t(bytes[i])) * 0x100000001b3ull;
  std::memcpy(bytes.data() + bytes.size() - 8, &sum, 8);
  {
    std::ofstream out(ckpt, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
  }
  const Run patched = run(dir, "--restart " + ckpt.string() + " --steps 2");
  CHECK(patched.code == 2);
  CHECK_MESSAGE(patched.err.find("a true/false field (periodic_z) holds 2") != std::string::npos, patched.err);
  CHECK(patched.err.find("checksum") == std::string::npos);
  CHECK(patched.out.empty());
}
