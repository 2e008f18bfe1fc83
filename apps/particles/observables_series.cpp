// SPDX-License-Identifier: MIT
#include "observables_series.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

namespace particles {

namespace {
// The JSON file ends in this after every row; the next row is written over it.
constexpr const char* kJsonEnd = "\n]\n";

bool ends_in_json(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".json";
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
  return fields;
}

// One CSV row as a JSON object: the same digits, so both files hold the same numbers; what is not a
// finite number (nan, inf: JSON has no such numbers) becomes null.
std::string json_object(const std::string& row) {
  static const std::vector<std::string> names = split(observables_header());
  const std::vector<std::string> values = split(row);
  std::string out = "{";
  for (size_t k = 0; k < names.size() && k < values.size(); ++k) {
    char* end = nullptr;
    const double x = std::strtod(values[k].c_str(), &end);
    const bool number = end && *end == '\0' && !values[k].empty() && std::isfinite(x);
    out += (k ? ", \"" : "\"") + names[k] + "\": " + (number ? values[k] : std::string("null"));
  }
  return out + "}";
}
}  // namespace

ObservablesSeries::ObservablesSeries(const std::string& path) : file_(path), json_(ends_in_json(path)) {
  file_.append(json_ ? std::string("[") + kJsonEnd : std::string(observables_header()) + "\n");
}

void ObservablesSeries::add(const Model& m, uint64_t step, const Observables& o) {
  const std::string row = observables_row(m, step, o);
  if (json_) {
    file_.replace_tail(kJsonEnd, (first_ ? "\n" : ",\n") + json_object(row) + kJsonEnd);
    first_ = false;
  } else {
    file_.append(row + "\n");
  }
  file_.publish();
}

}  // namespace particles
