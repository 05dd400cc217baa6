// CsvDataset: a small, strict CSV reader with line numbers in every error.
#include "kindling/data/csv.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string_view>

#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::data {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view line, char delim) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t pos = line.find(delim, start);
    out.push_back(trim(line.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start)));
    if (pos == std::string_view::npos) return out;
    start = pos + 1;
  }
}

}  // namespace

CsvDataset::CsvDataset(const std::string& path, CsvOptions options) {
  std::ifstream in(path);
  if (!in) throw IOError("CsvDataset: cannot open " + path + " (no such file, or not readable)");
  if (options.label_dtype != kInt64 && options.label_dtype != kFloat32 && options.label_dtype != kFloat64) {
    throw DTypeError(std::string("CsvDataset: label_dtype must be int64, float32 or float64, got ") +
                     dtype_name(options.label_dtype));
  }
  auto error = [&](std::int64_t line, const std::string& what) {
    throw IOError("CsvDataset: " + path + ", line " + std::to_string(line) + ": " + what);
  };

  std::string line;
  std::int64_t line_no = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++line_no;
    if (trim(line).empty()) continue;
    for (auto f : split(line, options.delimiter)) header.emplace_back(f);
  }
  if (header.empty()) throw IOError("CsvDataset: " + path + " is empty (expected a header row, then data rows)");
  const std::size_t ncols = header.size();
  if (ncols < 2) error(line_no, "the header has one column; need feature columns and a label column (wrong delimiter?)");
  std::size_t label_col = ncols - 1;
  if (!options.label_column.empty()) {
    auto it = std::find(header.begin(), header.end(), options.label_column);
    if (it == header.end()) {
      std::string names;
      for (const auto& h : header) names += (names.empty() ? "" : ", ") + h;
      error(line_no, "no column named '" + options.label_column + "' in the header (columns: " + names + ")");
    }
    label_col = static_cast<std::size_t>(it - header.begin());
  }
  for (std::size_t c = 0; c < ncols; ++c)
    if (c != label_col) feature_names_.push_back(header[c]);

  std::vector<float> features;
  std::vector<double> labels;
  while (std::getline(in, line)) {
    ++line_no;
    if (trim(line).empty()) continue;  // blank lines (e.g. at the end) are skipped
    auto fields = split(line, options.delimiter);
    if (fields.size() != ncols) {
      error(line_no, "expected " + std::to_string(ncols) + " fields (as in the header), found " +
                         std::to_string(fields.size()));
    }
    for (std::size_t c = 0; c < ncols; ++c) {
      const std::string field(fields[c]);
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(field.c_str(), &end);
      if (field.empty() || end != field.c_str() + field.size() || errno == ERANGE) {
        error(line_no, "column '" + header[c] + "': cannot parse '" + field + "' as a number" +
                           (field.empty() ? " (empty field: missing value?)" : ""));
      }
      if (c == label_col) {
        if (options.label_dtype == kInt64 && v != std::floor(v)) {
          error(line_no, "label column '" + header[c] + "': '" + field +
                             "' is not a whole number (class labels must be 0, 1, 2...; use "
                             "label_dtype = kFloat32 for regression targets)");
        }
        labels.push_back(v);
      } else {
        features.push_back(static_cast<float>(v));
      }
    }
  }
  const auto n = static_cast<std::int64_t>(labels.size());
  if (n == 0) throw IOError("CsvDataset: " + path + " has a header but no data rows");
  const auto f = static_cast<std::int64_t>(ncols - 1);
  features_ = tensor(features, {n, f});
  if (options.label_dtype == kInt64) {
    labels_ = tensor(std::vector<std::int64_t>(labels.begin(), labels.end()), {n});
  } else {
    labels_ = tensor(labels, {n}).to(options.label_dtype);
  }
}

Example CsvDataset::get(std::int64_t index) const {
  check_index(index, size(), "CsvDataset");
  return Example{features_.select(0, index), labels_.select(0, index)};
}

}  // namespace kindling::data
