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
}  // namespace

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::add_row(std::vector<std::string> cells) {
  assert(cells.size() == columns_.size());
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
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
  for (const auto& row : rows_) line([&](size_t c) -> const std::string& { return row[c]; });
}

}  // namespace vksort::cli
