// CsvDataset: a small, strict CSV reader with line numbers in every error.
#include "kindling/data/csv.hpp"

#include <cstdio>
#include <optional>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string_view>

#include "kindling/tensor/creation.hpp"
#include "kindling/data/csv_parse.hpp"
#include "kindling/tensor/error.hpp"
#include "tensor/file_io.hpp"

namespace kindling::data {

CsvDataset::CsvDataset(const std::string& path, CsvOptions options) {
  kindling::detail::check_regular_file(path, "CsvDataset");  // a folder is not "empty"
  std::ifstream in(path);
  if (!in) throw IOError("CsvDataset: cannot open " + path + " (not readable)");
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
    if (csv::trim(line).empty()) continue;
    for (auto f : csv::split_fields(line, options.delimiter)) header.emplace_back(f);
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
  std::int64_t non_finite = 0, first_line = 0;
  std::string first_column;
  auto saw_non_finite = [&](std::int64_t at, const std::string& column, const std::string& field) {
    if (options.non_finite == NonFinite::Error) {
      error(at, "column '" + column + "': '" + field + "' is not a finite number (NaN or infinity). Hint: clean the "
                "file, or pass .non_finite = kd::data::NonFinite::Allow to keep such values.");
    }
    if (non_finite++ == 0) first_line = at, first_column = column;
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (csv::trim(line).empty()) continue;  // blank lines (e.g. at the end) are skipped
    auto fields = csv::split_fields(line, options.delimiter);
    if (fields.size() != ncols) {
      error(line_no, "expected " + std::to_string(ncols) + " fields (as in the header), found " +
                         std::to_string(fields.size()));
    }
    for (std::size_t c = 0; c < ncols; ++c) {
      const std::string field(fields[c]);
      const std::optional<double> parsed = csv::parse_number(field);
      if (!parsed) {
        error(line_no, "column '" + header[c] + "': cannot parse '" + field + "' as a number" +
                           (field.empty() ? " (empty field: missing value?)" : " (or it is out of range)"));
      }
      const double v = *parsed;
      if (c == label_col) {
        if (options.label_dtype == kInt64) {
          // 1e300 or inf once went through an undefined double -> int64 cast.
          if (auto problem = csv::label_problem(v)) {
            error(line_no, "label column '" + header[c] + "': '" + field + "': " + *problem +
                               "; use label_dtype = kFloat32 for regression targets");
          }
        } else if (!std::isfinite(v)) {
          saw_non_finite(line_no, header[c], field);
        }
        labels.push_back(v);
      } else {
        // A double beyond float's range would become inf in the float32 features: treat it as such.
        const auto f = static_cast<float>(v);
        if (!std::isfinite(f)) saw_non_finite(line_no, header[c], field);
        features.push_back(f);
      }
    }
  }
  if (non_finite > 0 && options.non_finite == NonFinite::Warn) {
    std::fprintf(stderr,
                 "CsvDataset: warning: %s has %lld NaN or infinite value(s), the first at line %lld, column '%s'. "
                 "Pass .non_finite = kd::data::NonFinite::Error (the default) to refuse such files, or ::Allow to "
                 "silence this.\n",
                 path.c_str(), static_cast<long long>(non_finite), static_cast<long long>(first_line), first_column.c_str());
  }
  const auto n = static_cast<std::int64_t>(labels.size());
  if (n == 0) throw IOError("CsvDataset: " + path + " has a header but no data rows");
  const auto f = static_cast<std::int64_t>(ncols - 1);
  features_ = tensor(features, {n, f});
  if (options.label_dtype == kInt64) {
    std::vector<std::int64_t> classes(labels.size());
    for (std::size_t i = 0; i < labels.size(); ++i) classes[i] = csv::to_class_label(labels[i], "CsvDataset: " + path);
    labels_ = tensor(classes, {n});
  } else {
    labels_ = tensor(labels, {n}).to(options.label_dtype);
  }
}

Example CsvDataset::get(std::int64_t index) const {
  check_index(index, size(), "CsvDataset");
  return Example{features_.select(0, index), labels_.select(0, index)};
}

}  // namespace kindling::data
