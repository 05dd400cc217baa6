// ex1 — a Dataset over a CSV file: parse once in the constructor, serve rows in get().
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "ch04/data_exercises.hpp"

namespace kindling::exercises::ch04 {

// BEGIN SOLUTION ex1
namespace {
// A field without the spaces (and a Windows '\r') around it.
std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    out.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}
}  // namespace
// STUB
// // ex1: helper functions (trim, split a line at commas...) may go here
// END SOLUTION

CsvTable::CsvTable(const std::string& path) {
  // BEGIN SOLUTION ex1: read the header, then one row of numbers per line; the last column is the label
  std::ifstream in(path);
  if (!in) throw IOError("CsvTable: cannot open " + path + " (no such file, or not readable)");
  auto fail = [&](std::int64_t line_no, const std::string& what) {
    throw IOError("CsvTable: " + path + ", line " + std::to_string(line_no) + ": " + what);
  };
  std::string line;
  std::int64_t line_no = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++line_no;
    if (!trim(line).empty()) header = split_fields(line);
  }
  if (header.empty()) throw IOError("CsvTable: " + path + " is empty (expected a header row, then data rows)");
  if (header.size() < 2) fail(line_no, "the header has one column; need features and a label column");

  const std::size_t ncols = header.size();
  std::vector<float> features;        // row-major [N, F], filled row by row
  std::vector<std::int64_t> labels;   // [N]
  while (std::getline(in, line)) {
    ++line_no;
    if (trim(line).empty()) continue;
    const std::vector<std::string> fields = split_fields(line);
    if (fields.size() != ncols) {
      fail(line_no, "expected " + std::to_string(ncols) + " fields as in the header, found " +
                        std::to_string(fields.size()));
    }
    for (std::size_t c = 0; c < ncols; ++c) {
      const std::string& field = fields[c];
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(field.c_str(), &end);
      if (field.empty() || end != field.c_str() + field.size() || errno == ERANGE) {
        fail(line_no, "column '" + header[c] + "': cannot parse '" + field + "' as a number");
      }
      if (c + 1 < ncols) {
        features.push_back(static_cast<float>(v));
      } else {
        if (v != std::floor(v)) fail(line_no, "label '" + field + "' is not a whole number");
        labels.push_back(static_cast<std::int64_t>(v));
      }
    }
  }
  const auto n = static_cast<std::int64_t>(labels.size());
  if (n == 0) throw IOError("CsvTable: " + path + " has a header but no data rows");
  features_ = tensor(features, {n, static_cast<std::int64_t>(ncols - 1)});  // float32 [N, F]
  labels_ = tensor(labels, {n});                                             // int64 [N]
  // END SOLUTION
}

Example CsvTable::get(std::int64_t index) const {
  // BEGIN SOLUTION ex1: check the index, then return views of row `index`
  data::check_index(index, size(), "CsvTable");
  return Example{features_.select(0, index), labels_.select(0, index)};
  // END SOLUTION
}

}  // namespace kindling::exercises::ch04
