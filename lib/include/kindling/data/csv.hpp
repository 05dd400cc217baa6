#pragma once
/// @file
/// Tabular data from a CSV file: a header row, numeric feature columns and one label column.
/// The file is parsed once into a float32 [N, F] feature tensor and an [N] label tensor; errors
/// name the line and the column. (Fields are plain numbers: quoted fields are not supported.)
#include <cstdint>
#include <string>
#include <vector>

#include "kindling/data/dataset.hpp"

namespace kindling::data {

/// Options of CsvDataset.
struct CsvOptions {
  /// Name of the label column (as in the header); empty = the last column.
  std::string label_column;
  /// Field separator.
  char delimiter = ',';
  /// Label dtype: int64 for class indices (values must be whole numbers), float32 for regression.
  DType label_dtype = kInt64;
};

class CsvDataset {
 public:
  /// Reads `path`. Throws IOError for a missing file, and IOError with "line N" for a row with
  /// the wrong number of fields or a field that is not a number.
  explicit CsvDataset(const std::string& path, CsvOptions options = {});
  std::int64_t size() const { return features_.size(0); }
  /// {features[index] float32 [F] (a view), label 0-d}.
  Example get(std::int64_t index) const;
  const Tensor& features() const { return features_; }
  const Tensor& labels() const { return labels_; }
  /// Names of the feature columns, in order.
  const std::vector<std::string>& feature_names() const { return feature_names_; }

 private:
  Tensor features_, labels_;
  std::vector<std::string> feature_names_;
};

}  // namespace kindling::data
