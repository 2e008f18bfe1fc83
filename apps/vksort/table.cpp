// SPDX-License-Identifier: MIT
#include "table.hpp"

#include <algorithm>
#include <cassert>

namespace vksort::cli {

namespace {
// Display width in terminal columns: UTF-8 continuation bytes take none, so names with non-ASCII
// letters (device names, file names) do not shift the columns.
size_t display_width(const std::string& s) {
  return size_t(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// `text` after `indent` spaces, broken after ", " or "; " so that no line is wider than `width` (a
// piece wider than that on its own stays whole); continuation lines are indented two more.
void print_wrapped(std::ostream& out, const std::string& text, size_t indent, size_t width) {
  std::string line(indent, ' ');
  size_t used = indent;
  bool started = false;  // the line holds a piece
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.size();
    for (const char* sep : {", ", "; "})
      if (size_t at = text.find(sep, begin); at != std::string::npos) end = std::min(end, at + 2);
    const std::string piece = text.substr(begin, end - begin);
    const size_t piece_width = display_width(piece);
    if (started && used + piece_width > width + 1) {  // +1: a trailing blank is dropped
      line.erase(line.find_last_not_of(' ') + 1);
      out << line << '\n';
      line.assign(indent + 2, ' ');
      used = indent + 2;
    }
    line += piece;
    used += piece_width;
    started = true;
    begin = end;
  }
  line.erase(line.find_last_not_of(' ') + 1);
  out << line << '\n';
}
}  // namespace

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::add_row(std::vector<std::string> cells) {
  assert(cells.size() == columns_.size());
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
  details_.emplace_back();
}

void Table::add_detail(std::string text) {
  assert(!rows_.empty());
  details_.back() = std::move(text);
}

void Table::print(std::ostream& out) const {
  std::vector<size_t> width(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    width[c] = display_width(columns_[c].header);
    for (const auto& row : rows_) width[c] = std::max(width[c], display_width(row[c]));
  }
  auto line = [&](auto cell_of) {
    std::string text;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const std::string& cell = cell_of(c);
      const std::string pad(width[c] - display_width(cell), ' ');
      if (c) text += "  ";
      text += columns_[c].align == Align::right ? pad + cell : cell + pad;
    }
    text.erase(text.find_last_not_of(' ') + 1);
    out << text << '\n';
  };
  line([&](size_t c) -> const std::string& { return columns_[c].header; });
  std::string rule;
  for (size_t c = 0; c < columns_.size(); ++c) rule += (c ? "  " : "") + std::string(width[c], '-');
  out << rule << '\n';
  for (size_t r = 0; r < rows_.size(); ++r) {
    line([&](size_t c) -> const std::string& { return rows_[r][c]; });
    if (!details_[r].empty()) print_wrapped(out, details_[r], 4, wrap_width);
  }
}

}  // namespace vksort::cli
