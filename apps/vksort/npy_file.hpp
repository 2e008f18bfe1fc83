// SPDX-License-Identifier: MIT
// npy_file.hpp — NumPy's .npy format (format versions 1.0, 2.0 and 3.0) for `vksort sort`: the dtype
// comes from the header, so a .npy file needs no --type. Only what vksort sorts is accepted: 1-D,
// C order, little-endian 4- and 8-byte integers and floats (keys), and for values also records: void
// ('|V<N>') or structured dtypes (named fields), N a multiple of 4, moved whole and written back with
// the same dtype. Anything else is refused with one line that names it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <vksort/types.hpp>

#include "npy_path.hpp"

namespace vksort::cli {

struct NpyArray {
  std::string descr;           // the dtype as the header spells it, e.g. "<f4", "|V16"
  uint32_t item_bytes = 0;     // bytes per element (a structured dtype's: from its field list)
  std::optional<Key> key;      // the key kind of a numeric descr; empty for records
  bool structured = false;     // descr is a structured dtype's field list, "[('a', '<f4'), ...]"
  bool utf8_header = false;    // the header was UTF-8 (format 3.0), not latin-1: so is descr's text
  uint64_t n = 0;               // elements (the shape's one dimension)
  uint64_t data_at = 0;         // where the elements start in the file (the header's end)
  std::vector<std::byte> data;  // the elements, n * item_bytes bytes (read_npy; empty from the header readers)
};

// Reads a whole .npy file. Throws UsageError naming `role` and the file for anything it cannot take:
// not a .npy file, a bad or truncated header, fortran_order True, not 1-D, big-endian or unsupported
// dtypes, data of the wrong size.
NpyArray read_npy(const std::filesystem::path& path, const std::string& role);

// The same checks, reading only the header of a regular file (the data stay on the disk, from data_at:
// for inputs larger than memory). Anything else (a pipe, a missing file) goes to read_npy: read whole, or
// refused as it refuses it; a pipe's header alone is read_npy_pipe_header's.
NpyArray read_npy_header(const std::filesystem::path& path, const std::string& role);

// The header of a .npy pipe `path`, read through `read` (up to N bytes into a buffer, 0 at the end) up to
// the header's end and no further: the data follow in the pipe, which the caller reads as it reads a raw
// pipe's (within --memory, spooled beyond it), then checks with check_npy_data. The checks of read_npy
// but the data's size.
NpyArray read_npy_pipe_header(const std::function<size_t(std::byte*, size_t)>& read, const std::filesystem::path& path,
                              const std::string& role);
// How many bytes the header of a .npy stream that begins with `start` takes in all, as far as `start`
// tells: 12 until its preamble is in, then the preamble's header length. No more than start.size()
// once the header is complete, or where its length is refused (too large: read_npy_pipe_header says so).
// For a reader that collects a header as its bytes come (PipeInput::read_both).
uint64_t npy_header_bytes(std::span<const std::byte> start);
// Refuses, as read_npy does, `data_bytes` of data that are not the shape's (a's n elements).
void check_npy_data(const NpyArray& a, uint64_t data_bytes, const std::filesystem::path& path, const std::string& role);

// The header of a .npy file (version 1.0; 2.0 for a field list beyond 1.0's 64 KiB) of n elements of
// dtype `descr` (a plain dtype such as "<u4", or a structured one's field list as read), 1-D and C
// order; the data (n elements, little-endian) follow it directly. utf8: descr's text is UTF-8 (read from
// a 3.0 file), else latin-1.
std::vector<std::byte> npy_header(const std::string& descr, uint64_t n, bool utf8 = false);

// The .npy dtype of a key kind ("<u4", "<f8", ...).
std::string npy_descr(Key key);

}  // namespace vksort::cli
