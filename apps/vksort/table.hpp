// SPDX-License-Identifier: MIT
// table.hpp — plain-text tables for the terminal: columns as wide as their widest cell, numbers
// right-aligned so that digits line up.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace vksort::cli {

class Table {
 public:
  enum class Align { left, right };
  struct Column {
    std::string header;
    Align align = Align::left;
  };

  explicit Table(std::vector<Column> columns);
  // One cell per column.
  void add_row(std::vector<std::string> cells);
  // A line of text under the last row, indented, wrapped to `wrap_width` columns at ", " and "; ":
  // details too long for a column of their own (a bench case's phases and facts).
  void add_detail(std::string text);
  static constexpr size_t wrap_width = 160;
  bool empty() const { return rows_.empty(); }
  // Header, a rule of dashes, then the rows; columns separated by two spaces, no trailing blanks.
  void print(std::ostream& out) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::string> details_;  // one per row; empty: none
};

}  // namespace vksort::cli
